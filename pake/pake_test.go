package pake

import (
	"bytes"
	"crypto/rand"
	"strings"
	"testing"

	"github.com/pqkem/pqkem/mlkem"
)

func randBytes(n int) []byte {
	b := make([]byte, n)
	rand.Read(b)
	return b
}

// TestRoundTrip runs every scheme (both protocols, three levels, four
// samplers) with a matching password, then with a wrong one: the initiator
// gets ErrPasswordMismatch and no key, and the responder's key differs.
func TestRoundTrip(t *testing.T) {
	for _, s := range Schemes() {
		t.Run(s.Name(), func(t *testing.T) {
			pw, sid := randBytes(32), randBytes(32)
			st, msg1, err := s.Start(pw, sid)
			if err != nil {
				t.Fatal(err)
			}
			if len(msg1) != s.Msg1Size() || len(msg1) != 384*s.Level()/256+64 {
				t.Fatalf("msg1 length %d", len(msg1))
			}
			msg2, rkey, err := s.Respond(pw, sid, msg1)
			if err != nil {
				t.Fatal(err)
			}
			if len(msg2) != s.Msg2Size() || len(rkey) != SessionKeySize {
				t.Fatalf("msg2 length %d, key length %d", len(msg2), len(rkey))
			}
			ikey, err := st.Finish(msg2)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(ikey, rkey) {
				t.Fatal("keys differ")
			}
			if _, err := st.Finish(msg2); err == nil || !strings.Contains(err.Error(), "twice") {
				t.Fatalf("second Finish: %v", err)
			}

			// Wrong password (one bit).
			st, msg1, _ = s.Start(pw, sid)
			wrong := bytes.Clone(pw)
			wrong[31] ^= 1
			msg2, rkey, err = s.Respond(wrong, sid, msg1)
			if err != nil {
				t.Fatalf("the responder aborted: %v", err)
			}
			ikey, err = st.Finish(msg2)
			if err != ErrPasswordMismatch || ikey != nil {
				t.Fatalf("Finish with a wrong password: %x, %v", ikey, err)
			}
			// Wrong session identifier.
			st, msg1, _ = s.Start(pw, sid)
			msg2, rkey2, _ := s.Respond(pw, randBytes(32), msg1)
			if ikey, err = st.Finish(msg2); err != ErrPasswordMismatch || ikey != nil {
				t.Fatalf("Finish with a wrong sid: %x, %v", ikey, err)
			}
			if bytes.Equal(rkey, rkey2) {
				t.Fatal("responder keys repeat")
			}
		})
	}
}

// TestMalformed checks truncated, extended and bit-flipped messages and
// wrong input lengths at every level of the default protocol and NoIC-C1.
func TestMalformed(t *testing.T) {
	for _, s := range Schemes() {
		if s.Sampler() != C1 {
			continue
		}
		t.Run(s.Name(), func(t *testing.T) {
			pw, sid := randBytes(32), randBytes(32)
			for _, l := range []int{0, 31, 33, 64} {
				if _, _, err := s.Start(randBytes(l), sid); err == nil {
					t.Errorf("Start with a %d-byte pw succeeded", l)
				}
				if _, _, err := s.Start(pw, randBytes(l)); err == nil {
					t.Errorf("Start with a %d-byte sid succeeded", l)
				}
				if _, _, err := s.Respond(randBytes(l), sid, make([]byte, s.Msg1Size())); err == nil {
					t.Errorf("Respond with a %d-byte pw succeeded", l)
				}
			}
			st, msg1, _ := s.Start(pw, sid)
			for _, m := range [][]byte{nil, msg1[:len(msg1)-1], append(bytes.Clone(msg1), 0), msg1[1:]} {
				if _, _, err := s.Respond(pw, sid, m); err == nil || !strings.Contains(err.Error(), "msg1 length") {
					t.Errorf("Respond on a %d-byte msg1: %v", len(m), err)
				}
			}
			msg2, _, _ := s.Respond(pw, sid, msg1)
			// A wrong-length msg2 is an error and spends the state.
			if _, err := st.Finish(msg2[:len(msg2)-1]); err == nil || !strings.Contains(err.Error(), "msg2 length") {
				t.Errorf("Finish on a truncated msg2: %v", err)
			}
			if _, err := st.Finish(msg2); err == nil {
				t.Error("Finish after a failed Finish succeeded")
			}
			st, msg1, _ = s.Start(pw, sid)
			msg2, _, _ = s.Respond(pw, sid, msg1)
			if _, err := st.Finish(append(bytes.Clone(msg2), 0)); err == nil {
				t.Error("Finish on an extended msg2 succeeded")
			}

			// Bit flips in msg1: the responder still answers (no abort),
			// and the initiator rejects. A flip in the top nibble of a
			// 12-bit field can make it >= q: reduced, never an error.
			for _, pos := range []int{0, 31, 32, 33, 32 + 384*s.k - 1, len(msg1) - 1} {
				st, msg1, _ := s.Start(pw, sid)
				bad := bytes.Clone(msg1)
				bad[pos] ^= 0x80
				msg2, _, err := s.Respond(pw, sid, bad)
				if err != nil {
					t.Fatalf("Respond on a flipped msg1 (byte %d): %v", pos, err)
				}
				if key, err := st.Finish(msg2); err != ErrPasswordMismatch || key != nil {
					t.Errorf("flip in msg1 byte %d: Finish gave %x, %v", pos, key, err)
				}
			}
			// Bit flips in msg2: tag and ciphertext.
			for _, pos := range []int{0, 31, 32, 100, s.Msg2Size() - 1} {
				st, msg1, _ := s.Start(pw, sid)
				msg2, _, _ := s.Respond(pw, sid, msg1)
				msg2[pos] ^= 1
				if key, err := st.Finish(msg2); err != ErrPasswordMismatch || key != nil {
					t.Errorf("flip in msg2 byte %d: Finish gave %x, %v", pos, key, err)
				}
			}
			// msg1 with every 12-bit field at its maximum: still no abort.
			junk := bytes.Repeat([]byte{0xff}, s.Msg1Size())
			if _, _, err := s.Respond(pw, sid, junk); err != nil {
				t.Errorf("Respond on an all-ones msg1: %v", err)
			}
		})
	}
}

