package fips203

import "crypto/sha3"

// K-PKE, the component public-key encryption scheme of FIPS 203, section 5.

// encryptionKey is a parsed K-PKE encryption key. It holds Â, expanded once
// when the key is made, so that repeated encryptions do not expand it again.
type encryptionKey struct {
	t   [maxK]nttElement // t̂
	rho [32]byte
	// a holds Â transposed: a[i*k+j] = Â[j][i] = SampleNTT(rho || i || j).
	// Encryption multiplies by Â^T and reads it row by row.
	a [maxK * maxK]nttElement
}

// decryptionKey is a parsed K-PKE decryption key.
type decryptionKey struct {
	s      [maxK]nttElement // ŝ
	sCache [maxK]nttCache
}

// expandMatrix fills ex.a from ex.rho: lines 3 to 7 of Algorithms 13 and 14.
func expandMatrix(p *Params, ex *encryptionKey) {
	for i := range p.k {
		for j := range p.k {
			p.sampleNTT(&ex.a[i*p.k+j], &ex.rho, byte(i), byte(j))
		}
	}
}

// prf is PRF_eta(s, b) = SHAKE256(s || b, 64 eta) (FIPS 203, equation 4.3),
// followed by SamplePolyCBD_eta.
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

// pkeKeyGen implements K-PKE.KeyGen (FIPS 203, Algorithm 13) from the seed d,
// filling ex and dx.
func pkeKeyGen(p *Params, ex *encryptionKey, dx *decryptionKey, d *[32]byte) {
	k := p.k
	var gIn [33]byte
	copy(gIn[:], d[:])
	gIn[32] = byte(k) // domain separation by k (final FIPS 203)
	g := sha3.Sum512(gIn[:])
	copy(ex.rho[:], g[:32])
	var sigma [32]byte
	copy(sigma[:], g[32:])

	expandMatrix(p, ex)

	var N byte
	for i := range k {
		f := (*ringElement)(&dx.s[i])
		samplePRF(f, &sigma, N, p.eta1)
		N++
		ntt(f)
		dx.sCache[i].compute(&dx.s[i])
	}
	var acc nttAccumulator
	for i := range k {
		var e ringElement
		samplePRF(&e, &sigma, N, p.eta1)
		N++
		eHat := ntt(&e)
		// t̂[i] = sum_j Â[i][j] ∘ ŝ[j] + ê[i], and Â[i][j] = a[j*k+i].
		for j := range k {
			acc.mulAdd(&ex.a[j*k+i], &dx.s[j], &dx.sCache[j])
		}
		acc.reduceAdd(&ex.t[i], eHat)
	}
}

// pkeEncrypt implements K-PKE.Encrypt (FIPS 203, Algorithm 14) with the
// parsed key ex, appending the ciphertext to c.
func pkeEncrypt(p *Params, c []byte, ex *encryptionKey, m *[MessageSize]byte, rnd *[32]byte) []byte {
	k := p.k
	var N byte
	var r [maxK]nttElement
	var rCache [maxK]nttCache
	for i := range k {
		f := (*ringElement)(&r[i])
		samplePRF(f, rnd, N, p.eta1)
		N++
		ntt(f)
		rCache[i].compute(&r[i])
	}

	var acc nttAccumulator
	var u ringElement
	for i := range k {
		var e1 ringElement
		samplePRF(&e1, rnd, N, eta2)
		N++
		// u[i] = NTT^-1(sum_j Â^T[i][j] ∘ r̂[j]) + e1[i]
		var t nttElement
		for j := range k {
			acc.mulAdd(&ex.a[i*k+j], &r[j], &rCache[j])
		}
		acc.reduce(&t)
		uu := inverseNTT(&t)
		for x := range u {
			u[x] = fieldAdd(uu[x], e1[x])
		}
		c = ringCompressAndEncode(c, &u, p.du)
	}

	var e2 ringElement
	samplePRF(&e2, rnd, N, eta2)
	var mu ringElement
	ringDecodeAndDecompress(&mu, m[:], 1)

	// v = NTT^-1(t̂^T ∘ r̂) + e2 + mu
	var t nttElement
	for j := range k {
		acc.mulAdd(&ex.t[j], &r[j], &rCache[j])
	}
	acc.reduce(&t)
	v := inverseNTT(&t)
	for x := range v {
		v[x] = fieldAdd(fieldAdd(v[x], e2[x]), mu[x])
	}
	return ringCompressAndEncode(c, v, p.dv)
}

// pkeDecrypt implements K-PKE.Decrypt (FIPS 203, Algorithm 15).
func pkeDecrypt(p *Params, m *[MessageSize]byte, dx *decryptionKey, c []byte) {
	k := p.k
	c1Size := p.c1Size()
	uSize := n * int(p.du) / 8
	var acc nttAccumulator
	for i := range k {
		var u ringElement
		ringDecodeAndDecompress(&u, c[uSize*i:uSize*(i+1)], p.du)
		acc.mulAdd(ntt(&u), &dx.s[i], &dx.sCache[i])
	}
	var t nttElement
	acc.reduce(&t)
	sTu := inverseNTT(&t)

	var w ringElement
	ringDecodeAndDecompress(&w, c[c1Size:], p.dv)
	for x := range w {
		w[x] = fieldSub(w[x], sTu[x])
	}
	ringCompressAndEncode(m[:0], &w, 1)
}
