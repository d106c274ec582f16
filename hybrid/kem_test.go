package hybrid_test

import (
	"bytes"
	"crypto"
	"fmt"
	"strings"
	"testing"

	"github.com/pqkem/pqkem/hybrid"
	"github.com/pqkem/pqkem/hybrid/hybridtest"
	"github.com/pqkem/pqkem/kem"
	"github.com/pqkem/pqkem/kem/kemtest"
)

// TestRegistry checks the hybrids as package kem has them: by name, with
// the sizes, ids and specification of package hybrid, and keys that agree
// with package hybrid's, through kem.Scheme and kemtest.
func TestRegistry(t *testing.T) {
	names := []string{"X-Wing", "MLKEM768-P256", "MLKEM1024-P384", "X25519MLKEM768", "SecP256r1MLKEM768", "SecP384r1MLKEM1024"}
	registered := strings.Join(kem.Names(), ",")
	if !strings.Contains(registered, strings.Join(names, ",")) || !strings.HasPrefix(registered, "ML-KEM-512,ML-KEM-768,ML-KEM-1024,") {
		t.Errorf("kem.Names() = %v, want ML-KEM first, then %v", kem.Names(), names)
	}
	for i, k := range hybrid.All() {
		if k.Name() != names[i] {
			t.Fatalf("hybrid.All()[%d] is %s, want %s", i, k.Name(), names[i])
		}
		t.Run(k.Name(), func(t *testing.T) {
			s, err := kem.ByName(strings.ToLower(k.Name()))
			if err != nil {
				t.Fatal(err)
			}
			if s.Name() != k.Name() || s.EncapsulationKeySize() != k.EncapsulationKeySize() ||
				s.DecapsulationKeySize() != k.SeedSize() || s.CiphertextSize() != k.CiphertextSize() ||
				s.SharedKeySize() != k.SharedKeySize() ||
				s.EncapsulationSeedSize() != k.EncapsulationSeedSize() {
				t.Error("the kem.Scheme's name or sizes differ from package hybrid's")
			}
			if sp, ok := s.(kem.Specifier); !ok || sp.Specification() != k.Specification() {
				t.Error("the kem.Scheme does not name the specification")
			}
			wantHPKE, isHPKE := k.HPKEID()
			if h, ok := s.(kem.HPKEScheme); !ok {
				t.Error("not a kem.HPKEScheme")
			} else if id, ok := h.HPKEID(); id != wantHPKE || ok != isHPKE {
				t.Errorf("HPKEID() = %#04x, %v", id, ok)
			}
			wantTLS, isTLS := k.TLSGroup()
			if g, ok := s.(kem.TLSGroupScheme); !ok {
				t.Error("not a kem.TLSGroupScheme")
			} else if cp, ok := g.TLSGroup(); cp != wantTLS || ok != isTLS {
				t.Errorf("TLSGroup() = %#04x, %v", cp, ok)
			}

			seed := randomBytes(s.DecapsulationKeySize())
			dk, err := s.NewDecapsulationKey(seed)
			if err != nil {
				t.Fatal(err)
			}
			ref := mustDK(t, k, seed)
			if dk.Scheme() != s || dk.EncapsulationKey().Scheme() != s || !bytes.Equal(dk.Bytes(), seed) ||
				!bytes.Equal(dk.EncapsulationKey().Bytes(), ref.EncapsulationKey().Bytes()) {
				t.Fatal("kem's NewDecapsulationKey differs from hybrid's")
			}
			if again, err := s.NewDecapsulationKey(dk.Bytes()); err != nil || !bytes.Equal(again.Bytes(), seed) {
				t.Fatalf("NewDecapsulationKey(dk.Bytes()) does not round-trip: %v", err)
			}
			ek, err := s.NewEncapsulationKey(dk.EncapsulationKey().Bytes())
			if err != nil {
				t.Fatal(err)
			}

			random := randomBytes(s.EncapsulationSeedSize())
			ss, ct, err := kemtest.Encapsulate(ek, random)
			if err != nil {
				t.Fatal(err)
			}
			refSS, refCT, err := hybridtest.Encapsulate(ref.EncapsulationKey(), random)
			if err != nil || !bytes.Equal(ss, refSS) || !bytes.Equal(ct, refCT) {
				t.Fatalf("kemtest.Encapsulate differs from hybridtest.Encapsulate: %v", err)
			}
			if got, err := dk.Decapsulate(ct); err != nil || !bytes.Equal(got, ss) {
				t.Fatalf("Decapsulate: %v", err)
			}

			var d crypto.Decapsulator = dk
			e, ok := d.Encapsulator().(kem.EncapsulationKey)
			if !ok || e.Scheme() != s {
				t.Fatalf("Encapsulator() is a %T, not a kem.EncapsulationKey of the scheme", d.Encapsulator())
			}
			ss, ct = e.Encapsulate()
			if got, err := d.Decapsulate(ct); err != nil || !bytes.Equal(got, ss) {
				t.Fatalf("round trip through the crypto interfaces: %v", err)
			}

			for _, n := range []int{0, s.DecapsulationKeySize() - 1, s.DecapsulationKeySize() + 1} {
				want := fmt.Sprintf("hybrid: %s: invalid decapsulation key length %d, want %d", s.Name(), n, s.DecapsulationKeySize())
				if _, err := s.NewDecapsulationKey(make([]byte, n)); err == nil || err.Error() != want {
					t.Errorf("NewDecapsulationKey with %d bytes: error %v, want %q", n, err, want)
				}
			}
			for _, n := range []int{0, s.EncapsulationSeedSize() - 1} {
				if _, _, err := kemtest.Encapsulate(ek, make([]byte, n)); err == nil || !strings.HasPrefix(err.Error(), "kemtest: ") {
					t.Errorf("kemtest.Encapsulate with %d bytes: error %v, want a kemtest error", n, err)
				}
			}
			if _, err := s.NewEncapsulationKey(make([]byte, s.EncapsulationKeySize()-1)); err == nil {
				t.Error("NewEncapsulationKey of a short key: no error")
			}
		})
	}
}
