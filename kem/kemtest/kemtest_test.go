package kemtest_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/pqkem/pqkem/kem"
	"github.com/pqkem/pqkem/kem/kemtest"
)

// plainKey hides every method of the key it wraps but those of
// kem.EncapsulationKey, as the key of a scheme without derandomized
// encapsulation would look.
type plainKey struct{ kem.EncapsulationKey }

func TestEncapsulate(t *testing.T) {
	for _, s := range kem.All() {
		dk, err := s.GenerateKey()
		if err != nil {
			t.Fatal(err)
		}
		ek := dk.EncapsulationKey()
		m := bytes.Repeat([]byte{7}, s.EncapsulationSeedSize())
		K, c, err := kemtest.Encapsulate(ek, m)
		if err != nil {
			t.Fatalf("%s: %v", s.Name(), err)
		}
		if K2, err := dk.Decapsulate(c); err != nil || !bytes.Equal(K, K2) {
			t.Fatalf("%s: Decapsulate does not recover the key: %v", s.Name(), err)
		}

		for _, n := range []int{0, len(m) - 1, len(m) + 1} {
			if _, _, err := kemtest.Encapsulate(ek, make([]byte, n)); err == nil || !strings.HasPrefix(err.Error(), "kemtest: ") {
				t.Errorf("%s: Encapsulate with %d bytes of randomness: error %v, want a kemtest error", s.Name(), n, err)
			}
		}

		_, _, err = kemtest.Encapsulate(plainKey{ek}, m)
		if err == nil || !strings.Contains(err.Error(), "does not support derandomized encapsulation") {
			t.Errorf("%s: Encapsulate with a key that has no derandomized encapsulation: error %v", s.Name(), err)
		}
	}
}

// singleUse is a single-use scheme registered from outside this module,
// as kemtest sees it: its SingleUse method says so, and kem has no
// derandomized key generation for it.
type singleUse struct{ kem.Scheme }

func (singleUse) SingleUse() bool { return true }

func TestGenerateKey(t *testing.T) {
	for _, s := range kem.All() {
		n := kemtest.KeySeedSize(s)
		if kem.SingleUse(s) {
			if n != 80 {
				t.Errorf("%s: KeySeedSize = %d, want 80, Alice0's randomness", s.Name(), n)
			}
		} else if n != s.DecapsulationKeySize() || n == 0 {
			t.Errorf("%s: KeySeedSize = %d, want DecapsulationKeySize %d", s.Name(), n, s.DecapsulationKeySize())
		}
		seed := bytes.Repeat([]byte{9}, n)
		dk := must(t, s)(kemtest.GenerateKey(s, seed))
		again := must(t, s)(kemtest.GenerateKey(s, seed))
		if dk.Scheme() != s || !bytes.Equal(dk.EncapsulationKey().Bytes(), again.EncapsulationKey().Bytes()) {
			t.Errorf("%s: GenerateKey is not deterministic", s.Name())
		}
		other := must(t, s)(kemtest.GenerateKey(s, bytes.Repeat([]byte{10}, n)))
		if bytes.Equal(dk.EncapsulationKey().Bytes(), other.EncapsulationKey().Bytes()) {
			t.Errorf("%s: GenerateKey ignores its randomness", s.Name())
		}
		if !kem.SingleUse(s) {
			// For a scheme that is not single-use it is NewDecapsulationKey.
			want := must(t, s)(s.NewDecapsulationKey(seed))
			if !bytes.Equal(dk.Bytes(), want.Bytes()) || !bytes.Equal(dk.EncapsulationKey().Bytes(), want.EncapsulationKey().Bytes()) {
				t.Errorf("%s: GenerateKey is not NewDecapsulationKey of the seed", s.Name())
			}
		}
		K, c := dk.EncapsulationKey().Encapsulate()
		if K2, err := dk.Decapsulate(c); err != nil || !bytes.Equal(K, K2) {
			t.Fatalf("%s: the key does not decapsulate: %v", s.Name(), err)
		}
		// Two keys from the same randomness are two keys of one secret:
		// both decapsulate, which is why only this package can make them.
		if K2, err := again.Decapsulate(c); err != nil || !bytes.Equal(K, K2) {
			t.Fatalf("%s: the second key from the same randomness does not decapsulate: %v", s.Name(), err)
		}

		for _, m := range []int{0, n - 1, n + 1} {
			if _, err := kemtest.GenerateKey(s, make([]byte, m)); err == nil || !strings.HasPrefix(err.Error(), "kemtest: invalid "+s.Name()+" key generation randomness length") {
				t.Errorf("%s: GenerateKey with %d bytes of randomness: %v", s.Name(), m, err)
			}
		}
	}

	s, _ := kem.ByName("ML-KEM-768")
	if n := kemtest.KeySeedSize(singleUse{s}); n != 0 {
		t.Errorf("KeySeedSize of a single-use scheme from outside = %d, want 0", n)
	}
	if _, err := kemtest.GenerateKey(singleUse{s}, make([]byte, 64)); err == nil || !strings.Contains(err.Error(), "does not support derandomized key generation") {
		t.Errorf("GenerateKey of a single-use scheme from outside: %v", err)
	}
}

func must(t *testing.T, s kem.Scheme) func(kem.DecapsulationKey, error) kem.DecapsulationKey {
	return func(dk kem.DecapsulationKey, err error) kem.DecapsulationKey {
		t.Helper()
		if err != nil {
			t.Fatalf("%s: %v", s.Name(), err)
		}
		return dk
	}
}
