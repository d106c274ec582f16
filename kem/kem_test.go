package kem_test

import (
	"bytes"
	"crypto"
	stdmlkem "crypto/mlkem"
	"crypto/rand"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/pqkem/pqkem/kem"
	"github.com/pqkem/pqkem/kem/kemtest"
	"github.com/pqkem/pqkem/mlkem"
	"github.com/pqkem/pqkem/mlkem/mlkemtest"
)

// reference is what package mlkem (and crypto/mlkem, where it has the
// level) says about one ML-KEM level, computed without package kem.
type reference struct {
	ekSize, expandedSize, ctSize int
	// keys returns the encapsulation key and the expanded decapsulation
	// key that package mlkem derives from seed.
	keys func(t *testing.T, seed []byte) (ek, expanded []byte)
	// encapsulate is mlkemtest's derandomized encapsulation.
	encapsulate func(t *testing.T, ek, m []byte) (sharedKey, ciphertext []byte)
	// stdEncapsulationKey is crypto/mlkem's encapsulation key from seed,
	// or nil for ML-KEM-512, which the standard library lacks.
	stdEncapsulationKey func(t *testing.T, seed []byte) []byte
}

type mlkemDK[EK interface{ Bytes() []byte }] interface {
	ExpandedBytes() []byte
	EncapsulationKey() EK
}

func newReference[DK mlkemDK[EK], EK interface{ Bytes() []byte }](ekSize, expandedSize, ctSize int,
	newKey func([]byte) (DK, error), newEK func([]byte) (EK, error), encaps func(EK, []byte) ([]byte, []byte, error),
) reference {
	return reference{
		ekSize: ekSize, expandedSize: expandedSize, ctSize: ctSize,
		keys: func(t *testing.T, seed []byte) ([]byte, []byte) {
			dk, err := newKey(seed)
			if err != nil {
				t.Fatal(err)
			}
			return dk.EncapsulationKey().Bytes(), dk.ExpandedBytes()
		},
		encapsulate: func(t *testing.T, ekBytes, m []byte) ([]byte, []byte) {
			ek, err := newEK(ekBytes)
			if err != nil {
				t.Fatal(err)
			}
			K, c, err := encaps(ek, m)
			if err != nil {
				t.Fatal(err)
			}
			return K, c
		},
	}
}

func withStd[DK interface{ EncapsulationKey() EK }, EK interface{ Bytes() []byte }](r reference, newKey func([]byte) (DK, error)) reference {
	r.stdEncapsulationKey = func(t *testing.T, seed []byte) []byte {
		dk, err := newKey(seed)
		if err != nil {
			t.Fatal(err)
		}
		return dk.EncapsulationKey().Bytes()
	}
	return r
}

var references = map[string]reference{
	"ML-KEM-512": newReference(mlkem.EncapsulationKeySize512, mlkem.DecapsulationKeyExpandedSize512, mlkem.CiphertextSize512,
		mlkem.NewDecapsulationKey512, mlkem.NewEncapsulationKey512, mlkemtest.Encapsulate512),
	"ML-KEM-768": withStd(newReference(mlkem.EncapsulationKeySize768, mlkem.DecapsulationKeyExpandedSize768, mlkem.CiphertextSize768,
		mlkem.NewDecapsulationKey768, mlkem.NewEncapsulationKey768, mlkemtest.Encapsulate768), stdmlkem.NewDecapsulationKey768),
	"ML-KEM-1024": withStd(newReference(mlkem.EncapsulationKeySize1024, mlkem.DecapsulationKeyExpandedSize1024, mlkem.CiphertextSize1024,
		mlkem.NewDecapsulationKey1024, mlkem.NewEncapsulationKey1024, mlkemtest.Encapsulate1024), stdmlkem.NewDecapsulationKey1024),
}

// forEachScheme runs f for every registered scheme that has a reference.
// Every ML-KEM level must be registered.
func forEachScheme(t *testing.T, f func(t *testing.T, s kem.Scheme, r reference)) {
	t.Helper()
	seen := 0
	for _, s := range kem.All() {
		r, ok := references[s.Name()]
		if !ok {
			continue
		}
		seen++
		t.Run(s.Name(), func(t *testing.T) { f(t, s, r) })
	}
	if seen != len(references) {
		t.Fatalf("kem.All() has %d of the %d ML-KEM levels", seen, len(references))
	}
}

// must returns a function that returns dk, or fails the test if err is not
// nil: must(t)(f()).
func must(t *testing.T) func(dk kem.DecapsulationKey, err error) kem.DecapsulationKey {
	return func(dk kem.DecapsulationKey, err error) kem.DecapsulationKey {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return dk
	}
}

