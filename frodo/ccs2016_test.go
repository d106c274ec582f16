package frodo

import (
	"bytes"
	"testing"

	"github.com/pqkem/pqkem/internal/vectors"
)

func TestCCS2016RoundTrip(t *testing.T) {
	for _, s := range []*KeyExchangeSet{CCS2016Recommended(), CCS2016Paranoid()} {
		msgA, st := s.Alice0()
		if _, _, err := s.Bob(msgA[:len(msgA)-1]); err == nil {
			t.Errorf("%s: truncated Alice message accepted", s.Name())
		}
		if _, _, err := s.Bob(nil); err == nil {
			t.Errorf("%s: empty Alice message accepted", s.Name())
		}
		if _, _, err := s.Bob(append(bytes.Clone(msgA), 0)); err == nil {
			t.Errorf("%s: extended Alice message accepted", s.Name())
		}
		msgB, keyB, err := s.Bob(msgA)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := st.Alice1(msgB[1:]); err == nil {
			t.Errorf("%s: truncated Bob message accepted", s.Name())
		}
		if _, err := st.Alice1(append(bytes.Clone(msgB), 0)); err == nil {
			t.Errorf("%s: extended Bob message accepted", s.Name())
		}
		if _, err := st.Alice1(nil); err == nil {
			t.Errorf("%s: empty Bob message accepted", s.Name())
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

// TestCCS2016SamplerCounts runs the sampler, from the bytes of the random
// stream on, over every input of one sample (each 12-bit half of D3's
// 3-byte groups, the other half zero; every 16-bit word of D4) and checks
// the counts against the tables of the specification (the paper's Table
// 1).
func TestCCS2016SamplerCounts(t *testing.T) {
	for _, tc := range []struct {
		s    *KeyExchangeSet
		half int   // D3: which sample of the group varies
		bits uint  // bits of one sample
		want []int // count of 0, then of each of +x and -x
	}{
		{CCS2016Recommended(), 0, 12, []int{1206, 919, 406, 104, 15, 1}},
		{CCS2016Recommended(), 1, 12, []int{1206, 919, 406, 104, 15, 1}},
		{CCS2016Paranoid(), 0, 16, []int{19304, 14700, 6490, 1659, 245, 21, 1}},
	} {
		in := make([]uint16, 1<<tc.bits)
		if tc.bits == 12 {
			var pair [2]uint16
			for x := range in {
				v := uint32(x) << (12 * tc.half)
				ccsD3Words(pair[:], []byte{byte(v), byte(v >> 8), byte(v >> 16)})
				if pair[1-tc.half] != 0 {
					t.Fatalf("D3 input %#x: the other sample's word is %#x, want 0", v, pair[1-tc.half])
				}
				in[x] = pair[tc.half]
			}
		} else {
			b := make([]byte, 2*len(in))
			for x := range in {
				b[2*x], b[2*x+1] = byte(x), byte(x>>8)
			}
			leUint16s(in, b)
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

// TestCCS2016Intermediates checks the values the vectors give for locating
// a mismatch, where the unexported functions expose them: the first 16
// entries of S, E, S' and E' and all of E” from the sampler keys, and W
// from Alice's state and Bob's message.
func TestCCS2016Intermediates(t *testing.T) {
	for _, tc := range []struct {
		file string
		s    *KeyExchangeSet
	}{
		{"frodo-ccs2016/recommended.json", CCS2016Recommended()},
		{"frodo-ccs2016/paranoid.json", CCS2016Paranoid()},
	} {
		var v struct {
			Cases []struct {
				AliceRNG string `json:"alice_rng"`
				MsgBob   string `json:"msg_bob"`
				Debug    struct {
					KeyS      string   `json:"sampler_key_S"`
					KeyE      string   `json:"sampler_key_E"`
					KeySP     string   `json:"sampler_key_S_prime"`
					KeyEP     string   `json:"sampler_key_E_prime"`
					KeyEPP    string   `json:"sampler_key_E_dprime"`
					SFirst16  []int16  `json:"S_first16"`
					EFirst16  []int16  `json:"E_first16"`
					SPFirst16 []int16  `json:"S_prime_first16"`
					EPFirst16 []int16  `json:"E_prime_first16"`
					EPP       []int16  `json:"E_dprime"`
					W         []uint16 `json:"W"`
				} `json:"debug"`
			} `json:"cases"`
		}
		vectors.ReadJSONLax(t, tc.file, &v)
		if len(v.Cases) != 10 {
			t.Fatalf("%s: %d cases, want 10", tc.file, len(v.Cases))
		}
		n := tc.s.p.n
		for i, c := range v.Cases {
			d := c.Debug
			for _, m := range []struct {
				what string
				key  string
				size int
				want []int16
			}{
				{"S", d.KeyS, n * nbar, d.SFirst16},
				{"E", d.KeyE, n * nbar, d.EFirst16},
				{"S'", d.KeySP, nbar * n, d.SPFirst16},
				{"E'", d.KeyEP, nbar * n, d.EPFirst16},
				{"E''", d.KeyEPP, nbar * nbar, d.EPP},
			} {
				out := make([]uint16, m.size)
				tc.s.sampleMatrix(out, vectors.Hex(t, m.key))
				if len(m.want) == 0 {
					t.Fatalf("%s case %d: no %s", tc.s.Name(), i, m.what)
				}
				for j, w := range m.want {
					if int16(out[j]) != w {
						t.Fatalf("%s case %d: %s[%d] = %d, want %d", tc.s.Name(), i, m.what, j, int16(out[j]), w)
					}
				}
			}
			_, st, err := tc.s.alice0FromSeed(vectors.Hex(t, c.AliceRNG))
			if err != nil {
				t.Fatal(err)
			}
			var w [nbar * nbar]uint16
			st.bPrimeS(&w, vectors.Hex(t, c.MsgBob))
			if len(d.W) != len(w) {
				t.Fatalf("%s case %d: %d values of W, want %d", tc.s.Name(), i, len(d.W), len(w))
			}
			for j := range w {
				if w[j] != d.W[j] {
					t.Fatalf("%s case %d: W[%d] = %d, want %d", tc.s.Name(), i, j, w[j], d.W[j])
				}
			}
		}
	}
}

// TestCCS2016D3Words checks the two-groups-at-a-time path of ccsD3Words
// against its one-group path, which the sampler counts test, at every
// length up to a few groups and at a matrix's length.
func TestCCS2016D3Words(t *testing.T) {
	b := make([]byte, 3*752*8/2)
	for i := range b {
		b[i] = byte(i*131 + i>>8*7 + 5)
	}
	for _, m := range []int{0, 2, 4, 6, 8, 10, 12, 14, 752 * 8} {
		got, want := make([]uint16, m), make([]uint16, m)
		ccsD3Words(got, b[:3*m/2])
		for p := 0; p < m/2; p++ {
			ccsD3Words(want[2*p:2*p+2], b[3*p:3*p+3])
		}
		for i := range got {
			if got[i] != want[i] {
				t.Fatalf("%d samples: word %d is %#x, want %#x", m, i, got[i], want[i])
			}
		}
	}
}

// The first three CCS 2016 vectors of each set (frodotest's
// TestCCS2016Vectors runs all ten on the default path) at every level this
// machine runs, and with crypto/aes's rows: Alice's and Bob's messages and
// Bob's key.
func TestCCS2016VectorsLevels(t *testing.T) {
	const cases = 3
	cpuLevels.ForEach(t, func(t *testing.T) { testCCS2016Vectors(t, cases) })
	t.Run("crypto/aes", func(t *testing.T) {
		defer forceAES(aesGo)()
		testCCS2016Vectors(t, cases)
	})
}

// testCCS2016Vectors checks the first cases vectors of each set.
func testCCS2016Vectors(t *testing.T, cases int) {
	for _, tc := range []struct {
		file string
		set  *KeyExchangeSet
	}{
		{"frodo-ccs2016/recommended.json", ccsRecommended},
		{"frodo-ccs2016/paranoid.json", ccsParanoid},
	} {
		var v struct {
			Cases []struct {
				Index    int    `json:"index"`
				AliceRNG string `json:"alice_rng"`
				BobRNG   string `json:"bob_rng"`
				MsgAlice string `json:"msg_alice"`
				MsgBob   string `json:"msg_bob"`
				KeyBob   string `json:"key_bob"`
			} `json:"cases"`
		}
		vectors.ReadJSONLax(t, tc.file, &v) // the other fields are frodotest's
		if len(v.Cases) < cases {
			t.Fatalf("%s: %d cases", tc.file, len(v.Cases))
		}
		for _, c := range v.Cases[:cases] {
			msgA, _ := tc.set.alice0(vectors.Hex(t, c.AliceRNG))
			msgB, keyB := tc.set.bob(msgA, vectors.Hex(t, c.BobRNG))
			if !bytes.Equal(msgA, vectors.Hex(t, c.MsgAlice)) || !bytes.Equal(msgB, vectors.Hex(t, c.MsgBob)) || !bytes.Equal(keyB, vectors.Hex(t, c.KeyBob)) {
				t.Fatalf("%s case %d: differs from the vector", tc.set.Name(), c.Index)
			}
		}
	}
}
