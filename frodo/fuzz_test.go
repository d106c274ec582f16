package frodo_test

import (
	"bytes"
	"testing"

	"github.com/pqkem/pqkem/frodo"
)

// fuzzKeys are one fixed key per parameter set, from a fixed seed.
var fuzzKeys = func() []*frodo.DecapsulationKey {
	var keys []*frodo.DecapsulationKey
	for _, p := range frodo.ParameterSets() {
		dk, err := p.NewDecapsulationKey(bytes.Repeat([]byte{0x5a}, p.SeedSize()))
		if err != nil {
			panic(err)
		}
		keys = append(keys, dk)
	}
	return keys
}()

// fit repeats or cuts data to n bytes, so that short fuzz inputs reach
// the right lengths.
func fit(data []byte, n int) []byte {
	if len(data) == 0 {
		return make([]byte, n)
	}
	out := make([]byte, n)
	for o := 0; o < n; o += len(data) {
		copy(out[o:], data)
	}
	return out
}

// FuzzFrodoDecapsulate decapsulates arbitrary ciphertexts: a wrong length
// is an error, any other input gives the implicit-rejection key
// SHAKE(ct || s) (a fuzzer does not find valid ciphertexts), and nothing
// panics.
func FuzzFrodoDecapsulate(f *testing.F) {
	for i, dk := range fuzzKeys {
		_, ct := dk.EncapsulationKey().Encapsulate()
		ct[0] ^= 1
		f.Add(uint8(i), true, ct[:64])
		f.Add(uint8(i), false, ct[:100])
	}
	f.Fuzz(func(t *testing.T, set uint8, exact bool, data []byte) {
		dk := fuzzKeys[int(set)%len(fuzzKeys)]
		p := dk.ParameterSet()
		ct := data
		if exact {
			ct = fit(data, p.CiphertextSize())
		}
		ss, err := dk.Decapsulate(ct)
		if len(ct) != p.CiphertextSize() {
			if err == nil {
				t.Fatalf("%s: a %d-byte ciphertext was accepted", p.Name(), len(ct))
			}
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		if want := rejectionKey(p, dk.ExpandedBytes(), ct); !bytes.Equal(ss, want) {
			t.Fatalf("%s: not the implicit-rejection key", p.Name())
		}
	})
}

// FuzzFrodoParse parses arbitrary encapsulation and decapsulation keys.
// Every pk of the right length is valid and round-trips; an sk is valid
// exactly when its pkh is the hash of its pk, and then round-trips and
// decapsulates without panicking, whatever its S^T and s.
func FuzzFrodoParse(f *testing.F) {
	f.Add(uint8(0), uint8(0), []byte{1, 2, 3})
	f.Add(uint8(7), uint8(1), []byte{0xff, 0xff})
	f.Add(uint8(11), uint8(2), []byte{0x80, 0x00, 0x7f})
	f.Fuzz(func(t *testing.T, set uint8, mode uint8, data []byte) {
		dk := fuzzKeys[int(set)%len(fuzzKeys)]
		p := dk.ParameterSet()
		switch mode % 4 {
		case 0: // a pk made of the fuzz data
			pk := fit(data, p.EncapsulationKeySize())
			ek, err := p.NewEncapsulationKey(pk)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(ek.Bytes(), pk) {
				t.Fatal("pk does not round-trip")
			}
			ss, ct := ek.Encapsulate()
			if len(ss) != p.SharedKeySize() || len(ct) != p.CiphertextSize() {
				t.Fatal("wrong lengths")
			}
		case 1: // an sk whose s and S^T are the fuzz data, with the right pkh
			sk := dk.ExpandedBytes()
			n := p.SharedKeySize()
			stStart := n + p.EncapsulationKeySize()
			copy(sk[:n], fit(data, n))
			copy(sk[stStart:len(sk)-n], fit(data, len(sk)-n-stStart))
			dk2, err := p.NewDecapsulationKeyExpanded(sk)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(dk2.ExpandedBytes(), sk) {
				t.Fatal("sk does not round-trip")
			}
			_, ct := dk2.EncapsulationKey().Encapsulate()
			if _, err := dk2.Decapsulate(ct); err != nil {
				t.Fatal(err)
			}
		case 2: // arbitrary bytes as an sk: the pkh check rejects them
			sk := fit(data, p.DecapsulationKeyExpandedSize())
			if _, err := p.NewDecapsulationKeyExpanded(sk); err == nil && !bytes.Equal(sk, dk.ExpandedBytes()) {
				// Only possible if pkh happens to match: check it does.
				n := p.SharedKeySize()
				pk := sk[n : n+p.EncapsulationKeySize()]
				ek, _ := p.NewEncapsulationKey(pk)
				dk3, _ := p.NewDecapsulationKeyExpanded(sk)
				if !bytes.Equal(dk3.EncapsulationKey().Bytes(), ek.Bytes()) {
					t.Fatal("an sk with a wrong pkh was accepted")
				}
			}
		case 3: // arbitrary lengths
			if _, err := p.NewEncapsulationKey(data); (err == nil) != (len(data) == p.EncapsulationKeySize()) {
				t.Fatalf("NewEncapsulationKey of %d bytes: %v", len(data), err)
			}
			if _, err := p.NewDecapsulationKeyExpanded(data); err == nil && len(data) != p.DecapsulationKeyExpandedSize() {
				t.Fatalf("NewDecapsulationKeyExpanded of %d bytes accepted", len(data))
			}
			if _, err := p.NewDecapsulationKey(data); (err == nil) != (len(data) == p.SeedSize()) {
				t.Fatalf("NewDecapsulationKey of %d bytes: %v", len(data), err)
			}
		}
	})
}
