package hybrid_test

import (
	"bytes"
	"testing"

	"github.com/pqkem/pqkem/hybrid"
)

// FuzzParse feeds arbitrary bytes to every parser of every KEM: they must
// not panic, an accepted encapsulation key must encode back to its input,
// and a key made from an accepted seed must encode back to the seed.
func FuzzParse(f *testing.F) {
	ks := allKEMs()
	dks := make([]*hybrid.DecapsulationKey, len(ks))
	for i, k := range ks {
		dks[i] = mustDKForFuzz(k)
		_, ct := dks[i].EncapsulationKey().Encapsulate()
		f.Add(uint8(i), dks[i].EncapsulationKey().Bytes())
		f.Add(uint8(i), ct)
		f.Add(uint8(i), dks[i].Bytes())
	}
	f.Fuzz(func(t *testing.T, which uint8, b []byte) {
		i := int(which) % len(ks)
		k, dk := ks[i], dks[i]
		if ek, err := k.NewEncapsulationKey(b); err == nil {
			if !bytes.Equal(ek.Bytes(), b) {
				t.Fatal("an accepted encapsulation key does not encode back to its input")
			}
			ss, ct := ek.Encapsulate()
			if len(ss) != k.SharedKeySize() || len(ct) != k.CiphertextSize() {
				t.Fatal("wrong output sizes")
			}
		}
		if ss, err := dk.Decapsulate(b); err == nil && len(ss) != k.SharedKeySize() {
			t.Fatal("wrong shared key size")
		}
		if d, err := k.NewDecapsulationKey(b); err == nil && !bytes.Equal(d.Bytes(), b) {
			t.Fatal("a key made from a seed does not encode back to it")
		}
	})
}

func mustDKForFuzz(k *hybrid.KEM) *hybrid.DecapsulationKey {
	dk, err := k.GenerateKey()
	if err != nil {
		panic(err)
	}
	return dk
}
