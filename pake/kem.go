package pake

import (
	"crypto/rand"
	"crypto/sha3"
	"crypto/subtle"

	"github.com/pqkem/pqkem/internal/fips203"
)

// The KEM inside the protocols: internal/fips203, the implementation that
// package mlkem wraps, with the FIPS 203 parameter sets for Tempo and
// NoIC-A0, and with the scheme's sampler plugged into the matrix
// expansion for the other NoIC schemes ([fips203.WithSampler]).

// newKey generates the initiator's key from seed (d || z); pre, if not
// nil, has its matrix (NoIC only).
func (s *Scheme) newKey(seed *[64]byte, pre *presampled) *fips203.DecapsulationKey {
	p := s.params
	if pre != nil {
		p = pre.params
	}
	dk := new(fips203.DecapsulationKey)
	fips203.KeyGenInternal(dk, p, (*[32]byte)(seed[:32]), (*[32]byte)(seed[32:]))
	return dk
}

// encapsulate encapsulates to the encoded key ek, with m as FIPS 203's
// randomness, or fresh randomness if m is nil; pre, if not nil, has the
// key's matrix (NoIC only).
func (s *Scheme) encapsulate(ekb []byte, m *[32]byte, pre *presampled) (K [32]byte, ct []byte, err error) {
	var ek fips203.EncapsulationKey
	p := s.params
	if pre != nil {
		p = pre.params
	}
	if err := fips203.NewEncapsulationKey(&ek, p, ekb); err != nil {
		return K, nil, err
	}
	var mm [32]byte
	if m == nil {
		rand.Read(mm[:])
		m = &mm
	}
	ct = ek.EncapsulateInternal(&K, make([]byte, 0, p.CiphertextSize()), m)
	clear(mm[:])
	return K, ct, nil
}

// kpkeRho returns the ρ that K-PKE.KeyGen derives from the seed d || z at
// rank k: the first half of G(d || k) (FIPS 203, Algorithm 13, line 1).
func kpkeRho(seed *[64]byte, k int) *[32]byte {
	var gIn [33]byte
	copy(gIn[:], seed[:32])
	gIn[32] = byte(k)
	g := sha3.Sum512(gIn[:])
	rho := [32]byte(g[:32])
	clear(g[:])
	clear(gIn[:])
	return &rho
}

// presampled is the matrix for one rho and the mask vector, sampled in one
// batch, with a parameter set that takes the matrix from it.
type presampled struct {
	rho    [32]byte
	a      [16][256]uint16
	mask   [][256]uint16
	params *fips203.Params
}

// presamples reports whether the scheme samples matrix and mask together:
// NoIC with a constant-time sampler. The four-way Keccak then runs full
// more often (k = 3: 9 + 3 polynomials in 3 batches instead of 4).
func (s *Scheme) presamples() bool { return s.proto == NoIC && s.sampler != a0VariableTime }

// presample samples the k x k matrix for rho and the k mask polynomials for
// the mask seed in one batch.
func (s *Scheme) presample(rho, maskSeed *[32]byte) *presampled {
	k := s.k
	pre := &presampled{rho: *rho, mask: make([][256]uint16, k)}
	out := make([]*[256]uint16, 0, k*k+k)
	seeds := make([][34]byte, 0, k*k+k)
	for i := range k {
		for j := range k {
			var sd [34]byte
			copy(sd[:], rho[:])
			sd[32], sd[33] = byte(i), byte(j)
			seeds = append(seeds, sd)
			out = append(out, &pre.a[i*k+j])
		}
	}
	for i := range k {
		seeds = append(seeds, maskXOFInput(maskSeed, i))
		out = append(out, &pre.mask[i])
	}
	s.sampler.sampleBatch(out, seeds)
	clear(seeds)
	base, smp := s.params, s.sampler
	pre.params = fips203.WithSampler(base, base.Name(), func(out []*[256]uint16, seeds [][34]byte) {
		ok := len(out) == k*k
		for e := range out {
			ok = ok && subtle.ConstantTimeCompare(seeds[e][:32], pre.rho[:]) == 1 &&
				seeds[e][32] == byte(e/k) && seeds[e][33] == byte(e%k)
		}
		// The outcome of this branch is public: it depends only on which
		// sampling call this is, not on the value of ρ (secret in NoIC,
		// where msg1 masks it), which is compared in constant time. The
		// package uses pre.params only for the one key made from pre.rho
		// (newKey, encapsulate), whose single matrix expansion passes
		// pre.rho and the indices in order, so ok is always true there;
		// the fallback guards any other use.
		if !ok { // not the matrix it was made for: sample it
			smp.sampleBatch(out, seeds)
			return
		}
		for e := range out {
			*out[e] = pre.a[e]
		}
	})
	return pre
}

func (pre *presampled) clear() {
	if pre != nil {
		pre.a = [16][256]uint16{}
		pre.rho = [32]byte{}
		clear(pre.mask)
	}
}
