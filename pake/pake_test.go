package pake

import (
	"bytes"
	"crypto/rand"
	"crypto/sha3"
	"encoding/binary"
	"errors"
	"strings"
	"testing"

	"github.com/pqkem/pqkem/mlkem"
)

func randBytes(n int) []byte {
	b := make([]byte, n)
	rand.Read(b)
	return b
}

// schemeNamed returns the scheme named name, the A0 ones included.
func schemeNamed(name string) *Scheme {
	for _, s := range allSchemes() {
		if s.name == name {
			return s
		}
	}
	panic("no scheme " + name)
}

// run runs the three steps of s with pw and sid on both sides and returns
// both keys and the three messages.
func run(t testing.TB, s *Scheme, pw, sid []byte) (ikey, rkey, msg1, msg2, msg3 []byte) {
	t.Helper()
	st, msg1, err := s.Start(pw, sid)
	if err != nil {
		t.Fatal(err)
	}
	r, msg2, err := s.Respond(pw, sid, msg1)
	if err != nil {
		t.Fatal(err)
	}
	ikey, msg3, err = st.Finish(msg2)
	if err != nil {
		t.Fatalf("Initiator.Finish: %v", err)
	}
	rkey, err = r.Finish(msg3)
	if err != nil {
		t.Fatalf("Responder.Finish: %v", err)
	}
	return ikey, rkey, msg1, msg2, msg3
}

// TestRoundTrip runs every scheme (both protocols, three levels, four
// samplers) with a matching password, then with a wrong one and a wrong
// session identifier: the initiator gets ErrPasswordMismatch and neither
// a key nor msg3, and the responder releases no key for any msg3.
func TestRoundTrip(t *testing.T) {
	for _, s := range allSchemes() {
		t.Run(s.Name(), func(t *testing.T) {
			pw, sid := randBytes(32), randBytes(32)
			st, msg1, err := s.Start(pw, sid)
			if err != nil {
				t.Fatal(err)
			}
			if len(msg1) != s.Msg1Size() || len(msg1) != 384*s.Level()/256+64 {
				t.Fatalf("msg1 length %d", len(msg1))
			}
			r, msg2, err := s.Respond(pw, sid, msg1)
			if err != nil {
				t.Fatal(err)
			}
			if len(msg2) != s.Msg2Size() {
				t.Fatalf("msg2 length %d", len(msg2))
			}
			ikey, msg3, err := st.Finish(msg2)
			if err != nil {
				t.Fatal(err)
			}
			if len(ikey) != SessionKeySize || len(msg3) != Msg3Size {
				t.Fatalf("key length %d, msg3 length %d", len(ikey), len(msg3))
			}
			rkey, err := r.Finish(msg3)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(ikey, rkey) {
				t.Fatal("keys differ")
			}
			if _, _, err := st.Finish(msg2); err == nil || !strings.Contains(err.Error(), "twice") {
				t.Fatalf("second Initiator.Finish: %v", err)
			}
			if _, err := r.Finish(msg3); err == nil || !strings.Contains(err.Error(), "twice") {
				t.Fatalf("second Responder.Finish: %v", err)
			}

			// Wrong password (one bit), then wrong session identifier.
			wrong := bytes.Clone(pw)
			wrong[31] ^= 1
			for _, c := range []struct {
				what    string
				pw, sid []byte
			}{{"password", wrong, sid}, {"sid", pw, randBytes(32)}} {
				st, msg1, _ := s.Start(pw, sid)
				r, msg2, err := s.Respond(c.pw, c.sid, msg1)
				if err != nil {
					t.Fatalf("wrong %s: the responder aborted: %v", c.what, err)
				}
				key, msg3, err := st.Finish(msg2)
				if err != ErrPasswordMismatch || key != nil || msg3 != nil {
					t.Fatalf("wrong %s: Initiator.Finish gave %x, %x, %v", c.what, key, msg3, err)
				}
				// The initiator has no msg3 to send; the responder
				// releases its key for none, here the msg3 of another,
				// honest session.
				_, _, _, _, other := run(t, s, pw, sid)
				if key, err := r.Finish(other); err != ErrPasswordMismatch || key != nil {
					t.Fatalf("wrong %s: Responder.Finish gave %x, %v", c.what, key, err)
				}
			}
		})
	}
}

