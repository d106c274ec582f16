package pake

import (
	"fmt"

	"github.com/pqkem/pqkem/internal/fips203"
)

// Tempo's KEM is stock FIPS 203 ML-KEM: internal/fips203, the
// implementation package mlkem wraps, with the standard parameter sets, as
// NoIC-A0 runs it. (Through it rather than package mlkem's wrappers so that
// the initiator's key generation can run in the Keccak lanes the mask's
// SHAKE128 streams leave idle, see fips203.KeyGenInternalWithStreams, and
// so that the responder's parsed key stays on its stack.)

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
	b := fipsBackend(p, func() (initKey, *fipsKey) {
		k := new(tempoKey)
		return k, &k.fipsKey
	})
	if k := level / 256; smp.XOFBytes() > 0 && k <= maxMaskStreams {
		b.newKeyMask = func(seed []byte, maskSeed *[32]byte, mask *[4][256]uint16) (initKey, error) {
			if len(seed) != fips203.SeedSize {
				return nil, fmt.Errorf("mlkem: invalid %s seed length %d, want %d", p.Name(), len(seed), fips203.SeedSize)
			}
			// Polynomial i of the mask is the sampler on SHAKE128 of
			// maskXOFInput(maskSeed, i), as maskVecTo computes it.
			var out [maxMaskStreams][c1Bytes]byte // C1 reads the most
			var streams [maxMaskStreams]fips203.Stream
			nb := smp.XOFBytes()
			for i := range k {
				streams[i].Seed = maskXOFInput(maskSeed, i)
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
	return b
}
