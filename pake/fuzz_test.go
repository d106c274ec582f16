package pake

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"testing"
	"time"
)

// FuzzMessages feeds arbitrary bytes to Respond (as msg1), to
// Initiator.Finish (as msg2) and to Responder.Finish (as msg3) of the
// default scheme and of NoIC-C1-ML-KEM-512: no panics; any msg1 of the
// right length is answered (the responder never aborts), other lengths
// are errors; a msg2 that is not the responder's answer, and a msg3 that
// is not the initiator's, are rejected.
func FuzzMessages(f *testing.F) {
	f.Add([]byte{}, uint8(0))
	f.Add(bytes.Repeat([]byte{0xff}, 1216), uint8(1))
	f.Add(bytes.Repeat([]byte{0x5a}, 1120), uint8(2))
	pw, sid := make([]byte, 32), make([]byte, 32)
	noic, _ := NewNoIC(512, C1)
	f.Fuzz(func(t *testing.T, data []byte, which uint8) {
		s := Default()
		if which&1 == 1 {
			s = noic
		}
		msg := data
		if which&2 == 0 && len(msg) < s.Msg1Size() {
			// Mostly right-length messages: pad.
			msg = append(bytes.Clone(msg), make([]byte, s.Msg1Size()-len(msg))...)
		}
		r, msg2, err := s.Respond(pw, sid, msg)
		if (err == nil) != (len(msg) == s.Msg1Size()) {
			t.Fatalf("Respond on %d bytes: %v", len(msg), err)
		}
		if err == nil {
			if len(msg2) != s.Msg2Size() {
				t.Fatalf("Respond gave %d bytes", len(msg2))
			}
			// No arbitrary msg3 opens the responder's key.
			if k, err := r.Finish(data); err == nil || k != nil {
				t.Fatalf("Responder.Finish accepted %d arbitrary bytes", len(data))
			}
		}
		st, _, err := s.Start(pw, sid)
		if err != nil {
			t.Fatal(err)
		}
		m2 := data
		if which&2 == 0 && len(m2) < s.Msg2Size() {
			m2 = append(bytes.Clone(m2), make([]byte, s.Msg2Size()-len(m2))...)
		}
		if k, m3, err := st.Finish(m2); err == nil || k != nil || m3 != nil {
			t.Fatalf("Finish accepted a msg2 of %d arbitrary bytes", len(m2))
		}
	})
}

// FuzzConn plays a peer that sends arbitrary bytes, then closes, to Server
// and to Client: no panics, no key, an error every time, and within the
// timeout.
func FuzzConn(f *testing.F) {
	s := Default()
	f.Add([]byte{}, false)
	f.Add(append(hello(s), frame(make([]byte, s.Msg1Size()))...), false)
	f.Add(frame(make([]byte, s.Msg2Size())), true)
	f.Add([]byte{0, 0, 0, 1, 0}, true)
	creds, err := NewCredentials(s, []byte("pw"), "a", "b", testArgon2)
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, data []byte, client bool) {
		own, peer := net.Pipe()
		defer own.Close()
		go func() {
			// Read what the other side sends, and send data.
			go io.Copy(io.Discard, peer)
			peer.Write(data)
			peer.Close()
		}()
		f := Server
		if client {
			f = Client
		}
		key, err := f(context.Background(), own, &Config{Credentials: creds, Timeout: 5 * time.Second})
		if err == nil || key != nil {
			t.Fatalf("a key from a peer without the password: %x, %v", key, err)
		}
		if errors.Is(err, ErrTimeout) {
			t.Fatalf("a peer that closes is a timeout: %v", err)
		}
	})
}
