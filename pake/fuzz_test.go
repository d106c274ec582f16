package pake

import (
	"bytes"
	"testing"
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
