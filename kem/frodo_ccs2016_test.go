package kem_test

import (
	"bytes"
	"encoding/hex"
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

// The authors' vectors run through the registry: the decapsulation key's
// seed is alice_rng, the encapsulation seed bob_rng.
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
		h := func(s string) []byte {
			b, err := hex.DecodeString(s)
			if err != nil {
				t.Fatal(err)
			}
			return b
		}
		for i, tc := range v.Cases {
			dk := must(t)(s.NewDecapsulationKey(h(tc.AliceRNG)))
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
		}
	}
}

// A decapsulation key serves one decapsulation: a ciphertext of the wrong
// length leaves it unspent, the first good one spends it, erasing its
// seed, and the second is ErrKeyUsed.
func TestCCS2016SingleUse(t *testing.T) {
	for _, c := range ccsSchemes {
		s, _ := kem.ByName(c.name)
		dk := must(t)(s.GenerateKey())
		if got := len(dk.Bytes()); got != s.DecapsulationKeySize() || got != 80 {
			t.Errorf("%s: Bytes is %d bytes, want the 80-byte seed", c.name, got)
		}
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
		if b := dk.Bytes(); b == nil || len(b) != 0 {
			t.Errorf("%s: a spent key's Bytes is %d bytes (nil: %v), want an empty slice", c.name, len(b), b == nil)
		}
		_, err = dk.Decapsulate(ct)
		if !errors.Is(err, kem.ErrKeyUsed) || !strings.HasPrefix(err.Error(), "kem: "+c.name+": ") {
			t.Errorf("%s: a second Decapsulate: %v, want ErrKeyUsed", c.name, err)
		}
		if _, err := s.NewDecapsulationKey(dk.Bytes()); err == nil {
			t.Errorf("%s: NewDecapsulationKey of a spent key's Bytes succeeded", c.name)
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

		for _, n := range []int{0, s.EncapsulationKeySize() - 1, s.EncapsulationKeySize() + 1} {
			if _, err := s.NewEncapsulationKey(make([]byte, n)); err == nil || !strings.HasPrefix(err.Error(), "kem: invalid") {
				t.Errorf("%s: NewEncapsulationKey of %d bytes: %v", c.name, n, err)
			}
		}
		for _, n := range []int{0, 79, 81} {
			if _, err := s.NewDecapsulationKey(make([]byte, n)); err == nil || !strings.HasPrefix(err.Error(), "kem: invalid") {
				t.Errorf("%s: NewDecapsulationKey of %d bytes: %v", c.name, n, err)
			}
		}
		if sp := s.(kem.Specifier).Specification(); !strings.Contains(sp, "passively secure; ephemeral only; no key files") {
			t.Errorf("%s: Specification %q does not give the limits", c.name, sp)
		}
	}
}
