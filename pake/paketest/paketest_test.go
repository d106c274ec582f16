package paketest_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/pqkem/pqkem/pake"
	"github.com/pqkem/pqkem/pake/paketest"
)

// TestDeterministic checks that Start and Respond with the same randomness
// give the same messages and a session that completes, that other
// randomness gives other messages, and that wrong randomness lengths are
// errors naming the input. (The known-answer tests of package pake check
// the outputs against the vectors.)
func TestDeterministic(t *testing.T) {
	s := pake.Default()
	pw, sid := bytes.Repeat([]byte{1}, 32), bytes.Repeat([]byte{2}, 32)
	d, z, nonce, m := bytes.Repeat([]byte{3}, 32), bytes.Repeat([]byte{4}, 32), bytes.Repeat([]byte{5}, 32), bytes.Repeat([]byte{6}, 32)
	var msgs [2][2][]byte
	for i := range msgs {
		st, msg1, err := paketest.Start(s, pw, sid, d, z, nonce)
		if err != nil {
			t.Fatal(err)
		}
		r, msg2, err := paketest.Respond(s, pw, sid, msg1, m)
		if err != nil {
			t.Fatal(err)
		}
		ikey, msg3, err := st.Finish(msg2)
		if err != nil {
			t.Fatal(err)
		}
		rkey, err := r.Finish(msg3)
		if err != nil || !bytes.Equal(ikey, rkey) {
			t.Fatalf("the session does not complete: %v", err)
		}
		msgs[i] = [2][]byte{msg1, msg2}
	}
	if !bytes.Equal(msgs[0][0], msgs[1][0]) || !bytes.Equal(msgs[0][1], msgs[1][1]) {
		t.Fatal("the same randomness gave different messages")
	}
	_, msg1, _ := paketest.Start(s, pw, sid, d, z, m)
	if bytes.Equal(msg1, msgs[0][0]) {
		t.Fatal("another nonce gave the same msg1")
	}

	short := make([]byte, 31)
	for name, f := range map[string]func() error{
		"d":     func() error { _, _, err := paketest.Start(s, pw, sid, short, z, nonce); return err },
		"z":     func() error { _, _, err := paketest.Start(s, pw, sid, d, short, nonce); return err },
		"nonce": func() error { _, _, err := paketest.Start(s, pw, sid, d, z, short); return err },
		"m":     func() error { _, _, err := paketest.Respond(s, pw, sid, msgs[0][0], short); return err },
	} {
		if err := f(); err == nil || !strings.HasPrefix(err.Error(), "paketest: invalid "+name+" length 31") {
			t.Errorf("31-byte %s: %v", name, err)
		}
	}
	if _, _, err := paketest.Start(s, short, sid, d, z, nonce); err == nil || !strings.HasPrefix(err.Error(), "pake: invalid password length") {
		t.Errorf("31-byte pw: %v", err)
	}
}
