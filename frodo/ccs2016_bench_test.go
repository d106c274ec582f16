package frodo

import "testing"

func BenchmarkCCS2016(b *testing.B) {
	for _, s := range []*KeyExchangeSet{CCS2016Recommended(), CCS2016Paranoid()} {
		msgA, _ := s.Alice0()
		msgB, _, _ := s.Bob(msgA)
		b.Run(s.Name()+"/Alice0", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				s.Alice0()
			}
		})
		b.Run(s.Name()+"/Bob", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				s.Bob(msgA)
			}
		})
		b.Run(s.Name()+"/Alice1", func(b *testing.B) {
			b.ReportAllocs()
			_, st := s.Alice0()
			for b.Loop() {
				st.alice1(msgB)
			}
		})
	}
}
