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
