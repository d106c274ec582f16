package kem_test

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/pqkem/pqkem/frodo"
	"github.com/pqkem/pqkem/internal/nistdrbg"
	"github.com/pqkem/pqkem/internal/vectors"
	"github.com/pqkem/pqkem/kem"
	"github.com/pqkem/pqkem/kem/kemtest"
)

var frodoNames = []string{
	"FrodoKEM-640-AES", "FrodoKEM-640-SHAKE", "FrodoKEM-976-AES", "FrodoKEM-976-SHAKE", "FrodoKEM-1344-AES", "FrodoKEM-1344-SHAKE",
	"eFrodoKEM-640-AES", "eFrodoKEM-640-SHAKE", "eFrodoKEM-976-AES", "eFrodoKEM-976-SHAKE", "eFrodoKEM-1344-AES", "eFrodoKEM-1344-SHAKE",
}

// frodoSet returns package frodo's parameter set of the scheme s, or nil.
func frodoSet(s kem.Scheme) *frodo.ParameterSet {
	for _, p := range frodo.ParameterSets() {
		if p.Name() == s.Name() {
			return p
		}
	}
	return nil
}

func frodoKATFile(s kem.Scheme) string {
	dir, suffix := "FrodoKEM", ""
	if strings.HasPrefix(s.Name(), "e") {
		dir = "eFrodoKEM"
	}
	if strings.HasSuffix(s.Name(), "-SHAKE") {
		suffix = "_shake"
	}
	return fmt.Sprintf("frodo/%s/PQCkemKAT_%d%s.rsp", dir, frodoSet(s).DecapsulationKeyExpandedSize(), suffix)
}

// The FrodoKEM KATs through the registry: the NIST DRBG's first draw is
// the key seed, its second the encapsulation seed.
func TestFrodoKATThroughRegistry(t *testing.T) {
	var rels []string
	for _, name := range frodoNames {
		s, err := kem.ByName(name)
		if err != nil {
			t.Fatal(err)
		}
		rels = append(rels, frodoKATFile(s))
	}
	vectors.Require(t, rels...)
	for _, name := range frodoNames {
		s, _ := kem.ByName(name)
		t.Run(name, func(t *testing.T) {
			if sp, ok := s.(kem.Specifier); !ok || !strings.Contains(sp.Specification(), "frodokem") {
				t.Error("no specification")
			} else if strings.HasPrefix(name, "e") != strings.Contains(sp.Specification(), "2^8") {
				t.Errorf("specification %q: eFrodoKEM's must state its limit", sp.Specification())
			}
			kvs := vectors.ReadKeyValues(t, frodoKATFile(s))
			want := map[string][]byte{}
			for _, kv := range kvs[:6] { // count 0
				if kv.Key != "count" {
					want[kv.Key] = vectors.Hex(t, kv.Value)
				}
			}
			drbg := nistdrbg.New(want["seed"], nil)
			seed := drbg.Bytes(s.DecapsulationKeySize())
			dk, err := s.NewDecapsulationKey(seed)
			if err != nil {
				t.Fatal(err)
			}
			K, c, err := kemtest.Encapsulate(dk.EncapsulationKey(), drbg.Bytes(s.EncapsulationSeedSize()))
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(dk.EncapsulationKey().Bytes(), want["pk"]) || !bytes.Equal(dk.Bytes(), seed) ||
				!bytes.Equal(c, want["ct"]) || !bytes.Equal(K, want["ss"]) {
				t.Fatal("KAT count 0 mismatch")
			}
			// The specification's sk: a key without a seed, whose Bytes
			// is the sk itself.
			dk2, err := s.NewDecapsulationKey(want["sk"])
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(dk2.Bytes(), want["sk"]) || !bytes.Equal(dk2.EncapsulationKey().Bytes(), want["pk"]) {
				t.Fatal("the key parsed from the KAT's sk does not give back the sk and pk")
			}
			if got, err := dk2.Decapsulate(want["ct"]); err != nil || !bytes.Equal(got, want["ss"]) {
				t.Fatalf("Decapsulate: %v", err)
			}
		})
	}
}

func TestFrodoRegistered(t *testing.T) {
	for _, name := range frodoNames {
		s, err := kem.ByName(name)
		if err != nil {
			t.Fatal(err)
		}
		if s.Name() != name {
			t.Errorf("ByName(%q).Name() = %q", name, s.Name())
		}
		dk, err := s.GenerateKey()
		if err != nil {
			t.Fatal(err)
		}
		if dk.Scheme() != s || dk.EncapsulationKey().Scheme() != s || len(dk.Bytes()) != s.DecapsulationKeySize() {
			t.Fatal("bad key")
		}
		ek, err := s.NewEncapsulationKey(dk.EncapsulationKey().Bytes())
		if err != nil {
			t.Fatal(err)
		}
		K, c := ek.Encapsulate()
		if len(K) != s.SharedKeySize() || len(c) != s.CiphertextSize() {
			t.Fatal("wrong lengths")
		}
		if K2, err := dk.Decapsulate(c); err != nil || !bytes.Equal(K, K2) {
			t.Fatal("round trip failed")
		}
		c[len(c)-1] ^= 1
		if K3, err := dk.Decapsulate(c); err != nil || bytes.Equal(K, K3) {
			t.Fatal("implicit rejection failed")
		}
		if _, err := s.NewDecapsulationKey(make([]byte, s.DecapsulationKeySize()+1)); err == nil {
			t.Error("NewDecapsulationKey took a wrong-length seed")
		}
		if _, err := dk.Decapsulate(c[1:]); err == nil {
			t.Error("Decapsulate took a short ciphertext")
		}
	}
}
