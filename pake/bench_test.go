package pake

import (
	"crypto/rand"
	"fmt"
	"testing"

	"github.com/pqkem/pqkem/mlkem"
)

// The benchmarks reproduce the shape of Table 1 of the paper: gen_a (the
// k x k matrix) and the whole protocol (Start + Respond + Finish) for every
// sampler at every level, for NoIC and Tempo, with plain ML-KEM
// (KeyGen + Encaps + Decaps) beside them. pqkem pake bench prints them as
// ratios to A0 in one run.

func BenchmarkGenA(b *testing.B) {
	for _, level := range []int{512, 768, 1024} {
		for _, smp := range allSamplers {
			b.Run(fmt.Sprintf("%d/%v", level, smp), func(b *testing.B) {
				var a [16][256]uint16
				var rho [32]byte
				rand.Read(rho[:])
				for b.Loop() {
					rho[0]++
					smp.SampleMatrix(&a, &rho, level/256)
				}
			})
		}
	}
}

func BenchmarkSampler(b *testing.B) {
	for _, smp := range allSamplers {
		b.Run(smp.String(), func(b *testing.B) {
			var out [256]uint16
			var seed [34]byte
			rand.Read(seed[:])
			for b.Loop() {
				seed[0]++
				smp.Sample(&out, &seed)
			}
		})
	}
}

func benchProtocol(b *testing.B, s *Scheme) {
	pw, sid := make([]byte, 32), make([]byte, 32)
	for b.Loop() {
		run(b, s, pw, sid)
	}
}

func BenchmarkNoIC(b *testing.B) {
	for _, level := range []int{512, 768, 1024} {
		for _, smp := range allSamplers {
			s, _ := find(NoIC, level, smp, true)
			b.Run(fmt.Sprintf("%d/%v", level, smp), func(b *testing.B) { benchProtocol(b, s) })
		}
	}
}

func BenchmarkTempo(b *testing.B) {
	for _, level := range []int{512, 768, 1024} {
		for _, smp := range allSamplers {
			s, _ := find(Tempo, level, smp, true)
			b.Run(fmt.Sprintf("%d/%v", level, smp), func(b *testing.B) { benchProtocol(b, s) })
		}
	}
}

// BenchmarkPhases times the calls of the default scheme apart.
func BenchmarkPhases(b *testing.B) {
	s := Default()
	pw, sid := make([]byte, 32), make([]byte, 32)
	st, msg1, _ := s.Start(pw, sid)
	r, msg2, _ := s.Respond(pw, sid, msg1)
	b.Run("Start", func(b *testing.B) {
		for b.Loop() {
			s.Start(pw, sid)
		}
	})
	b.Run("Respond", func(b *testing.B) {
		for b.Loop() {
			s.Respond(pw, sid, msg1)
		}
	})
	dk := st.dk
	var msg3 []byte
	b.Run("Finish", func(b *testing.B) {
		for b.Loop() {
			st.spent, st.dk = false, dk
			_, msg3, _ = st.Finish(msg2)
		}
	})
	key, confirm := r.key, r.confirm
	b.Run("ResponderFinish", func(b *testing.B) {
		for b.Loop() {
			r.spent, r.key, r.confirm = false, key, confirm
			r.Finish(msg3)
		}
	})
}

func BenchmarkMLKEM(b *testing.B) {
	b.Run("768", func(b *testing.B) {
		for b.Loop() {
			dk, _ := mlkem.GenerateKey768()
			ek, _ := mlkem.NewEncapsulationKey768(dk.EncapsulationKey().Bytes())
			_, ct := ek.Encapsulate()
			dk.Decapsulate(ct)
		}
	})
}

// BenchmarkArithmetic times the samplers without SHAKE128: what each does
// with its fixed XOF bytes.
func BenchmarkArithmetic(b *testing.B) {
	buf := make([]byte, c1Bytes)
	rand.Read(buf)
	var out [256]uint16
	for _, c := range []struct {
		name string
		f    func(*[256]uint16, []byte)
	}{{"A1", a1FromBytes}, {"B0", b0FromBytes}, {"C1", c1FromBytes}} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				c.f(&out, buf)
			}
		})
	}
}
