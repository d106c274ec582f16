package pake

import (
	"bytes"
	"crypto/sha3"
	"testing"

	"golang.org/x/crypto/argon2"
)

// cheap Argon2id costs for tests.
var testArgon2 = &Argon2Params{Time: 1, Memory: 64, Threads: 1}

// TestCredentialsDerivation recomputes the documented derivation by hand.
func TestCredentialsDerivation(t *testing.T) {
	s := Default()
	c, err := NewCredentials(s, []byte("correct horse"), "alice", "bob", testArgon2)
	if err != nil {
		t.Fatal(err)
	}
	ctx := []byte{0, 0, 0, 19}
	ctx = append(ctx, "Tempo-C1-ML-KEM-768"...)
	ctx = append(ctx, 0, 0, 0, 5)
	ctx = append(ctx, "alice"...)
	ctx = append(ctx, 0, 0, 0, 3)
	ctx = append(ctx, "bob"...)
	salt := sha3.Sum256(append(append([]byte{0, 0, 0, 27}, "pqkem pake v1 argon2id salt"...), ctx...))
	sid := sha3.Sum256(append(append([]byte{0, 0, 0, 17}, "pqkem pake v1 sid"...), ctx...))
	pw := argon2.IDKey([]byte("correct horse"), salt[:], 1, 64, 1, 32)
	if !bytes.Equal(c.pw[:], pw) || !bytes.Equal(c.SessionID(), sid[:]) {
		t.Fatalf("derivation differs from its documentation")
	}
}

func TestCredentialsRoundTrip(t *testing.T) {
	s := Default()
	a, _ := NewCredentials(s, []byte("hunter2"), "client", "server", testArgon2)
	b, _ := NewCredentials(s, []byte("hunter2"), "client", "server", testArgon2)
	st, msg1, err := a.Start()
	if err != nil {
		t.Fatal(err)
	}
	r, msg2, err := b.Respond(msg1)
	if err != nil {
		t.Fatal(err)
	}
	ikey, msg3, err := st.Finish(msg2)
	if err != nil {
		t.Fatalf("matching passwords: %v", err)
	}
	rkey, err := r.Finish(msg3)
	if err != nil || !bytes.Equal(ikey, rkey) {
		t.Fatalf("matching passwords: %v", err)
	}
	for name, c := range map[string][3]string{
		"password":   {"hunter3", "client", "server"},
		"identities": {"hunter2", "server", "client"},
		"initiator":  {"hunter2", "client2", "server"},
	} {
		other, _ := NewCredentials(s, []byte(c[0]), c[1], c[2], testArgon2)
		st, msg1, _ := a.Start()
		_, msg2, err := other.Respond(msg1)
		if err != nil {
			t.Fatal(err)
		}
		if _, _, err := st.Finish(msg2); err != ErrPasswordMismatch {
			t.Errorf("different %s: %v", name, err)
		}
	}
	// Other scheme, same password: a different pw.
	n, _ := NewNoIC(768, C1)
	c, _ := NewCredentials(n, []byte("hunter2"), "client", "server", testArgon2)
	if c.pw == a.pw || bytes.Equal(c.SessionID(), a.SessionID()) {
		t.Error("credentials do not depend on the scheme")
	}
	c.Destroy()
	if _, _, err := c.Start(); err == nil {
		t.Error("Start after Destroy succeeded")
	}
	if _, _, err := c.Respond(make([]byte, s.Msg1Size())); err == nil {
		t.Error("Respond after Destroy succeeded")
	}
	if _, err := NewCredentials(s, nil, "a", "b", testArgon2); err == nil {
		t.Error("empty password accepted")
	}
	if _, err := NewCredentials(s, []byte("x"), "a", "b", &Argon2Params{}); err == nil {
		t.Error("zero Argon2 costs accepted")
	}
}
