package fips203

import (
	"crypto/sha3"

	"github.com/pqkem/pqkem/internal/keccak"
)

// K-PKE, the component public-key encryption scheme of FIPS 203, section 5.

// encryptionKey is a parsed K-PKE encryption key: a view of the arrays of
// an EncapsulationKeyOf, each of its rank k. It holds Â, expanded once
// when the key is made, so that repeated encryptions do not expand it
// again.
type encryptionKey struct {
	t   []nttElement // t̂, k entries
	rho *[32]byte
	// a holds Â transposed: a[i*k+j] = Â[j][i] = SampleNTT(rho || i || j),
	// k*k entries. Encryption multiplies by Â^T and reads it row by row.
	a []nttElement
}

// decryptionKey is a parsed K-PKE decryption key: a view of the arrays of
// a DecapsulationKeyOf.
type decryptionKey struct {
	s      []nttElement // ŝ, k entries
	sCache []nttCache
}

// expandMatrix fills ex.a from ex.rho: lines 3 to 7 of Algorithms 13 and 14,
// with the parameter set's matrix sampler.
func expandMatrix(p *Params, ex *encryptionKey) {
	p.sampleMatrix(ex.a, ex.rho, p.k)
}

// samplePRF is PRF_eta(s, b) = SHAKE256(s || b, 64 eta) (FIPS 203, equation
// 4.3), followed by SamplePolyCBD_eta: one noise polynomial.
func samplePRF(f *ringElement, s *[32]byte, b byte, eta int) {
	var in [33]byte
	copy(in[:], s[:])
	in[32] = b
	var buf [64 * 3]byte
	var h sha3.SHAKE // the zero value is SHAKE256
	h.Write(in[:])
	h.Read(buf[:64*eta])
	samplePolyCBD(f, buf[:], eta)
}

// samplePRFs sets f[i] = SamplePolyCBD_eta[i](PRF_eta[i](s, i)) for every i:
// the noise polynomials of K-PKE, whose counter N runs 0, 1, 2, ... over
// them in order. With the four-way Keccak it computes four PRFs at a time
// (a batch of two or three leaves the other lanes unused, still cheaper
// than two single states; a last single polynomial takes a batch of its
// own where keccak.SingleInLane says one lane pays: at ML-KEM-512 and
// 1024, whose encryption has 5 and 9 of them); otherwise one crypto/sha3
// state each. f and eta have the same length, at most 2k+1.
func samplePRFs(s *[32]byte, f []*ringElement, eta []int) {
	i := 0
	if keccak.Accelerated() {
		single := keccak.SingleInLane()
		for ; len(f)-i >= 2 || (single && i < len(f)); i += 4 {
			var in [4][33]byte
			for l := range in {
				copy(in[l][:], s[:])
				in[l][32] = byte(i + l)
			}
			var h keccak.X4
			h.Init256([4][]byte{in[0][:], in[1][:], in[2][:], in[3][:]})
			// SamplePolyCBD reads 64 eta bytes: squeeze the blocks that
			// the most any polynomial of the batch needs from every lane
			// (one for eta = 2, two for eta = 3).
			m := 0
			for l := i; l < min(i+4, len(f)); l++ {
				m = max(m, 64*eta[l])
			}
			m = (m + keccak.Rate256 - 1) / keccak.Rate256 * keccak.Rate256
			var buf [4][2 * keccak.Rate256]byte
			h.SqueezeBlocks(&[4][]byte{buf[0][:m], buf[1][:m], buf[2][:m], buf[3][:m]})
			for l := range 4 {
				if i+l < len(f) {
					samplePolyCBD(f[i+l], buf[l][:], eta[i+l])
				}
			}
		}
	}
	for ; i < len(f); i++ {
		samplePRF(f[i], s, byte(i), eta[i])
	}
}

// pkeSeeds is lines 1 and 2 of K-PKE.KeyGen (FIPS 203, Algorithm 13):
// (rho, sigma) = G(d || k). It sets ex.rho and returns sigma.
func pkeSeeds(p *Params, ex *encryptionKey, d *[32]byte) (sigma [32]byte) {
	var gIn [33]byte
	copy(gIn[:], d[:])
	gIn[32] = byte(p.k) // domain separation by k (final FIPS 203)
	g := keccak.Sum512(gIn[:])
	copy(ex.rho[:], g[:32])
	copy(sigma[:], g[32:])
	return sigma
}

// pkeKeyGen implements K-PKE.KeyGen (FIPS 203, Algorithm 13) from the seed d,
// filling ex and dx.
func pkeKeyGen(p *Params, ex *encryptionKey, dx *decryptionKey, d *[32]byte) {
	k := p.k
	sigma := pkeSeeds(p, ex, d)
	expandMatrix(p, ex)

	// Lines 8 to 15: ŝ[i] = SamplePolyCBD_eta1(PRF_eta1(sigma, N)) for
	// N = 0 .. k-1 and ê[i] for N = k .. 2k-1, sampled together, then ŝ =
	// NTT(s).
	var e [maxK]ringElement
	var noise [2 * maxK]*ringElement
	var etas [2 * maxK]int
	for i := range k {
		noise[i] = (*ringElement)(&dx.s[i])
		noise[k+i] = &e[i]
		etas[i], etas[k+i] = p.eta1, p.eta1
	}
	samplePRFs(&sigma, noise[:2*k], etas[:2*k])
	for i := range k {
		ntt((*ringElement)(&dx.s[i]))
		dx.sCache[i].compute(&dx.s[i])
	}
	// Lines 16 to 18: t̂ = Â ∘ ŝ + ê.
	for i := range k {
		eHat := ntt(&e[i])
		// t̂[i] = sum_j Â[i][j] ∘ ŝ[j] + ê[i], and Â[i][j] = a[j*k+i]:
		// column i of a.
		innerProduct(&ex.t[i], ex.a[i:], k, dx.s, dx.sCache, k, eHat)
	}
}