// TestMaskCanonical checks Mask and Unmask: inverse on canonical input,
// canonical output on any input.
func TestMaskCanonical(t *testing.T) {
	mask := maskVec(C1, (*[32]byte)(randBytes(32)), 2)
	tb := randBytes(768)
	orig := bytes.Clone(tb)
	maskT(tb, mask, false)
	for i := 0; i < len(tb); i += 3 {
		x0 := int(tb[i]) | int(tb[i+1]&0xf)<<8
		x1 := int(tb[i+1])>>4 | int(tb[i+2])<<4
		if x0 >= q || x1 >= q {
			t.Fatal("non-canonical output")
		}
	}
	maskT(tb, mask, true)
	// orig held random 12-bit fields; compare modulo q.
	for i := 0; i < len(tb); i += 3 {
		for h := range 2 {
			get := func(b []byte) int {
				if h == 0 {
					return int(b[i]) | int(b[i+1]&0xf)<<8
				}
				return int(b[i+1])>>4 | int(b[i+2])<<4
			}
			if get(tb) != get(orig)%q {
				t.Fatalf("unmask(mask(x)) = %d, want %d", get(tb), get(orig)%q)
			}
		}
	}
}

func TestSchemes(t *testing.T) {
	if d := Default(); d.Name() != "Tempo-C1-ML-KEM-768" || d.Protocol() != Tempo || d.Sampler() != C1 || d.Level() != 768 {
		t.Fatalf("Default() = %v", d)
	}
	if len(Schemes()) != 24 {
		t.Fatalf("%d schemes", len(Schemes()))
	}
	for _, s := range Schemes() {
		got, err := SchemeByName(strings.ToLower(s.Name()))
		if err != nil || got != s {
			t.Errorf("SchemeByName(%q) = %v, %v", s.Name(), got, err)
		}
	}
	if s, err := SchemeByName("NoIC-C0-ML-KEM-512"); err != nil || s.Sampler() != C1 {
		t.Errorf("C0: %v %v", s, err)
	}
	for _, bad := range []string{"", "Tempo-C1-ML-KEM-769", "NoIC-D1-ML-KEM-512", "Tempo"} {
		if _, err := SchemeByName(bad); err == nil {
			t.Errorf("SchemeByName(%q) succeeded", bad)
		}
	}
	if _, err := NewNoIC(700, C1); err == nil {
		t.Error("NewNoIC(700) succeeded")
	}
	if _, err := NewTempo(768, Sampler(9)); err == nil {
		t.Error("NewTempo with sampler 9 succeeded")
	}
	if s, err := NewNoIC(1024, B0); err != nil || s.Name() != "NoIC-B0-ML-KEM-1024" {
		t.Errorf("NewNoIC(1024, B0) = %v, %v", s, err)
	}
}

// TestNoICKeysAreNotMLKEM checks that NoIC-C1 keys differ from ML-KEM keys
// from the same seed (the matrix sampler differs), while NoIC-A0/A1 and
// every Tempo key are ML-KEM keys.
func TestNoICKeysAreNotMLKEM(t *testing.T) {
	seed := randBytes(64)
	dk, _ := mlkem.NewDecapsulationKey768(seed)
	want := dk.EncapsulationKey().Bytes()
	for _, smp := range Samplers {
		for _, proto := range []Protocol{NoIC, Tempo} {
			s := lookup(proto, 768, smp)
			k, err := s.backend.newKey(seed, nil)
			if err != nil {
				t.Fatal(err)
			}
			isFIPS := proto == Tempo || smp == A0 || smp == A1
			if got := bytes.Equal(k.encapsulationKey(), want); got != isFIPS {
				t.Errorf("%v: key equals ML-KEM's: %v, want %v", s, got, isFIPS)
			}
			if _, ok := k.(*NoICDecapsulationKey); ok != (proto == NoIC) {
				t.Errorf("%v: key type %T", s, k)
			}
		}
	}
}

// TestPresampleFallback checks that a presampled parameter set used for a
// key with another rho samples that key's matrix instead of copying.
func TestPresampleFallback(t *testing.T) {
	s, _ := NewNoIC(768, C1)
	var rho, ms [32]byte
	rand.Read(rho[:])
	pre := s.presample(&rho, &ms)
	seed := randBytes(64)
	k1, _ := s.backend.newKey(seed, nil)
	k2, _ := s.backend.newKey(seed, pre)
	if !bytes.Equal(k1.encapsulationKey(), k2.encapsulationKey()) {
		t.Fatal("a presampled parameter set for another rho changed the key")
	}
	ek := k1.encapsulationKey()
	m := [32]byte{1}
	K1, c1, _ := s.backend.encapsulate(ek, &m, nil)
	K2, c2, _ := s.backend.encapsulate(ek, &m, pre)
	if !bytes.Equal(K1, K2) || !bytes.Equal(c1, c2) {
		t.Fatal("a presampled parameter set for another rho changed the encapsulation")
	}
}
