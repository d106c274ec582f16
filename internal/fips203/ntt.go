package fips203

// The number-theoretic transform of FIPS 203, section 4.3.
//
// ntt, inverseNTT, nttCache.compute and innerProduct dispatch (in
// dispatch_amd64.go, and dispatch_noasm.go where there is no assembly), on
// amd64 with AVX2, to assembly twins (asm_amd64.s, generated from
// _asm/main.go) that return the very same values as the readable Go
// references (nttGeneric, inverseNTTGeneric, computeGeneric and
// innerProductGeneric). The tests compare them bit for bit.

//go:generate go run -C _asm . -out ../asm_amd64.s -stubs ../asm_stub_amd64.go -pkg fips203
//go:generate go run -C _sampleasm . -out ../sample_amd64.s -stubs ../sample_stub_amd64.go -pkg fips203

// nttElement is a polynomial in the NTT domain T_q: 128 degree-one
// polynomials modulo X^2 - zeta^(2 BitRev7(i) + 1), stored as pairs.
type nttElement [n]fieldElement

// ringElement is a polynomial in R_q, its coefficients in order.
type ringElement [n]fieldElement

// zetas[i] = 17^BitRev7(i) mod q, and gammas[i] = 17^(2 BitRev7(i) + 1) mod
// q, computed once from their definitions (FIPS 203, Appendix A), with the
// Shoup constants for multiplying by them.
var (
	zetas, gammas           [128]fieldElement
	zetasShoup, gammasShoup [128]uint32
)

func init() {
	for i := range 128 {
		br := bitRev7(uint8(i))
		zetas[i] = fieldPow(17, uint32(br))
		gammas[i] = fieldPow(17, 2*uint32(br)+1)
		zetasShoup[i] = shoupConstant(zetas[i])
		gammasShoup[i] = shoupConstant(gammas[i])
	}
}

// bitRev7 reverses the 7 low bits of i. Public data only.
func bitRev7(i uint8) uint8 {
	var r uint8
	for b := range 7 {
		r |= (i >> b & 1) << (6 - b)
	}
	return r
}

// fieldPow returns x^e mod q. It runs only on public constants.
func fieldPow(x fieldElement, e uint32) fieldElement {
	r := fieldElement(1)
	for ; e > 0; e >>= 1 {
		if e&1 == 1 {
			r = fieldMul(r, x)
		}
		x = fieldMul(x, x)
	}
	return r
}

// nttGeneric computes NTT(f) in place (FIPS 203, Algorithm 9): the Go
// form of ntt (dispatch_*.go). The coefficients of f must be in [0, q), as
// every caller's are (CBD samples and decompressed values).
//
// The butterflies reduce lazily: a Shoup multiplication returns a value in
// [0, 2q), so each layer widens the range of the coefficients by 2q, and
// after the seven layers they are below 15q < 2^16. One Barrett reduction at
// the end brings them back to [0, q).
func nttGeneric(f *ringElement) *nttElement {
	k := 1
	for length := 128; length >= 2; length /= 2 {
		for start := 0; start < n; start += 2 * length {
			zeta, zs := uint32(zetas[k]), zetasShoup[k]
			k++
			lo := f[start : start+length]
			hi := f[start+length : start+2*length]
			hi = hi[:len(lo)]
			for j := range lo {
				x := uint32(lo[j])
				t := mulShoupLazy(uint32(hi[j]), zeta, zs)
				lo[j] = fieldElement(x + t)
				hi[j] = fieldElement(x - t + 2*q)
			}
		}
	}
	for i := range f {
		f[i] = fieldReduce(uint32(f[i]))
	}
	return (*nttElement)(f)
}