func randomBytes(n int) []byte {
	b := make([]byte, n)
	rand.Read(b)
	return b
}

func TestAllAndByName(t *testing.T) {
	want := []string{"ML-KEM-512", "ML-KEM-768", "ML-KEM-1024"}
	all := kem.All()
	if len(all) < len(want) {
		t.Fatalf("kem.All() has %d schemes, want at least %d", len(all), len(want))
	}
	for i, name := range want {
		if got := all[i].Name(); got != name {
			t.Errorf("kem.All()[%d].Name() = %q, want %q", i, got, name)
		}
	}
	var names []string
	for _, s := range all {
		names = append(names, s.Name())
	}
	if !slices.Equal(kem.Names(), names) {
		t.Errorf("kem.Names() = %v, want %v, the names of kem.All()", kem.Names(), names)
	}
	// All returns a copy: changing it does not change the registry.
	all[0] = nil
	if kem.All()[0] == nil {
		t.Error("kem.All() returned the registry's own slice")
	}

	for _, s := range kem.All() {
		for _, name := range []string{s.Name(), strings.ToLower(s.Name()), strings.ToUpper(s.Name())} {
			got, err := kem.ByName(name)
			if err != nil {
				t.Errorf("ByName(%q): %v", name, err)
				continue
			}
			if got != s || got.Name() != s.Name() {
				t.Errorf("ByName(%q) = %v, want the scheme %s", name, got.Name(), s.Name())
			}
		}
	}

	for _, name := range []string{"", "ML-KEM", "ML-KEM-256", "Kyber768", "ML-KEM-768 "} {
		s, err := kem.ByName(name)
		if err == nil {
			t.Errorf("ByName(%q) = %v, want an error", name, s.Name())
			continue
		}
		msg := err.Error()
		if !strings.HasPrefix(msg, "kem: ") || !strings.Contains(msg, "ML-KEM-512, ML-KEM-768, ML-KEM-1024") {
			t.Errorf("ByName(%q) error %q: want the package prefix and the known names", name, msg)
		}
	}
}

func TestRegisterRejects(t *testing.T) {
	mustPanic := func(what string, f func()) {
		t.Helper()
		defer func() {
			if recover() == nil {
				t.Errorf("Register of %s did not panic", what)
			}
		}()
		f()
	}
	n := len(kem.All())
	mustPanic("nil", func() { kem.Register(nil) })
	s, _ := kem.ByName("ML-KEM-768")
	mustPanic("a registered scheme", func() { kem.Register(s) })
	if len(kem.All()) != n {
		t.Errorf("a rejected Register changed the registry")
	}
}

func TestSizes(t *testing.T) {
	forEachScheme(t, func(t *testing.T, s kem.Scheme, r reference) {
		for _, c := range []struct {
			what      string
			got, want int
		}{
			{"EncapsulationKeySize", s.EncapsulationKeySize(), r.ekSize},
			{"DecapsulationKeySize", s.DecapsulationKeySize(), mlkem.SeedSize},
			{"CiphertextSize", s.CiphertextSize(), r.ctSize},
			{"SharedKeySize", s.SharedKeySize(), mlkem.SharedKeySize},
			{"KeySeedSize", s.KeySeedSize(), mlkem.SeedSize},
			{"EncapsulationSeedSize", s.EncapsulationSeedSize(), 32},
		} {
			if c.got != c.want {
				t.Errorf("%s = %d, want %d", c.what, c.got, c.want)
			}
		}
		if sp, ok := s.(kem.Specifier); !ok || sp.Specification() != "NIST FIPS 203" {
			t.Errorf("%s does not name FIPS 203 as its specification", s.Name())
		}
	})
}

