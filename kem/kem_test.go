package kem_test

import (
	"bytes"
	"crypto"
	"crypto/rand"
	"encoding"
	"slices"
	"strconv"
	"strings"
	"testing"

	circlkem "github.com/cloudflare/circl/kem"
	"github.com/cloudflare/circl/kem/schemes"

	"github.com/pqkem/pqkem/internal/mlkemlevel"
	"github.com/pqkem/pqkem/kem"
	"github.com/pqkem/pqkem/kem/kemtest"
)

// reference is CIRCL's implementation of one ML-KEM level: what package kem
// must agree with, byte for byte.
type reference struct{ circlkem.Scheme }

// keys returns the encapsulation key and the expanded decapsulation key
// that CIRCL derives from seed.
func (r reference) keys(t *testing.T, seed []byte) (ek, expanded []byte) {
	t.Helper()
	pk, sk := r.DeriveKeyPair(seed)
	ek, err := pk.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	expanded, err = sk.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	return ek, expanded
}

// encapsulate is CIRCL's derandomized encapsulation with m.
func (r reference) encapsulate(t *testing.T, ek, m []byte) (sharedKey, ciphertext []byte) {
	t.Helper()
	pk, err := r.UnmarshalBinaryPublicKey(ek)
	if err != nil {
		t.Fatal(err)
	}
	ciphertext, sharedKey, err = r.EncapsulateDeterministically(pk, m)
	if err != nil {
		t.Fatal(err)
	}
	return sharedKey, ciphertext
}

// references holds CIRCL's scheme for every level of the module's table.
var references = func() map[string]reference {
	m := make(map[string]reference)
	for _, l := range mlkemlevel.All() {
		m[l.Name()] = reference{schemes.ByName(l.Name())}
	}
	return m
}()

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
			{"EncapsulationKeySize", s.EncapsulationKeySize(), r.PublicKeySize()},
			{"DecapsulationKeySize", s.DecapsulationKeySize(), r.SeedSize()},
			{"CiphertextSize", s.CiphertextSize(), r.CiphertextSize()},
			{"SharedKeySize", s.SharedKeySize(), r.SharedKeySize()},
			{"EncapsulationSeedSize", s.EncapsulationSeedSize(), r.EncapsulationSeedSize()},
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