// TestConfirmation checks the key confirmation on its own, for the
// default scheme and NoIC-C1-ML-KEM-512: msg3 is the documented hash and
// not the key; a tampered, replayed (from another session of the same
// parties), truncated or extended msg3 releases no key, and spends the
// state so that the right msg3 afterwards does not either; a responder
// state from a wrong password never releases its key.
func TestConfirmation(t *testing.T) {
	noic, _ := NewNoIC(512, C1)
	for _, s := range []*Scheme{Default(), noic} {
		t.Run(s.Name(), func(t *testing.T) {
			pw, sid := randBytes(32), randBytes(32)

			// Match: msg3 as documented.
			ikey, rkey, _, msg2, msg3 := run(t, s, pw, sid)
			if !bytes.Equal(ikey, rkey) {
				t.Fatal("keys differ")
			}
			var in []byte
			for _, f := range []string{"pqkem pake v1 initiator confirmation", s.Name()} {
				in = binary.BigEndian.AppendUint32(in, uint32(len(f)))
				in = append(in, f...)
			}
			in = append(append(in, ikey...), msg2[:32]...)
			if want := sha3.Sum256(in); !bytes.Equal(msg3, want[:]) {
				t.Fatal("msg3 is not SHA3-256(lp(label) || lp(name) || key || tag)")
			}
			if bytes.Contains(msg3, ikey[:8]) {
				t.Fatal("msg3 contains the key")
			}

			// respond starts a session and returns the responder's state
			// and the initiator's msg3.
			respond := func() (*Responder, []byte) {
				t.Helper()
				st, msg1, _ := s.Start(pw, sid)
				r, msg2, err := s.Respond(pw, sid, msg1)
				if err != nil {
					t.Fatal(err)
				}
				_, msg3, err := st.Finish(msg2)
				if err != nil {
					t.Fatal(err)
				}
				return r, msg3
			}
			spentAfter := func(what string, r *Responder, good []byte) {
				t.Helper()
				if key, err := r.Finish(good); err == nil || key != nil {
					t.Errorf("%s: the right msg3 afterwards gave %x, %v", what, key, err)
				}
			}

			// Tampered: one bit anywhere.
			for _, bit := range []int{0, 7, 100, 8*Msg3Size - 1} {
				r, msg3 := respond()
				bad := bytes.Clone(msg3)
				bad[bit/8] ^= 1 << (bit % 8)
				if key, err := r.Finish(bad); err != ErrPasswordMismatch || key != nil {
					t.Errorf("bit %d flipped: %x, %v", bit, key, err)
				}
				spentAfter("tampered", r, msg3)
			}
			// Replayed: the msg3 of another session of the same parties.
			r, good := respond()
			if key, err := r.Finish(msg3); err != ErrPasswordMismatch || key != nil {
				t.Errorf("replayed msg3: %x, %v", key, err)
			}
			spentAfter("replayed", r, good)
			// Truncated, empty, extended: a length error, not a mismatch.
			for _, l := range []int{0, 1, Msg3Size - 1, Msg3Size + 1} {
				r, msg3 := respond()
				bad := append(bytes.Clone(msg3), 0)[:l]
				key, err := r.Finish(bad)
				if err == nil || key != nil || errors.Is(err, ErrPasswordMismatch) || !strings.Contains(err.Error(), "msg3 length") {
					t.Errorf("%d-byte msg3: %x, %v", l, key, err)
				}
				spentAfter("wrong length", r, msg3)
			}
			// The zero values.
			if _, _, err := new(Initiator).Finish(msg2); err == nil {
				t.Error("Finish of a zero Initiator succeeded")
			}
			if _, err := new(Responder).Finish(msg3); err == nil {
				t.Error("Finish of a zero Responder succeeded")
			}
		})
	}
}

