package kem_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/pqkem/pqkem/internal/vectors"
	"github.com/pqkem/pqkem/kem"
	"github.com/pqkem/pqkem/kem/kemtest"
)

var ccsSchemes = []struct{ name, file string }{
	{"Frodo-CCS2016-Recommended", "frodo-ccs2016/recommended.json"},
	{"Frodo-CCS2016-Paranoid", "frodo-ccs2016/paranoid.json"},
}

// The authors' vectors run through the registry: kemtest.GenerateKey takes
// alice_rng, kemtest.Encapsulate bob_rng.
func TestCCS2016Vectors(t *testing.T) {
	for _, c := range ccsSchemes {
		s, err := kem.ByName(c.name)
		if err != nil {
			t.Fatal(err)
		}
		var v struct {
			// Labels, not compared here.
			Scheme          string          `json:"scheme"`
			ParameterSet    string          `json:"parameter_set"`
			Group           string          `json:"group"`
			MatrixGenerator string          `json:"matrix_generator"`
			Params          json.RawMessage `json:"params"`
			Cases           []struct {
				// Labels and the debugging values, not compared here.
				Index     int             `json:"index"`
				RNGLabel  string          `json:"rng_label"`
				SeedA     string          `json:"seed_a"`
				HintC     string          `json:"hint_c"`
				KeysEqual bool            `json:"keys_equal"`
				Debug     json.RawMessage `json:"debug"`

				AliceRNG string `json:"alice_rng"`
				BobRNG   string `json:"bob_rng"`
				MsgAlice string `json:"msg_alice"`
				MsgBob   string `json:"msg_bob"`
				KeyBob   string `json:"key_bob"`
				KeyAlice string `json:"key_alice"`
			} `json:"cases"`
		}
		vectors.ReadJSON(t, c.file, &v)
		if len(v.Cases) == 0 {
			t.Fatalf("%s: no cases", c.file)
		}
		h := func(s string) []byte { return vectors.Hex(t, s) }
		for i, tc := range v.Cases {
			dk := must(t)(kemtest.GenerateKey(s, h(tc.AliceRNG)))
			if !bytes.Equal(dk.EncapsulationKey().Bytes(), h(tc.MsgAlice)) {
				t.Fatalf("%s case %d: encapsulation key is not Alice's message", c.name, i)
			}
			ek, err := s.NewEncapsulationKey(h(tc.MsgAlice))
			if err != nil {
				t.Fatal(err)
			}
			K, ct, err := kemtest.Encapsulate(ek, h(tc.BobRNG))
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(ct, h(tc.MsgBob)) || !bytes.Equal(K, h(tc.KeyBob)) {
				t.Fatalf("%s case %d: ciphertext or shared key is not Bob's", c.name, i)
			}
			K2, err := dk.Decapsulate(ct)
			if err != nil || !bytes.Equal(K2, h(tc.KeyAlice)) {
				t.Fatalf("%s case %d: Decapsulate gave %x, %v, want Alice's key", c.name, i, K2, err)
			}
			// A key from kemtest is single-use like any other.
			if _, err := dk.Decapsulate(ct); !errors.Is(err, kem.ErrKeyUsed) {
				t.Fatalf("%s case %d: a second Decapsulate: %v, want ErrKeyUsed", c.name, i, err)
			}
		}
	}
}