func TestRoundTrip(t *testing.T) {
	forEachScheme(t, func(t *testing.T, s kem.Scheme, r reference) {
		dk := must(t)(s.GenerateKey())
		if dk.Scheme() != s || dk.EncapsulationKey().Scheme() != s {
			t.Error("keys do not know their scheme")
		}
		if got := len(dk.Bytes()); got != s.DecapsulationKeySize() {
			t.Errorf("len(dk.Bytes()) = %d, want %d", got, s.DecapsulationKeySize())
		}
		ekBytes := dk.EncapsulationKey().Bytes()
		if len(ekBytes) != s.EncapsulationKeySize() {
			t.Errorf("len(ek.Bytes()) = %d, want %d", len(ekBytes), s.EncapsulationKeySize())
		}

		// The encapsulation key as the peer gets it: its bytes, parsed.
		ek, err := s.NewEncapsulationKey(ekBytes)
		if err != nil {
			t.Fatal(err)
		}
		if ek.Scheme() != s || !bytes.Equal(ek.Bytes(), ekBytes) {
			t.Error("NewEncapsulationKey(ek.Bytes()) does not round-trip")
		}
		for _, e := range []crypto.Encapsulator{ek, dk.EncapsulationKey(), dk.Encapsulator()} {
			K, c := e.Encapsulate()
			if len(K) != s.SharedKeySize() || len(c) != s.CiphertextSize() {
				t.Fatalf("Encapsulate gave a %d-byte key and a %d-byte ciphertext, want %d and %d",
					len(K), len(c), s.SharedKeySize(), s.CiphertextSize())
			}
			K2, err := dk.Decapsulate(c)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(K, K2) {
				t.Fatal("Decapsulate does not recover the encapsulated key")
			}
			// A tampered ciphertext is not an error: implicit rejection.
			c[0] ^= 1
			K3, err := dk.Decapsulate(c)
			if err != nil {
				t.Fatalf("Decapsulate of a tampered ciphertext: %v", err)
			}
			if bytes.Equal(K, K3) {
				t.Fatal("Decapsulate of a tampered ciphertext gave the original key")
			}
		}

		// Bytes round-trips through NewDecapsulationKey.
		dk2 := must(t)(s.NewDecapsulationKey(dk.Bytes()))
		if !bytes.Equal(dk2.Bytes(), dk.Bytes()) || !bytes.Equal(dk2.EncapsulationKey().Bytes(), ekBytes) {
			t.Error("NewDecapsulationKey(dk.Bytes()) does not round-trip")
		}
	})
}

func TestDeriveKey(t *testing.T) {
	forEachScheme(t, func(t *testing.T, s kem.Scheme, r reference) {
		for range 20 {
			seed := randomBytes(s.KeySeedSize())
			dk := must(t)(s.DeriveKey(seed))
			again := must(t)(s.DeriveKey(seed))
			if !bytes.Equal(dk.Bytes(), seed) || !bytes.Equal(again.Bytes(), seed) {
				t.Fatal("dk.Bytes() is not the seed DeriveKey took")
			}
			ek, expanded := r.keys(t, seed)
			if !bytes.Equal(dk.EncapsulationKey().Bytes(), ek) || !bytes.Equal(again.EncapsulationKey().Bytes(), ek) {
				t.Fatal("DeriveKey and mlkem.NewDecapsulationKey give different encapsulation keys")
			}
			if r.stdEncapsulationKey != nil && !bytes.Equal(r.stdEncapsulationKey(t, seed), ek) {
				t.Fatal("DeriveKey and crypto/mlkem give different encapsulation keys")
			}

			// The same key, parsed from the seed and from the expanded form.
			fromSeed := must(t)(s.NewDecapsulationKey(seed))
			fromExpanded := must(t)(s.NewDecapsulationKey(expanded))
			if !bytes.Equal(fromSeed.Bytes(), seed) {
				t.Error("NewDecapsulationKey(seed).Bytes() is not the seed")
			}
			// A key from the expanded form has no seed: Bytes is the
			// expanded form, which NewDecapsulationKey takes back.
			if !bytes.Equal(fromExpanded.Bytes(), expanded) {
				t.Error("NewDecapsulationKey(expanded).Bytes() is not the expanded key")
			}
			for _, k := range []kem.DecapsulationKey{fromSeed, fromExpanded} {
				if !bytes.Equal(k.EncapsulationKey().Bytes(), ek) {
					t.Fatal("NewDecapsulationKey gives the wrong encapsulation key")
				}
			}
			K, c := dk.EncapsulationKey().Encapsulate()
			for _, k := range []kem.DecapsulationKey{fromSeed, fromExpanded} {
				if K2, err := k.Decapsulate(c); err != nil || !bytes.Equal(K, K2) {
					t.Fatalf("a parsed key does not decapsulate: %v", err)
				}
			}
			c[len(c)-1] ^= 0x80
			Kr1, _ := fromSeed.Decapsulate(c)
			Kr2, _ := fromExpanded.Decapsulate(c)
			if !bytes.Equal(Kr1, Kr2) {
				t.Fatal("seed and expanded forms give different implicit-rejection keys")
			}
		}
	})
}