// TestMalformed checks truncated, extended and bit-flipped messages and
// wrong input lengths at every level of the default protocol and NoIC-C1.
func TestMalformed(t *testing.T) {
	for _, s := range All() {
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
			_, msg2, _ := s.Respond(pw, sid, msg1)
			// A wrong-length msg2 is an error and spends the state.
			if _, _, err := st.Finish(msg2[:len(msg2)-1]); err == nil || !strings.Contains(err.Error(), "msg2 length") {
				t.Errorf("Finish on a truncated msg2: %v", err)
			}
			if _, _, err := st.Finish(msg2); err == nil {
				t.Error("Finish after a failed Finish succeeded")
			}
			st, msg1, _ = s.Start(pw, sid)
			_, msg2, _ = s.Respond(pw, sid, msg1)
			if _, _, err := st.Finish(append(bytes.Clone(msg2), 0)); err == nil {
				t.Error("Finish on an extended msg2 succeeded")
			}

			// Bit flips in msg1: the responder still answers (no abort),
			// and the initiator rejects. A flip in the top nibble of a
			// 12-bit field can make it >= q: reduced, never an error.
			for _, pos := range []int{0, 31, 32, 33, 32 + 384*s.k - 1, len(msg1) - 1} {
				st, msg1, _ := s.Start(pw, sid)
				bad := bytes.Clone(msg1)
				bad[pos] ^= 0x80
				_, msg2, err := s.Respond(pw, sid, bad)
				if err != nil {
					t.Fatalf("Respond on a flipped msg1 (byte %d): %v", pos, err)
				}
				if key, _, err := st.Finish(msg2); err != ErrPasswordMismatch || key != nil {
					t.Errorf("flip in msg1 byte %d: Finish gave %x, %v", pos, key, err)
				}
			}
			// Bit flips in msg2: tag and ciphertext.
			for _, pos := range []int{0, 31, 32, 100, s.Msg2Size() - 1} {
				st, msg1, _ := s.Start(pw, sid)
				_, msg2, _ := s.Respond(pw, sid, msg1)
				msg2[pos] ^= 1
				if key, _, err := st.Finish(msg2); err != ErrPasswordMismatch || key != nil {
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
	if len(All()) != 18 || len(allSchemes()) != 24 {
		t.Fatalf("%d schemes, %d with A0", len(All()), len(allSchemes()))
	}
	for _, s := range All() {
		if !s.Sampler().ConstantTime() {
			t.Errorf("All() has %v", s)
		}
		got, err := ByName(strings.ToLower(s.Name()))
		if err != nil || got != s {
			t.Errorf("ByName(%q) = %v, %v", s.Name(), got, err)
		}
	}
	if s, err := ByName("NoIC-C0-ML-KEM-512"); err != nil || s.Sampler() != C1 {
		t.Errorf("C0: %v %v", s, err)
	}
	for _, bad := range []string{"", "Tempo-C1-ML-KEM-769", "NoIC-D1-ML-KEM-512", "Tempo"} {
		if _, err := ByName(bad); err == nil || !strings.HasPrefix(err.Error(), "pake: unknown scheme") {
			t.Errorf("ByName(%q): %v", bad, err)
		}
	}
	// A0 nowhere in this package's API (package paketest has it).
	for _, name := range []string{"NoIC-A0-ML-KEM-768", "tempo-a0-ml-kem-512"} {
		if s, err := ByName(name); err == nil || !strings.Contains(err.Error(), "variable-time") {
			t.Errorf("ByName(%q) = %v, %v", name, s, err)
		}
	}
	for _, f := range []func(int, Sampler) (*Scheme, error){NewNoIC, NewTempo} {
		if s, err := f(768, a0VariableTime); err == nil || !strings.Contains(err.Error(), "variable time") {
			t.Errorf("a scheme with A0: %v, %v", s, err)
		}
	}
	if s, err := find(NoIC, 768, a0VariableTime, true); err != nil || s.Name() != "NoIC-A0-ML-KEM-768" || s.Sampler().ConstantTime() {
		t.Errorf("find(NoIC, 768, a0VariableTime) = %v, %v", s, err)
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
	if a, b := Samplers(), Samplers(); len(a) != 3 || &a[0] == &b[0] {
		t.Error("Samplers() does not return a fresh list of three")
	}
	if d := DefaultArgon2(); d != (Argon2Params{Time: 3, Memory: 64 * 1024, Threads: 4}) {
		t.Errorf("DefaultArgon2() = %+v", d)
	}
}

// TestNoICKeysAreNotMLKEM checks that NoIC-B0 and NoIC-C1 keys differ from
// ML-KEM keys from the same seed (the matrix sampler differs), while
// NoIC-A0/A1 and every Tempo key are ML-KEM keys.
func TestNoICKeysAreNotMLKEM(t *testing.T) {
	seed := [64]byte(randBytes(64))
	dk, _ := mlkem.NewDecapsulationKey768(seed[:])
	want := dk.EncapsulationKey().Bytes()
	for _, smp := range []Sampler{a0VariableTime, A1, B0, C1} {
		for _, proto := range []Protocol{NoIC, Tempo} {
			s := lookup(proto, 768, smp)
			k := s.newKey(&seed, nil)
			isFIPS := proto == Tempo || smp == a0VariableTime || smp == A1
			if got := bytes.Equal(k.EncapsulationKey().Bytes(nil), want); got != isFIPS {
				t.Errorf("%v: key equals ML-KEM's: %v, want %v", s, got, isFIPS)
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
	seed := [64]byte(randBytes(64))
	ek := s.newKey(&seed, nil).EncapsulationKey().Bytes(nil)
	if !bytes.Equal(ek, s.newKey(&seed, pre).EncapsulationKey().Bytes(nil)) {
		t.Fatal("a presampled parameter set for another rho changed the key")
	}
	m := [32]byte{1}
	K1, c1, _ := s.encapsulate(ek, &m, nil)
	K2, c2, _ := s.encapsulate(ek, &m, pre)
	if K1 != K2 || !bytes.Equal(c1, c2) {
		t.Fatal("a presampled parameter set for another rho changed the encapsulation")
	}
}