func TestNewDecapsulationKey(t *testing.T) {
	forEachScheme(t, func(t *testing.T, s kem.Scheme, r reference) {
		for range 20 {
			seed := randomBytes(s.DecapsulationKeySize())
			fromSeed := must(t)(s.NewDecapsulationKey(seed))
			again := must(t)(s.NewDecapsulationKey(seed))
			if !bytes.Equal(fromSeed.Bytes(), seed) || !bytes.Equal(again.Bytes(), seed) {
				t.Fatal("NewDecapsulationKey(seed).Bytes() is not the seed")
			}
			ek, expanded := r.keys(t, seed)
			if !bytes.Equal(fromSeed.EncapsulationKey().Bytes(), ek) || !bytes.Equal(again.EncapsulationKey().Bytes(), ek) {
				t.Fatal("NewDecapsulationKey and CIRCL give different encapsulation keys for a seed")
			}

			// The same key, parsed from the expanded form.
			fromExpanded := must(t)(s.NewDecapsulationKey(expanded))
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
			K, c := fromSeed.EncapsulationKey().Encapsulate()
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
		dk := must(t)(s.NewDecapsulationKey(bytes.Repeat([]byte{0x42}, s.DecapsulationKeySize())))
		ek := dk.EncapsulationKey()
		m := bytes.Repeat([]byte{0x17}, s.EncapsulationSeedSize())
		K, c, err := kemtest.Encapsulate(ek, m)
		if err != nil {
			t.Fatal(err)
		}
		wantK, wantC := r.encapsulate(t, ek.Bytes(), m)
		if !bytes.Equal(K, wantK) || !bytes.Equal(c, wantC) {
			t.Fatal("kemtest.Encapsulate and CIRCL's derandomized encapsulation disagree")
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

		seedSize, ekSize, ctSize, expandedSize := s.DecapsulationKeySize(), s.EncapsulationKeySize(), s.CiphertextSize(), r.PrivateKeySize()
		for _, n := range []int{0, 1, seedSize - 1, seedSize + 1, ekSize, expandedSize - 1, expandedSize + 1} {
			_, err := s.NewDecapsulationKey(make([]byte, n))
			check("NewDecapsulationKey", n, err, s.Name(), itoa(n), itoa(seedSize), itoa(expandedSize))
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

// expandedForm returns the expanded encoding of the key made from seed,
// computed without package kem, for the schemes that have one (ML-KEM,
// through CIRCL, and FrodoKEM's sk, through package frodo), or nil.
func expandedForm(t *testing.T, s kem.Scheme, seed []byte) []byte {
	t.Helper()
	if r, ok := references[s.Name()]; ok {
		_, expanded := r.keys(t, seed)
		return expanded
	}
	if p := frodoSet(s); p != nil {
		dk, err := p.NewDecapsulationKey(seed)
		if err != nil {
			t.Fatal(err)
		}
		return dk.ExpandedBytes()
	}
	return nil
}

// Bytes never loses a key: for every scheme and every encoding that
// NewDecapsulationKey accepts (the seed, and the expanded form where the
// scheme has one), the key parsed from it has a Bytes that is that same
// encoding, which NewDecapsulationKey takes back to the same key.
func TestBytesRoundTrip(t *testing.T) {
	for _, s := range kem.All() {
		t.Run(s.Name(), func(t *testing.T) {
			if kem.SingleUse(s) {
				// A single-use key has no encoding to round-trip (Bytes is
				// nil and NewDecapsulationKey refuses every input), so that
				// it cannot be copied; TestCCS2016NoEncoding checks that.
				t.Skip("single-use: its keys have no encoding")
			}
			seed := must(t)(s.GenerateKey()).Bytes()
			if len(seed) != s.DecapsulationKeySize() {
				t.Fatalf("len(GenerateKey().Bytes()) = %d, want DecapsulationKeySize %d", len(seed), s.DecapsulationKeySize())
			}
			encodings := [][]byte{seed}
			if expanded := expandedForm(t, s, seed); expanded != nil {
				encodings = append(encodings, expanded)
			}
			want := must(t)(s.NewDecapsulationKey(seed)).EncapsulationKey().Bytes()
			for _, b := range encodings {
				dk, err := s.NewDecapsulationKey(b)
				if err != nil {
					t.Fatalf("NewDecapsulationKey of a %d-byte encoding: %v", len(b), err)
				}
				got := dk.Bytes()
				if !bytes.Equal(got, b) {
					t.Fatalf("Bytes of a key parsed from a %d-byte encoding is %d bytes, not that encoding", len(b), len(got))
				}
				again := must(t)(s.NewDecapsulationKey(got))
				if !bytes.Equal(again.Bytes(), b) || !bytes.Equal(again.EncapsulationKey().Bytes(), want) {
					t.Fatalf("NewDecapsulationKey(Bytes()) of a key parsed from a %d-byte encoding is another key", len(b))
				}
				K, c := dk.EncapsulationKey().Encapsulate()
				if K2, err := again.Decapsulate(c); err != nil || !bytes.Equal(K, K2) {
					t.Fatalf("the re-parsed key does not decapsulate: %v", err)
				}
			}
		})
	}
}

// Every FrodoKEM key is a Precomputer, and for every scheme whose keys
// are, a precomputed key gives the same ciphertexts, shared keys and
// implicit-rejection keys as a plain one.
func TestPrecompute(t *testing.T) {
	for _, s := range kem.All() {
		if kem.SingleUse(s) {
			continue // no key can be made twice
		}
		t.Run(s.Name(), func(t *testing.T) {
			seed := bytes.Repeat([]byte{0x42}, s.DecapsulationKeySize())
			plain := must(t)(s.NewDecapsulationKey(seed))
			pre := must(t)(s.NewDecapsulationKey(seed))
			_, dkOK := pre.(kem.Precomputer)
			_, ekOK := pre.EncapsulationKey().(kem.Precomputer)
			frodo := strings.Contains(s.Name(), "FrodoKEM")
			switch {
			case dkOK != ekOK:
				t.Fatalf("Precomputer: decapsulation key %v, encapsulation key %v", dkOK, ekOK)
			case frodo && !dkOK:
				t.Fatal("a FrodoKEM key is not a Precomputer")
			case !dkOK:
				t.Skip("not a Precomputer")
			}
			pre.(kem.Precomputer).Precompute()
			m := bytes.Repeat([]byte{0x17}, s.EncapsulationSeedSize())
			K1, c1, err := kemtest.Encapsulate(plain.EncapsulationKey(), m)
			if err != nil {
				t.Fatal(err)
			}
			K2, c2, err := kemtest.Encapsulate(pre.EncapsulationKey(), m)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(K1, K2) || !bytes.Equal(c1, c2) {
				t.Fatal("a precomputed key encapsulates differently")
			}
			c1[len(c1)/2] ^= 1
			r1, err1 := plain.Decapsulate(c1)
			r2, err2 := pre.Decapsulate(c1)
			if err1 != nil || err2 != nil || !bytes.Equal(r1, r2) {
				t.Fatalf("a precomputed key decapsulates differently (%v, %v)", err1, err2)
			}
			// A parsed encapsulation key precomputes on its own.
			ek, err := s.NewEncapsulationKey(plain.EncapsulationKey().Bytes())
			if err != nil {
				t.Fatal(err)
			}
			ek.(kem.Precomputer).Precompute()
			K3, c3, err := kemtest.Encapsulate(ek, m)
			if err != nil || !bytes.Equal(K3, K2) || !bytes.Equal(c3, c2) {
				t.Fatal("a precomputed parsed key encapsulates differently")
			}
		})
	}
}

// A key that implements encoding.BinaryAppender appends what Bytes
// returns; FrodoKEM's keys do.
func TestAppendBinary(t *testing.T) {
	for _, s := range kem.All() {
		if kem.SingleUse(s) {
			continue
		}
		t.Run(s.Name(), func(t *testing.T) {
			dk := must(t)(s.NewDecapsulationKey(bytes.Repeat([]byte{0x42}, s.DecapsulationKeySize())))
			ek := dk.EncapsulationKey()
			a, ok := ek.(encoding.BinaryAppender)
			if strings.Contains(s.Name(), "FrodoKEM") && !ok {
				t.Fatal("a FrodoKEM key is not an encoding.BinaryAppender")
			}
			if !ok {
				t.Skip("not an encoding.BinaryAppender")
			}
			prefix := []byte("prefix")
			got, err := a.AppendBinary(slices.Clip(prefix))
			if err != nil || !bytes.Equal(got, append(slices.Clone(prefix), ek.Bytes()...)) {
				t.Fatalf("AppendBinary: %v", err)
			}
			if string(prefix) != "prefix" {
				t.Fatal("AppendBinary changed its argument")
			}
		})
	}
}