// inverseNTTGeneric computes NTT^-1(f) in place (FIPS 203, Algorithm
// 10), with coefficients kept in [0, 2q) between layers: the Go form of
// inverseNTT (dispatch_*.go).
func inverseNTTGeneric(f *nttElement) *ringElement {
	k := 127
	for length := 2; length <= 128; length *= 2 {
		for start := 0; start < n; start += 2 * length {
			zeta, zs := uint32(zetas[k]), zetasShoup[k]
			k--
			lo := f[start : start+length]
			hi := f[start+length : start+2*length]
			hi = hi[:len(lo)]
			for j := range lo {
				x, y := uint32(lo[j]), uint32(hi[j])
				lo[j] = fieldElement(condSub(x+y, 2*q))
				hi[j] = fieldElement(mulShoupLazy(y-x+2*q, zeta, zs))
			}
		}
	}
	for i := range f {
		f[i] = fieldElement(condSub(mulShoupLazy(uint32(f[i]), nInverse, nInverseShoup), q))
	}
	return (*ringElement)(f)
}

// nInverse is 128^-1 mod q, the final scaling of Algorithm 10.
const nInverse = 3303

var nInverseShoup = shoupConstant(nInverse)

// nttCache holds, for a multiplicand b, the products b[2i+1] * gamma_i that
// BaseCaseMultiply needs, so that a vector used against several others pays
// for them once.
type nttCache [n / 2]fieldElement

// computeGeneric sets c to the cache of b: the Go form of compute
// (dispatch_*.go).
func (c *nttCache) computeGeneric(b *nttElement) {
	for i := range c {
		c[i] = fieldMulShoup(b[2*i+1], gammas[i], gammasShoup[i])
	}
}

// nttAccumulator holds unreduced sums of products of NTT elements. Each
// mulAdd adds less than 2q^2 < 2^25 to a coefficient, so up to 128 products
// can be summed before reduce; ML-KEM sums at most k = 4. It is the generic
// form of innerProduct, whose AVX2 twin keeps the same exact sums in
// registers.
type nttAccumulator [n]uint32

// mulAdd adds a * b to acc, with bc = the cache of b: MultiplyNTTs and
// BaseCaseMultiply (FIPS 203, Algorithms 11 and 12), without the reductions.
func (acc *nttAccumulator) mulAdd(a, b *nttElement, bc *nttCache) {
	for i := range n / 2 {
		a0, a1 := uint32(a[2*i]), uint32(a[2*i+1])
		b0, b1 := uint32(b[2*i]), uint32(b[2*i+1])
		acc[2*i] += a0*b0 + a1*uint32(bc[i])
		acc[2*i+1] += a0*b1 + a1*b0
	}
}

// reduce writes acc mod q to f and clears acc.
func (acc *nttAccumulator) reduce(f *nttElement) {
	for i := range f {
		f[i] = fieldReduce(acc[i])
		acc[i] = 0
	}
}

// reduceAdd writes acc + e mod q to f and clears acc.
func (acc *nttAccumulator) reduceAdd(f *nttElement, e *nttElement) {
	for i := range f {
		f[i] = fieldReduce(acc[i] + uint32(e[i]))
		acc[i] = 0
	}
}

// innerProduct sets f = sum_{j<k} a[j*stride] ∘ b[j] (plus e, if e is not
// nil), reduced to [0, q): the coarse form of k mulAdd calls followed by
// reduce or reduceAdd, for 1 <= k <= maxK. With a stride of 1 it takes a
// row of Â^T; with a stride of k, a column. f may be e: each coefficient
// of e is read before that of f is written.
func innerProduct(f *nttElement, a []nttElement, stride int, b []nttElement, bc []nttCache, k int, e *nttElement) {
	if k < 1 || k > maxK {
		panic("fips203: inner product of invalid length") // unreachable: k comes from Params
	}
	_ = a[(k-1)*stride] // every a_j the assembly reads is in a
	_, _ = b[k-1], bc[k-1]
	innerProductChecked(f, a, stride, b, bc, k, e)
}

// innerProductGeneric is the Go form of innerProductChecked
// (dispatch_*.go): innerProduct once its arguments are checked.
func innerProductGeneric(f *nttElement, a []nttElement, stride int, b []nttElement, bc []nttCache, k int, e *nttElement) {
	var acc nttAccumulator
	for j := range k {
		acc.mulAdd(&a[j*stride], &b[j], &bc[j])
	}
	if e == nil {
		acc.reduce(f)
	} else {
		acc.reduceAdd(f, e)
	}
}