func TestDeterministicEncapsulation(t *testing.T) {
	forEachScheme(t, func(t *testing.T, s kem.Scheme, r reference) {
		dk := must(t)(s.DeriveKey(bytes.Repeat([]byte{0x42}, s.KeySeedSize())))
		ek := dk.EncapsulationKey()
		if _, ok := ek.(kem.DeterministicEncapsulator); !ok {
			t.Fatal("ML-KEM encapsulation keys do not implement kem.DeterministicEncapsulator")
		}
		m := bytes.Repeat([]byte{0x17}, s.EncapsulationSeedSize())
		K, c, err := kemtest.Encapsulate(ek, m)
		if err != nil {
			t.Fatal(err)
		}
		wantK, wantC := r.encapsulate(t, ek.Bytes(), m)
		if !bytes.Equal(K, wantK) || !bytes.Equal(c, wantC) {
			t.Fatal("kemtest.Encapsulate and mlkemtest disagree")
		}
		K2, c2, _ := kemtest.Encapsulate(ek, m)
		if !bytes.Equal(K, K2) || !bytes.Equal(c, c2) {
			t.Fatal("kemtest.Encapsulate is not deterministic")
		}
		if got, err := dk.Decapsulate(c); err != nil || !bytes.Equal(got, K) {
			t.Fatalf("Decapsulate of a deterministic ciphertext: %v", err)
		}
	})
}

func TestWrongLengths(t *testing.T) {
	forEachScheme(t, func(t *testing.T, s kem.Scheme, r reference) {
		check := func(what string, n int, err error, want ...string) {
			t.Helper()
			if err == nil {
				t.Errorf("%s with %d bytes: no error", what, n)
				return
			}
			msg := err.Error()
			if !strings.HasPrefix(msg, "kem: ") && !strings.HasPrefix(msg, "mlkem: ") && !strings.HasPrefix(msg, "kemtest: ") {
				t.Errorf("%s with %d bytes: error %q does not start with a package name", what, n, msg)
			}
			for _, w := range want {
				if !strings.Contains(msg, w) {
					t.Errorf("%s with %d bytes: error %q does not say %q", what, n, msg, w)
				}
			}
		}
		itoa := strconv.Itoa

		seedSize, ekSize, ctSize := s.KeySeedSize(), s.EncapsulationKeySize(), s.CiphertextSize()
		for _, n := range []int{0, 1, seedSize - 1, seedSize + 1, r.expandedSize} {
			_, err := s.DeriveKey(make([]byte, n))
			check("DeriveKey", n, err, itoa(seedSize))
		}
		for _, n := range []int{0, 1, seedSize - 1, seedSize + 1, ekSize, r.expandedSize - 1, r.expandedSize + 1} {
			_, err := s.NewDecapsulationKey(make([]byte, n))
			check("NewDecapsulationKey", n, err, s.Name(), itoa(n), itoa(seedSize), itoa(r.expandedSize))
		}
		for _, n := range []int{0, ekSize - 1, ekSize + 1, seedSize} {
			_, err := s.NewEncapsulationKey(make([]byte, n))
			check("NewEncapsulationKey", n, err, itoa(ekSize))
		}

		dk := must(t)(s.GenerateKey())
		for _, n := range []int{0, ctSize - 1, ctSize + 1} {
			_, err := dk.Decapsulate(make([]byte, n))
			check("Decapsulate", n, err, itoa(ctSize))
		}
		for _, n := range []int{0, s.EncapsulationSeedSize() - 1, s.EncapsulationSeedSize() + 1} {
			_, _, err := kemtest.Encapsulate(dk.EncapsulationKey(), make([]byte, n))
			check("kemtest.Encapsulate", n, err, itoa(s.EncapsulationSeedSize()))
		}

		// An expanded key whose H(ek) is wrong is rejected.
		_, expanded := r.keys(t, randomBytes(seedSize))
		expanded[len(expanded)-33] ^= 1
		if _, err := s.NewDecapsulationKey(expanded); err == nil {
			t.Error("NewDecapsulationKey accepted an expanded key with a wrong H(ek)")
		}
	})
}

func TestCryptoInterfaces(t *testing.T) {
	forEachScheme(t, func(t *testing.T, s kem.Scheme, r reference) {
		dk := must(t)(s.GenerateKey())
		var d crypto.Decapsulator = dk
		e := d.Encapsulator()
		ek, ok := e.(kem.EncapsulationKey)
		if !ok {
			t.Fatalf("Encapsulator() is a %T, not a kem.EncapsulationKey", e)
		}
		if ek.Scheme() != s || !bytes.Equal(e.Bytes(), dk.EncapsulationKey().Bytes()) {
			t.Error("Encapsulator() is not the key's encapsulation key")
		}
		K, c := e.Encapsulate()
		if K2, err := d.Decapsulate(c); err != nil || !bytes.Equal(K, K2) {
			t.Fatalf("round trip through the crypto interfaces failed: %v", err)
		}
	})
}
