package mlkem_test

// Fuzz targets for the three parsers of untrusted input. Each target feeds
// its input to every level twice: as it is (so that lengths are fuzzed too)
// and repeated or cut to the level's size (so that the fuzzer's mutations
// reach the code behind the length check). Without -fuzz, go test runs the
// seed corpus added here.
//
//	go test -run='^$' -fuzz=FuzzNewEncapsulationKey -fuzztime=10s ./mlkem/
//	go test -run='^$' -fuzz=FuzzNewDecapsulationKeyExpanded -fuzztime=10s ./mlkem/
//	go test -run='^$' -fuzz=FuzzDecapsulate -fuzztime=10s ./mlkem/

import (
	"bytes"
	"testing"

	"github.com/cloudflare/circl/kem"
)

// fuzzFixedKey is a fixed key of one level, in every implementation.
type fuzzFixedKey struct {
	dk    ourDecapsulator
	exp   []byte // its expanded encoding
	circl kem.PrivateKey
	std   stdDecapsulator // nil for ML-KEM-512
}

func (l *kemLevel) fuzzFixedKey(t testing.TB) *fuzzFixedKey {
	seed := l.fixedSeed()
	dk, err := l.newKey(seed)
	if err != nil {
		t.Fatal(err)
	}
	k := &fuzzFixedKey{dk: dk, exp: dk.ExpandedBytes()}
	_, k.circl = l.circl.DeriveKeyPair(seed)
	if l.std != nil {
		if k.std, err = l.std.newKey(seed); err != nil {
			t.Fatal(err)
		}
	}
	return k
}

// fuzzMessage is the m of the fuzz targets' derandomized encapsulations.
var fuzzMessage = bytes.Repeat([]byte{0x5a}, 32)

// addLevelSeeds adds, for every level, the encodings that encode returns for
// that level's fixed key, and a few variants of each.
func addLevelSeeds(f *testing.F, encode func(l *kemLevel, k *fuzzFixedKey) []byte) {
	f.Add([]byte{})
	f.Add([]byte{0xff})
	for _, l := range kemLevels {
		b := encode(l, l.fuzzFixedKey(f))
		f.Add(b)
		f.Add(b[:len(b)-1])
		f.Add(append(bytes.Clone(b), 0))
		bad := bytes.Clone(b)
		bad[len(bad)/3] ^= 0x80
		f.Add(bad)
		high := bytes.Clone(b)
		setCoefficient(high, 1, modulusQ) // for keys: a t̂ or ŝ value of q
		f.Add(high)
		f.Add(bytes.Repeat([]byte{0xff}, len(b)))
	}
}

// fuzzInputs returns b as it is and fitted to n bytes.
func fuzzInputs(b []byte, n int) [][]byte {
	if len(b) == n {
		return [][]byte{b}
	}
	return [][]byte{b, fitLength(b, n)}
}

// FuzzNewEncapsulationKey: any bytes, at every level. No panic; a key is
// accepted exactly when it has the right length and every t̂ value is below
// q, in agreement with CIRCL and crypto/mlkem; an accepted key re-encodes
// to the input and encapsulates as CIRCL does.
func FuzzNewEncapsulationKey(f *testing.F) {
	addLevelSeeds(f, func(l *kemLevel, k *fuzzFixedKey) []byte { return k.dk.Encapsulator().Bytes() })
	f.Fuzz(func(t *testing.T, b []byte) {
		for _, l := range kemLevels {
			for _, in := range fuzzInputs(b, l.ekSize) {
				ek, err := l.newEK(in)
				want := len(in) == l.ekSize && reducedEncoding(in, l.k)
				if (err == nil) != want || (err == nil) != (ek != nil) {
					t.Fatalf("%s: %d bytes: got %v, error %v; want accepted = %v", l.name, len(in), ek != nil, err, want)
				}
				cPK, cErr := l.circl.UnmarshalBinaryPublicKey(in)
				if (cErr == nil) != want {
					t.Fatalf("%s: CIRCL error %v, ours %v", l.name, cErr, err)
				}
				if l.std != nil {
					if _, sErr := l.std.newEK(in); (sErr == nil) != want {
						t.Fatalf("%s: crypto/mlkem error %v, ours %v", l.name, sErr, err)
					}
				}
				if err != nil {
					continue
				}
				if !bytes.Equal(ek.Bytes(), in) {
					t.Fatalf("%s: Bytes() does not round trip", l.name)
				}
				K, c, err := l.encapsulate(ek, fuzzMessage)
				if err != nil {
					t.Fatal(err)
				}
				cC, cK, _ := l.circl.EncapsulateDeterministically(cPK, fuzzMessage)
				if !bytes.Equal(c, cC) || !bytes.Equal(K, cK) {
					t.Fatalf("%s: encapsulation differs from CIRCL's", l.name)
				}
			}
		}
	})
}