// encryptionNoise holds the noise of one K-PKE encryption (FIPS 203,
// Algorithm 14, lines 9 to 17): r, e1 and e2, whose PRF counters N are
// 0 .. k-1, k .. 2k-1 and 2k.
type encryptionNoise struct {
	r  [maxK]nttElement // r, then r̂ = NTT(r)
	e1 [maxK]ringElement
	e2 ringElement
}

// poly returns the noise polynomial with PRF counter N, for rank k.
func (f *encryptionNoise) poly(k, N int) *ringElement {
	switch { // N and k are public
	case N < k:
		return (*ringElement)(&f.r[N])
	case N < 2*k:
		return &f.e1[N-k]
	}
	return &f.e2
}

// pkeEncrypt implements K-PKE.Encrypt (FIPS 203, Algorithm 14) with the
// parsed key ex, appending the ciphertext to c.
func pkeEncrypt(p *Params, c []byte, ex *encryptionKey, m *[MessageSize]byte, rnd *[32]byte) []byte {
	k := p.k
	// Lines 9 to 19: r[i] from PRF_eta1(r, N) for N = 0 .. k-1, e1[i] from
	// PRF_eta2(r, N) for N = k .. 2k-1 and e2 from PRF_eta2(r, 2k), sampled
	// together.
	var f encryptionNoise
	var noise [2*maxK + 1]*ringElement
	var etas [2*maxK + 1]int
	for N := range 2*k + 1 {
		noise[N], etas[N] = f.poly(k, N), noiseEta(p, N)
	}
	samplePRFs(rnd, noise[:2*k+1], etas[:2*k+1])
	return pkeEncryptNoise(p, c, ex, m, &f)
}

// noiseEta is the eta of the noise polynomial with PRF counter N in
// K-PKE.Encrypt: eta1 for r, eta2 for e1 and e2.
func noiseEta(p *Params, N int) int {
	if N < p.k { // N and k are public
		return p.eta1
	}
	return eta2
}

// pkeEncryptNoise is K-PKE.Encrypt from line 18 on, with the noise f
// already sampled; it overwrites r in f with r̂.
func pkeEncryptNoise(p *Params, c []byte, ex *encryptionKey, m *[MessageSize]byte, f *encryptionNoise) []byte {
	k := p.k
	// Line 18: r̂ = NTT(r).
	r, e1, e2 := &f.r, &f.e1, &f.e2
	var rCache [maxK]nttCache
	for i := range k {
		ntt((*ringElement)(&r[i]))
		rCache[i].compute(&r[i])
	}

	var u ringElement
	for i := range k {
		// Lines 20 and 22: u[i] = NTT^-1(sum_j Â^T[i][j] ∘ r̂[j]) + e1[i],
		// compressed and encoded. Â^T[i][j] = a[i*k+j]: row i of a.
		var t nttElement
		innerProduct(&t, ex.a[i*k:], 1, r[:], rCache[:], k, nil)
		polyAdd(&u, inverseNTT(&t), &e1[i])
		c = ringCompressAndEncode(c, &u, p.du)
	}

	var mu ringElement
	ringDecodeAndDecompress(&mu, m[:], 1)

	// Lines 21 and 23: v = NTT^-1(t̂^T ∘ r̂) + e2 + mu, compressed and
	// encoded.
	var t nttElement
	innerProduct(&t, ex.t, 1, r[:], rCache[:], k, nil)
	v := inverseNTT(&t)
	polyAdd(v, v, e2)
	polyAdd(v, v, &mu)
	return ringCompressAndEncode(c, v, p.dv)
}

// pkeDecrypt implements K-PKE.Decrypt (FIPS 203, Algorithm 15).
func pkeDecrypt(p *Params, m *[MessageSize]byte, dx *decryptionKey, c []byte) {
	k := p.k
	c1Size := p.c1Size()
	uSize := n * int(p.du) / 8
	// Lines 3 and 5: u' = Decompress_du(ByteDecode_du(c1)), in the NTT
	// domain.
	var uHat [maxK]nttElement
	for i := range k {
		u := (*ringElement)(&uHat[i])
		ringDecodeAndDecompress(u, c[uSize*i:uSize*(i+1)], p.du)
		ntt(u)
	}
	// Line 6: w = v' - NTT^-1(ŝ^T ∘ NTT(u')), then m = ByteEncode1(Compress1(w)).
	var t nttElement
	innerProduct(&t, uHat[:], 1, dx.s, dx.sCache, k, nil)
	sTu := inverseNTT(&t)

	var w ringElement
	ringDecodeAndDecompress(&w, c[c1Size:], p.dv)
	polySub(&w, &w, sTu)
	ringCompressAndEncode(m[:0], &w, 1)
}
