package frodo

import (
	"bytes"
	"testing"
)

// ccsFuzzSeed is Alice's fixed seed in the fuzz target.
var ccsFuzzSeed = bytes.Repeat([]byte{0xa5}, ccsAliceRandom)

// ccsFit repeats or cuts data to n bytes, so that short fuzz inputs reach
// the right lengths.
func ccsFit(data []byte, n int) []byte {
	out := make([]byte, n)
	for o := 0; len(data) > 0 && o < n; o += len(data) {
		copy(out[o:], data)
	}
	return out
}

// FuzzCCS2016 gives Bob arbitrary messages from Alice and Alice1 arbitrary
// messages from Bob, of any length or (with exact) of the right length.
// A wrong length is an error that leaves Alice's state unspent; any other
// message gives a 32-byte key, never a panic. Flipping hint bit t of a
// message changes key digit t, by one, exactly where the hint decides
// (W_t mod 2^11 within 512 of 1024), and no other digit.
func FuzzCCS2016(f *testing.F) {
	for i, s := range []*KeyExchangeSet{CCS2016Recommended(), CCS2016Paranoid()} {
		msgA, _ := s.Alice0()
		msgB, _, _ := s.Bob(msgA)
		f.Add(uint8(i), true, msgB[:64], uint8(3))
		f.Add(uint8(i), false, msgA[:100], uint8(63))
		f.Add(uint8(i), true, msgB, uint8(0))
	}
	f.Fuzz(func(t *testing.T, set uint8, exact bool, data []byte, bit uint8) {
		s := CCS2016Recommended()
		if set%2 == 1 {
			s = CCS2016Paranoid()
		}

		// Bob, given an arbitrary message from Alice.
		msgA := data
		if exact {
			msgA = ccsFit(data, s.AliceMessageSize())
		}
		msgB, keyB, err := s.Bob(msgA)
		if len(msgA) != s.AliceMessageSize() {
			if err == nil || msgB != nil || keyB != nil {
				t.Fatalf("%s: Bob accepted a %d-byte message from Alice", s.Name(), len(msgA))
			}
		} else if err != nil || len(msgB) != s.BobMessageSize() || len(keyB) != CCS2016KeySize {
			t.Fatalf("%s: Bob: %v, a %d-byte message and a %d-byte key", s.Name(), err, len(msgB), len(keyB))
		}

		// Alice1, given an arbitrary message from Bob.
		_, st, err := s.alice0FromSeed(ccsFuzzSeed)
		if err != nil {
			t.Fatal(err)
		}
		msg := data
		if exact {
			msg = ccsFit(data, s.BobMessageSize())
		}
		if len(msg) != s.BobMessageSize() {
			if key, err := st.Alice1(msg); err == nil || key != nil {
				t.Fatalf("%s: Alice1 accepted a %d-byte message from Bob", s.Name(), len(msg))
			}
			msg = ccsFit(data, s.BobMessageSize()) // the state is not spent
		}
		var w [nbar * nbar]uint16
		st.bPrimeS(&w, msg)
		tb := int(bit) % (nbar * nbar)
		flipped := bytes.Clone(msg)
		flipped[len(flipped)-ccsHintSize+tb/8] ^= 1 << (tb % 8)
		keyF := st.alice1(flipped)
		key, err := st.Alice1(msg)
		if err != nil || len(key) != CCS2016KeySize {
			t.Fatalf("%s: Alice1: %v", s.Name(), err)
		}
		if _, err := st.Alice1(msg); err == nil {
			t.Fatalf("%s: a state served twice", s.Name())
		}
		digit := func(k []byte, t int) byte { return k[t/2] >> (4 * (1 - t%2)) & 0xf }
		r := w[tb] & (1<<ccsBbar - 1)
		decides := r >= 512 && r < 1536
		for u := range nbar * nbar {
			d, dF := digit(key, u), digit(keyF, u)
			switch {
			case u == tb && decides && (d-dF)&0xf != 1 && (dF-d)&0xf != 1:
				t.Fatalf("%s: hint bit %d flipped where it decides (W_t mod 2^11 = %d): digit %d, then %d", s.Name(), u, r, d, dF)
			case (u != tb || !decides) && d != dF:
				t.Fatalf("%s: hint bit %d flipped (W_t mod 2^11 = %d) changed digit %d", s.Name(), tb, r, u)
			}
		}
	})
}