// FuzzNewDecapsulationKeyExpanded: any bytes, at every level, as they are,
// fitted to the size, and fitted with H(ek) then made to match (random
// bytes almost never pass the hash check otherwise). No panic; a key is
// accepted exactly when the length is right, H(ek) matches, and every value
// of t̂ and of ŝ is below q (see TestInvalidExpandedKey); an accepted key
// has no seed, ExpandedBytes equals the input, and it decapsulates as CIRCL
// does with the same packed key.
func FuzzNewDecapsulationKeyExpanded(f *testing.F) {
	addLevelSeeds(f, func(l *kemLevel, k *fuzzFixedKey) []byte { return k.exp })
	f.Fuzz(func(t *testing.T, b []byte) {
		for _, l := range kemLevels {
			inputs := fuzzInputs(b, l.dkSize)
			fixed := fitLength(b, l.dkSize)
			l.fixH(fixed)
			inputs = append(inputs, fixed)
			for _, in := range inputs {
				dk, err := l.newKeyExpanded(in)
				want := len(in) == l.dkSize && bytes.Equal(l.hPart(in), hashOf(l.ekPart(in))) &&
					reducedEncoding(l.ekPart(in), l.k) && reducedEncoding(l.sPart(in), l.k)
				if (err == nil) != want || (err == nil) != (dk != nil) {
					t.Fatalf("%s: %d bytes: got %v, error %v; want accepted = %v", l.name, len(in), dk != nil, err, want)
				}
				if err != nil {
					continue
				}
				if !bytes.Equal(dk.Bytes(), in) {
					t.Fatalf("%s: Bytes of an expanded-only key is not its expanded form", l.name)
				}
				if !bytes.Equal(dk.ExpandedBytes(), in) {
					t.Fatalf("%s: ExpandedBytes does not round trip", l.name)
				}
				if !bytes.Equal(dk.Encapsulator().Bytes(), l.ekPart(in)) {
					t.Fatalf("%s: the encapsulation key is not the embedded one", l.name)
				}
				cSK, cErr := l.circl.UnmarshalBinaryPrivateKey(in)
				if cErr != nil {
					t.Fatalf("%s: CIRCL rejects a key we accept: %v", l.name, cErr)
				}
				_, c, _ := l.encapsulate(dk.Encapsulator(), fuzzMessage)
				for _, ct := range [][]byte{c, fitLength(b, l.ctSize)} {
					K, err := dk.Decapsulate(ct)
					cK, _ := l.circl.Decapsulate(cSK, ct)
					if err != nil || !bytes.Equal(K, cK) {
						t.Fatalf("%s: Decapsulate = %x, %v; CIRCL: %x", l.name, K, err, cK)
					}
				}
			}
		}
	})
}

// FuzzDecapsulate: any ciphertext bytes against a fixed key per level. No
// panic; an error exactly for a wrong length; otherwise the key equals
// CIRCL's and crypto/mlkem's decapsulation of the same bytes.
func FuzzDecapsulate(f *testing.F) {
	keys := make([]*fuzzFixedKey, len(kemLevels))
	for i, l := range kemLevels {
		keys[i] = l.fuzzFixedKey(f)
	}
	addLevelSeeds(f, func(l *kemLevel, k *fuzzFixedKey) []byte {
		_, c, err := l.encapsulate(k.dk.Encapsulator(), fuzzMessage)
		if err != nil {
			f.Fatal(err)
		}
		return c
	})
	f.Fuzz(func(t *testing.T, b []byte) {
		for i, l := range kemLevels {
			k := keys[i]
			for _, in := range fuzzInputs(b, l.ctSize) {
				K, err := k.dk.Decapsulate(in)
				if (err == nil) != (len(in) == l.ctSize) || (err == nil) != (K != nil) {
					t.Fatalf("%s: %d bytes: key %x, error %v", l.name, len(in), K, err)
				}
				if k.std != nil {
					sK, sErr := k.std.Decapsulate(in)
					if (sErr == nil) != (err == nil) || !bytes.Equal(K, sK) {
						t.Fatalf("%s: %x, %v; crypto/mlkem: %x, %v", l.name, K, err, sK, sErr)
					}
				}
				if err != nil {
					continue
				}
				cK, cErr := l.circl.Decapsulate(k.circl, in)
				if cErr != nil || !bytes.Equal(K, cK) {
					t.Fatalf("%s: %x; CIRCL: %x, %v", l.name, K, cK, cErr)
				}
			}
		}
	})
}
