package mlkem_test

import (
	"bytes"
	stdmlkem "crypto/mlkem"
	"crypto/rand"
	"testing"

	"github.com/pqkem/pqkem/mlkem"
)

func TestQuickStd(t *testing.T) {
	for range 200 {
		seed := make([]byte, 64)
		rand.Read(seed)
		a, err := mlkem.NewDecapsulationKey768(seed)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := stdmlkem.NewDecapsulationKey768(seed)
		if !bytes.Equal(a.EncapsulationKey().Bytes(), b.EncapsulationKey().Bytes()) {
			t.Fatal("ek mismatch")
		}
		K, c := b.EncapsulationKey().Encapsulate()
		K2, err := a.Decapsulate(c)
		if err != nil || !bytes.Equal(K, K2) {
			t.Fatal("decaps mismatch")
		}
		K3, c3 := a.EncapsulationKey().Encapsulate()
		K4, _ := b.Decapsulate(c3)
		if !bytes.Equal(K3, K4) {
			t.Fatal("encaps mismatch")
		}
		c3[5] ^= 1
		K5, _ := b.Decapsulate(c3)
		K6, _ := a.Decapsulate(c3)
		if !bytes.Equal(K5, K6) {
			t.Fatal("reject mismatch")
		}
	}
}