// A decapsulation key serves one decapsulation: a ciphertext of the wrong
// length leaves it unspent, the first good one spends it, and the second
// is ErrKeyUsed.
func TestCCS2016SingleUse(t *testing.T) {
	for _, c := range ccsSchemes {
		s, _ := kem.ByName(c.name)
		dk := must(t)(s.GenerateKey())
		K, ct := dk.EncapsulationKey().Encapsulate()
		for _, n := range []int{0, len(ct) - 1, len(ct) + 1} {
			_, err := dk.Decapsulate(make([]byte, n))
			if err == nil || !strings.HasPrefix(err.Error(), "kem: invalid "+c.name+" ciphertext length") || errors.Is(err, kem.ErrKeyUsed) {
				t.Errorf("%s: Decapsulate of %d bytes: %v", c.name, n, err)
			}
		}
		K2, err := dk.Decapsulate(ct)
		if err != nil || !bytes.Equal(K, K2) {
			t.Fatalf("%s: Decapsulate: %v", c.name, err)
		}
		for range 2 {
			K3, err := dk.Decapsulate(ct)
			if !errors.Is(err, kem.ErrKeyUsed) || !strings.HasPrefix(err.Error(), "kem: "+c.name+": ") || K3 != nil {
				t.Errorf("%s: Decapsulate of a spent key: %x, %v, want ErrKeyUsed", c.name, K3, err)
			}
		}

		// A tampered ciphertext is not detected: it spends the key, and
		// flipping every hint bit gives another key but for probability
		// about 2^-64.
		dk = must(t)(s.GenerateKey())
		K, ct = dk.EncapsulationKey().Encapsulate()
		for i := range 8 {
			ct[len(ct)-1-i] ^= 0xff
		}
		if K3, err := dk.Decapsulate(ct); err != nil || bytes.Equal(K, K3) {
			t.Errorf("%s: Decapsulate of a ciphertext with its hint flipped: %v, same key %v", c.name, err, bytes.Equal(K, K3))
		}
		if _, err := dk.Decapsulate(ct); !errors.Is(err, kem.ErrKeyUsed) {
			t.Errorf("%s: Decapsulate after a tampered ciphertext: %v, want ErrKeyUsed", c.name, err)
		}

		for _, n := range []int{0, s.EncapsulationKeySize() - 1, s.EncapsulationKeySize() + 1} {
			if _, err := s.NewEncapsulationKey(make([]byte, n)); err == nil || !strings.HasPrefix(err.Error(), "kem: invalid") {
				t.Errorf("%s: NewEncapsulationKey of %d bytes: %v", c.name, n, err)
			}
		}
		if sp := s.(kem.Specifier).Specification(); !strings.Contains(sp, "passively secure; ephemeral only; no key files") {
			t.Errorf("%s: Specification %q does not give the limits", c.name, sp)
		}
	}
}

// A single-use key cannot be copied: it has no encoding before or after
// its one use, and NewDecapsulationKey refuses every input, whatever its
// length (the 80 bytes of Alice0's randomness, the sizes of the other
// encodings, and every length up to a few hundred bytes).
func TestCCS2016NoEncoding(t *testing.T) {
	for _, c := range ccsSchemes {
		s, _ := kem.ByName(c.name)
		if n := s.DecapsulationKeySize(); n != 0 {
			t.Errorf("%s: DecapsulationKeySize = %d, want 0", c.name, n)
		}
		for _, dk := range []kem.DecapsulationKey{
			must(t)(s.GenerateKey()),
			must(t)(kemtest.GenerateKey(s, make([]byte, 80))),
		} {
			if b := dk.Bytes(); b != nil {
				t.Errorf("%s: Bytes of a fresh key is %d bytes, want nil", c.name, len(b))
			}
			_, ct := dk.EncapsulationKey().Encapsulate()
			if _, err := dk.Decapsulate(ct); err != nil {
				t.Fatal(err)
			}
			if b := dk.Bytes(); b != nil {
				t.Errorf("%s: Bytes of a spent key is %d bytes, want nil", c.name, len(b))
			}
		}

		lengths := []int{80, 96, s.EncapsulationKeySize(), s.CiphertextSize(), 1 << 16}
		for n := range 300 {
			lengths = append(lengths, n)
		}
		for _, n := range lengths {
			dk, err := s.NewDecapsulationKey(bytes.Repeat([]byte{0x5a}, n))
			if dk != nil || !errors.Is(err, kem.ErrSingleUse) || !strings.HasPrefix(err.Error(), "kem: "+c.name+": ") {
				t.Fatalf("%s: NewDecapsulationKey of %d bytes: %v, %v, want an error wrapping ErrSingleUse", c.name, n, dk, err)
			}
		}
		if _, err := s.NewDecapsulationKey(nil); !errors.Is(err, kem.ErrSingleUse) {
			t.Errorf("%s: NewDecapsulationKey(nil): %v", c.name, err)
		}
	}
}
