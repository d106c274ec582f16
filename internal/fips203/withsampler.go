package fips203

// Parameter sets with a different matrix sampler, for the PAKE protocols
// (package pake). The matrix Â held by the keys of such a parameter set
// (used in key generation, encapsulation and the re-encryption in
// decapsulation) is expanded with a constant-time variant of SampleNTT;
// everything else is FIPS 203.

// MatrixSampler fills out[e] with the polynomial derived from the 34-byte
// XOF input seeds[e], for every e. The matrix calls it once per expansion
// with all k*k entries (seeds[i*k+j] = rho || i || j, out[i*k+j] the entry
// that FIPS 203 SampleNTT(rho || i || j) would give), so an implementation
// may batch entries, for example four at a time with keccak.X4. Every value
// it writes must lie in [0, q).
type MatrixSampler func(out []*[256]uint16, seeds [][34]byte)

// WithSampler returns a copy of base, named name, whose matrix Â is
// expanded with sample instead of FIPS 203 SampleNTT. Keys, ciphertexts and
// shared keys of the result are not FIPS 203 ML-KEM unless sample returns
// exactly what SampleNTT does; callers must keep them apart from ML-KEM
// keys (package pake gives them their own types).
//
// The parsed keys hold the expanded matrix, so the sampler runs when a key
// is generated or an encapsulation key is parsed, never in Decapsulate.
func WithSampler(base *Params, name string, sample MatrixSampler) *Params {
	p := *base
	p.name = name
	p.fipsMatrix = false
	p.sampleMatrix = func(a []nttElement, rho *[32]byte, k int) {
		var seeds [maxK * maxK][34]byte
		var out [maxK * maxK]*[256]uint16
		for i := range k {
			for j := range k {
				e := i*k + j
				copy(seeds[e][:], rho[:])
				seeds[e][32], seeds[e][33] = byte(i), byte(j)
				out[e] = (*[256]uint16)(&a[e])
			}
		}
		sample(out[:k*k], seeds[:k*k])
	}
	return &p
}

// RejectionSample continues the rejection sampling of FIPS 203 SampleNTT
// (Algorithm 7, lines 5 to 12): it parses b, three bytes at a time, into
// out from slot k until 256 coefficients are accepted or b runs out, and
// returns the new count. It is the one parse of SampleNTT in the code base,
// exported for package pake's sampler A0. Its running time depends on b:
// it is meant for public data (ML-KEM's rho) or for A0, which is variable
// time by definition.
func RejectionSample(out *[256]uint16, k int, b []byte) int {
	return rejectionSample((*nttElement)(out), k, b)
}
