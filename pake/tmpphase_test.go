package pake

import "testing"

func BenchmarkTmpPhases(b *testing.B) {
	for _, mk := range []struct {
		name string
		s    func() (*Scheme, error)
	}{{"NoIC-A0", func() (*Scheme, error) { return NewNoIC(512, Samplers[0]) }}, {"Tempo-C1", func() (*Scheme, error) { return NewTempo(512, Samplers[3]) }}} {
		s, _ := mk.s()
		pw, sid := make([]byte, 32), make([]byte, 32)
		st, msg1, _ := s.Start(pw, sid)
		msg2, _, _ := s.Respond(pw, sid, msg1)
		b.Run(mk.name+"/Start", func(b *testing.B) {
			for b.Loop() {
				s.Start(pw, sid)
			}
		})
		b.Run(mk.name+"/Respond", func(b *testing.B) {
			for b.Loop() {
				s.Respond(pw, sid, msg1)
			}
		})
		dk := st.dk
		b.Run(mk.name+"/Finish", func(b *testing.B) {
			for b.Loop() {
				st.spent, st.dk = false, dk
				st.Finish(msg2)
			}
		})
	}
}
