package pake

import (
	"errors"
	"fmt"

	"github.com/pqkem/pqkem/internal/fips203"
	"github.com/pqkem/pqkem/mlkem"
)

// Tempo's KEM is stock FIPS 203 ML-KEM. The responder parses the
// recovered key with mlkem.NewEncapsulationKeyNNN and encapsulates with
// package mlkem; the initiator's ephemeral key comes from internal/fips203,
// the implementation package mlkem wraps, with the stock parameter sets,
// so that its key generation can run in the Keccak lanes that the mask's
// SHAKE128 streams leave idle (see fips203.KeyGenInternalWithStreams).

// tempoDeterministic, set by the tests, encapsulates with a fixed m
// (mlkemtest.EncapsulateNNN), for the known-answer tests. Package mlkem
// offers no derandomized encapsulation outside mlkemtest, which production
// code should not link.
var tempoDeterministic func(level int, ek []byte, m []byte) (K, ct []byte, err error)

// tempoKey is the initiator's ephemeral ML-KEM key.
type tempoKey struct{ fipsKey }

// maxMaskStreams is the most mask polynomials whose SHAKE128 output key
// generation takes into its schedule: at ML-KEM-512 (two polynomials) key
// generation runs in the two lanes they leave, and key and mask take
// about 3 µs less than one after the other here; at ML-KEM-768 the one
// lane left makes key generation a 42-permutation chain, which measured
// no faster than the 14 + 37 permutations of the two apart.
const maxMaskStreams = 2

func tempoBackend(level int, smp Sampler) backend {
	p := stockParams(level)
	b := backend{ctSize: p.CiphertextSize()}
	b.newKey = func(seed []byte, _ *presampled) (initKey, error) {
		k := new(tempoKey)
		if err := fips203.NewDecapsulationKeyFromSeed(&k.dk, p, seed); err != nil {
			return nil, err
		}
		return k, nil
	}
	if k := level / 256; smp.XOFBytes() > 0 && k <= maxMaskStreams {
		b.newKeyMask = func(seed []byte, maskSeed *[32]byte, mask *[4][256]uint16) (initKey, error) {
			if len(seed) != fips203.SeedSize {
				return nil, fmt.Errorf("mlkem: invalid %s seed length %d, want %d", p.Name(), len(seed), fips203.SeedSize)
			}
			// Polynomial i of the mask is the sampler on SHAKE128(maskSeed
			// || i || 0xFF), as maskVecTo computes it.
			var out [maxMaskStreams][c1Bytes]byte // C1 reads the most
			var streams [maxMaskStreams]fips203.Stream
			nb := smp.XOFBytes()
			for i := range k {
				copy(streams[i].Seed[:], maskSeed[:])
				streams[i].Seed[32], streams[i].Seed[33] = byte(i), 0xff
				streams[i].Out = out[i][:nb]
			}
			dk := new(tempoKey)
			fips203.KeyGenInternalWithStreams(&dk.dk, p, (*[32]byte)(seed[:32]), (*[32]byte)(seed[32:]), streams[:k])
			for i := range k {
				smp.fromBytes(&mask[i], out[i][:nb])
			}
			clear(out[:])
			clear(streams[:])
			return dk, nil
		}
	}
	var enc func(ek []byte) (K, ct []byte, err error)
	switch level {
	case 512:
		enc = func(b []byte) ([]byte, []byte, error) {
			ek, err := mlkem.NewEncapsulationKey512(b)
			if err != nil {
				return nil, nil, err
			}
			K, ct := ek.Encapsulate()
			return K, ct, nil
		}
	case 768:
		enc = func(b []byte) ([]byte, []byte, error) {
			ek, err := mlkem.NewEncapsulationKey768(b)
			if err != nil {
				return nil, nil, err
			}
			K, ct := ek.Encapsulate()
			return K, ct, nil
		}
	case 1024:
		enc = func(b []byte) ([]byte, []byte, error) {
			ek, err := mlkem.NewEncapsulationKey1024(b)
			if err != nil {
				return nil, nil, err
			}
			K, ct := ek.Encapsulate()
			return K, ct, nil
		}
	}
	b.encapsulate = func(ek []byte, m *[32]byte, _ *presampled) ([]byte, []byte, error) {
		if m == nil {
			return enc(ek)
		}
		if tempoDeterministic == nil {
			return nil, nil, errors.New("pake: derandomized Tempo encapsulation is for tests only")
		}
		return tempoDeterministic(level, ek, m[:])
	}
	return b
}
