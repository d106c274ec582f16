package frodo

import (
	"bytes"
	"testing"
)

func TestCCS2016RoundTrip(t *testing.T) {
	for _, s := range []*KeyExchangeSet{CCS2016Recommended(), CCS2016Paranoid()} {
		msgA, st := s.Alice0()
		if _, _, err := s.Bob(msgA[:len(msgA)-1]); err == nil {
			t.Errorf("%s: truncated Alice message accepted", s.Name())
		}
		if _, _, err := s.Bob(append(msgA, 0)); err == nil {
			t.Errorf("%s: extended Alice message accepted", s.Name())
		}
		msgB, keyB, err := s.Bob(msgA)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := st.Alice1(msgB[1:]); err == nil {
			t.Errorf("%s: truncated Bob message accepted", s.Name())
		}
		flipped := bytes.Clone(msgB)
		// A single flipped bit changes the key only where W_t is near a
		// rounding boundary; flipping all 64 changes it but for
		// probability about 2^-64.
		for i := range 8 {
			flipped[len(flipped)-1-i] ^= 0xff
		}
		keyF := st.alice1(flipped)
		keyA, err := st.Alice1(msgB)
		if err != nil || !bytes.Equal(keyA, keyB) {
			t.Fatalf("%s: keys differ (%v)", s.Name(), err)
		}
		if bytes.Equal(keyF, keyA) {
			t.Errorf("%s: a flipped hint gave the same key", s.Name())
		}
	}
}

// TestCCS2016SamplerCounts runs the sampler's inverse CDF over every input
// of one sample and checks the counts against the paper's Table 1.
func TestCCS2016SamplerCounts(t *testing.T) {
	for _, tc := range []struct {
		s    *KeyExchangeSet
		bits uint
		want []int // count of 0, then of each of +x and -x
	}{
		{CCS2016Recommended(), 12, []int{1206, 919, 406, 104, 15, 1}},
		{CCS2016Paranoid(), 16, []int{19304, 14700, 6490, 1659, 245, 21, 1}},
	} {
		in := make([]uint16, 1<<tc.bits)
		for x := range in {
			if tc.bits == 12 {
				in[x] = uint16(x&0x7ff)<<1 | uint16(x>>11) // D3: u, then sign
			} else {
				in[x] = uint16(x)
			}
		}
		tc.s.p.sample(in)
		counts := map[int16]int{}
		for _, v := range in {
			counts[int16(v)]++
		}
		for m, w := range tc.want {
			pos, neg := counts[int16(m)], counts[int16(-m)]
			if m == 0 && w != pos {
				t.Errorf("%s: %d zeros, want %d", tc.s.Name(), pos, w)
			}
			if m > 0 && (pos != w || neg != w) {
				t.Errorf("%s: +-%d counted %d, %d, want %d", tc.s.Name(), m, pos, neg, w)
			}
		}
	}
}
