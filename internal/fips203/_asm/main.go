// Command _asm generates the AVX2 assembly of package fips203, and its
// AVX-512 NTTs (EVEX on ymm, 32 registers), with avo.
//
// Run it through go generate in the parent directory (the directive is in
// ntt.go); it writes asm_amd64.s and the Go declarations in
// asm_stub_amd64.go. It is a module of its own so that avo stays out of
// the main module.
//
// # Representation
//
// The Go code keeps every coefficient canonical, in [0, q), as a uint16.
// The assembly works on the same values read as signed 16-bit lanes: every
// routine takes canonical (or documented lazily reduced, still
// non-negative) inputs, lets intermediate values wander over signed
// representatives whose bounds are stated next to each step, and ends with
// an explicit reduction to [0, q). The arithmetic is exact modulo q, so the
// results are the very values the Go twins compute; the tests compare them
// bit for bit.
//
// Multiplications by constants use signed Montgomery multiplication with
// R = 2^16 (Seiler, "Faster AVX2 optimized NTT multiplication for
// Ring-LWE lattice cryptography", 2018): for a constant w we store
// wR = w*R mod q (centred) and wRqinv = wR * q^-1 mod 2^16, and
//
//	fqmul(b, w) = hi16(b*wR) - hi16(lo16(b*wRqinv) * q)
//
// is exactly (b*wR - t*q) / R with t*q = b*wR mod R, so it is congruent to
// b*w and, for |b| < 2^15 and |wR| <= q/2, lies in (-3q/4, 3q/4). No
// Montgomery factor survives a multiplication, so the NTT works on the
// plain values and no domain conversion is needed at entry or exit.
//
// # Layout model
//
// The generator tracks, for every vector register holding polynomial
// data, which coefficient sits in each of its 16 lanes. Shuffles update
// the model, every butterfly checks that its two registers hold pairs
// (j, j+len) lane by lane and derives its twiddle factors from the model,
// and every store checks that the register holds the 16 consecutive
// coefficients it is written to. A layout mistake stops the generator
// instead of producing wrong code.
//
// Registers: R14 (g) and BP are never touched; the routines are leaf
// functions with no frame. Every routine ends with VZEROUPPER.
package main

import (
	"fmt"

	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

// Field constants.
const (
	q    = 3329
	n    = 256
	qinv = 62209 // q^-1 mod 2^16; as a signed lane -3327
	// barrettV = round(2^26 / q). Barrett reduction of a signed lane x:
	// x - floor(x*barrettV / 2^26) * q lies in [0, q] for |x| < 2^15.
	barrettV = 20159
)

func main() {
	ConstraintExpr("amd64,!purego")

	genNTT()
	genInverseNTT()
	genNTT512()
	genInverseNTT512()
	genCache()
	genInnerProduct(false)
	genInnerProduct(true)
	for _, d := range []int{1, 4, 5, 10, 11, 12} {
		genEncode(d)
	}
	for _, d := range []int{1, 4, 5, 10, 11, 12} {
		genDecode(d)
	}

	genCBD2()
	genCBD3()
	genAddSub(true)
	genAddSub(false)

	emitTables()
	Generate()
}

// ---------------------------------------------------------------------------
// Arithmetic on public constants (generation time only).

func mod(x int) int { return ((x % q) + q) % q }

// centred returns the representative of x mod q in [-(q-1)/2, (q-1)/2].
func centred(x int) int {
	x = mod(x)
	if x > q/2 {
		x -= q
	}
	return x
}

func pow(x, e int) int {
	r := 1
	for ; e > 0; e-- {
		r = r * x % q
	}
	return r
}

func bitRev7(i int) int {
	r := 0
	for b := range 7 {
		r |= (i >> b & 1) << (6 - b)
	}
	return r
}

// zeta(k) = 17^BitRev7(k) mod q and gamma(i) = 17^(2 BitRev7(i) + 1) mod q,
// FIPS 203 Appendix A, recomputed here independently of the Go code.
func zeta(k int) int  { return pow(17, bitRev7(k)) }
func gamma(i int) int { return pow(17, 2*bitRev7(i)+1) }

// montConst returns (w*R mod q centred, that times q^-1 mod 2^16), the two
// lanes fqmul needs to multiply by w.
func montConst(w int) (wr, wrqinv uint16) {
	r := centred(w * (1 << 16))
	return uint16(int16(r)), uint16(int16(uint16(r * qinv)))
}

// fwdZeta is the twiddle factor of Algorithm 9 (NTT) for the butterfly
// of length len whose lower coefficient is c: the counter k runs from 1,
// one per block, over the layers len = 128, 64, ..., 2.
func fwdZeta(length, c int) int { return zeta(n/(2*length) + c/(2*length)) }

// invZeta is the twiddle factor of Algorithm 10 (inverse NTT): k runs down
// from 127 over the layers len = 2, 4, ..., 128.
func invZeta(length, c int) int { return zeta(2*(n/(2*length)) - 1 - c/(2*length)) }

// ---------------------------------------------------------------------------
// Read-only tables.
//
// Tables are filled while the code is generated and emitted at the end.
// "consts" holds 16-bit scalars broadcast with VPBROADCASTW; "vecs" holds
// 32-byte vectors used as memory operands. Both are deduplicated.

type table struct {
	name  string
	words []uint16
	index map[string]int
}

var (
	scalars = &table{name: "fips203Scalars", index: map[string]int{}}
	vectors = &table{name: "fips203Vectors", index: map[string]int{}}
)

func (t *table) addr(ws []uint16) Mem {
	key := fmt.Sprint(ws)
	off, ok := t.index[key]
	if !ok {
		off = 2 * len(t.words)
		t.words = append(t.words, ws...)
		t.index[key] = off
	}
	return NewDataAddr(NewStaticSymbol(t.name), off)
}

// scalar returns the address of the 16-bit constant v.
func scalar(v uint16) Mem { return scalars.addr([]uint16{v}) }

// vector returns the address of the 16-lane constant ws.
func vector(ws [16]uint16) Mem { return vectors.addr(ws[:]) }

func emitTables() {
	for _, t := range []*table{scalars, vectors} {
		GLOBL(t.name, RODATA|NOPTR)
		// Pad to a multiple of 32 bytes.
		for len(t.words)%16 != 0 {
			t.words = append(t.words, 0)
		}
		for i, w := range t.words {
			DATA(2*i, U16(w))
		}
	}
}

// broadcast loads the 16-bit constant v into all lanes of y.
func broadcast(y VecPhysical, v uint16) { VPBROADCASTW(scalar(v), y) }

// ---------------------------------------------------------------------------
// The layout model.

// evex is set while the AVX-512 routines are generated: the helpers below
// then choose the EVEX-encoded instructions, which reach Y16-Y31 (VEX
// encodes VPAND, VPERM2I128, VPBLENDD and VMOVDQU only for Y0-Y15), and
// shuf32 blends under the mask register kBlend, which holds 0xaa.
var evex bool

var kBlend = K1

// vpand sets dst = a & b.
func vpand(a, b, dst VecPhysical) {
	if evex {
		VPANDQ(a, b, dst)
	} else {
		VPAND(a, b, dst)
	}
}

// layout[r] lists the coefficient index in each lane of data register r.
var layout = map[VecPhysical]*[16]int{}

func setLayout(y VecPhysical, first int) {
	var l [16]int
	for i := range l {
		l[i] = first + i
	}
	layout[y] = &l
}

// load reads the 16 coefficients from first on into y.
func load(y VecPhysical, base GPPhysical, first int) {
	if evex {
		VMOVDQU64(Mem{Base: base, Disp: 2 * first}, y)
	} else {
		VMOVDQU(Mem{Base: base, Disp: 2 * first}, y)
	}
	setLayout(y, first)
}

// store writes y to the 16 coefficients from first on, after checking
// that y holds exactly them, in order.
func store(y VecPhysical, base GPPhysical, first int) {
	l := layout[y]
	for i := range l {
		if l[i] != first+i {
			panic(fmt.Sprintf("store of %v at %d: layout %v", y, first, *l))
		}
	}
	if evex {
		VMOVDQU64(y, Mem{Base: base, Disp: 2 * first})
	} else {
		VMOVDQU(y, Mem{Base: base, Disp: 2 * first})
	}
	delete(layout, y)
}

// pairZetas checks that a and b hold butterfly partners (a lane holds c,
// the same lane of b holds c+length, and c is in the lower half of its
// block) and returns the fqmul constants of the twiddle factor of each lane.
func pairZetas(a, b VecPhysical, length int, twiddle func(length, c int) int) (wr, wrq [16]uint16, uniform bool) {
	la, lb := layout[a], layout[b]
	if la == nil || lb == nil {
		panic("butterfly on a register without data")
	}
	uniform = true
	for i := range 16 {
		c := la[i]
		if lb[i] != c+length || c%(2*length) >= length {
			panic(fmt.Sprintf("butterfly len %d: lanes %v / %v", length, *la, *lb))
		}
		wr[i], wrq[i] = montConst(twiddle(length, c))
		if wr[i] != wr[0] {
			uniform = false
		}
	}
	return wr, wrq, uniform
}

// Register roles shared by the NTT routines.
var (
	yQ  = Y15 // q in every lane
	yBV = Y14 // barrettV in every lane (forward NTT) or a spare
	yZ  = Y13 // twiddle wR (broadcast layers)
	yZQ = Y12 // twiddle wR*qinv (broadcast layers)
	yT  = Y11 // scratch
	yH  = Y10 // scratch
	yS  = Y9  // scratch for shuffles (renamed into the data set)
)

// lastBroadcast remembers which twiddle yZ/yZQ hold, to skip reloads.
var lastBroadcast = -1

// twiddles returns operands holding wR and wR*qinv for the butterfly
// (a, b): broadcast registers if every lane uses the same factor,
// otherwise a vector from the table.
func twiddles(a, b VecPhysical, length int, f func(int, int) int) (Op, Op) {
	wr, wrq, uniform := pairZetas(a, b, length, f)
	if !uniform {
		return vector(wr), vector(wrq)
	}
	if key := int(wr[0]); key != lastBroadcast {
		broadcast(yZ, wr[0])
		broadcast(yZQ, wrq[0])
		lastBroadcast = key
	}
	return yZ, yZQ
}

// fqmul sets dst = fqmul(src, w) given wr = wR and wrq = wR*qinv lanes.
// dst may equal src; it clobbers yT. Output in (-3q/4, 3q/4) for
// |src| < 2^15 (see the package comment).
func fqmul(dst, src VecPhysical, wr, wrq Op) {
	VPMULLW(wrq, src, yT) // t = lo16(src * wR*qinv)
	VPMULHW(wr, src, dst) // h = hi16(src * wR)
	VPMULHW(yQ, yT, yT)   // hi16(t * q)
	VPSUBW(yT, dst, dst)  // h - hi16(t*q) = (src*wR - t*q) / 2^16
}

// ctButterfly is the Cooley-Tukey butterfly of Algorithm 9:
// (a, b) <- (a + zeta*b, a - zeta*b). |a|, |b| grow by less than 3q/4.
func ctButterfly(a, b VecPhysical, length int) {
	wr, wrq := twiddles(a, b, length, fwdZeta)
	fqmul(yH, b, wr, wrq) // h = zeta*b, |h| < 3q/4
	VPSUBW(yH, a, b)      // b = a - h
	VPADDW(yH, a, a)      // a = a + h
}

// gsButterfly is the Gentleman-Sande butterfly of Algorithm 10:
// (a, b) <- (a + b, zeta*(b - a)). The new b is in (-3q/4, 3q/4).
func gsButterfly(a, b VecPhysical, length int) {
	wr, wrq := twiddles(a, b, length, invZeta)
	VPSUBW(a, b, yH) // h = b - a
	VPADDW(b, a, a)  // a = a + b
	fqmul(b, yH, wr, wrq)
}

// barrett reduces every lane of x to [0, q]: x - floor(x*barrettV/2^26)*q.
// barrettV/2^26 exceeds 1/q by less than 2.1e-9, so for |x| < 2^15 the
// estimate x*barrettV/2^26 exceeds x/q by less than 7e-5 < 1/q. The floor
// is therefore exact for x >= 0 (x/q is at least 1/q below the next
// integer) and for negative x that are not multiples of q; for a negative
// multiple of q it is one too small, which gives q.
func barrett(x, v VecPhysical) {
	VPMULHW(v, x, yT)      // floor(x*v / 2^16)
	VPSRAW(U8(10), yT, yT) // floor(x*v / 2^26)
	VPMULLW(yQ, yT, yT)
	VPSUBW(yT, x, x)
}

// condSubQ maps lanes in [0, 2q) to [0, q): x - q, plus q if negative.
func condSubQ(x VecPhysical) {
	VPSUBW(yQ, x, x)
	condAddQ(x)
}

// condAddQ maps lanes in (-q, q) to [0, q): adds q where the lane is
// negative (the arithmetic shift makes an all-ones mask there).
func condAddQ(x VecPhysical) {
	VPSRAW(U8(15), x, yT)
	vpand(yQ, yT, yT)
	VPADDW(yT, x, x)
}

// blendOdd sets dst to the odd dwords of odd and the even ones of even.
func blendOdd(odd, even, dst VecPhysical) {
	if evex {
		VPBLENDMD(odd, even, kBlend, dst)
	} else {
		VPBLENDD(U8(0xaa), odd, even, dst)
	}
}

// rename swaps the data of two register names in the model after a
// shuffle wrote its result to the scratch register.
func rename(a, s *VecPhysical) { *a, *s = *s, *a }

// shuffleInputs returns the layouts of a and b, after checking that the
// scratch register s holds no data.
func shuffleInputs(a, b, s VecPhysical) (la, lb [16]int) {
	if layout[s] != nil {
		panic(fmt.Sprintf("shuffle scratch %v holds data", s))
	}
	return *layout[a], *layout[b]
}

// shuf128 exchanges 128-bit halves: (A, B) <- ([A.lo, B.lo], [A.hi, B.hi]).
// It is its own inverse.
func shuf128(a, b, s *VecPhysical) {
	la, lb := shuffleInputs(*a, *b, *s)
	if evex {
		VSHUFI64X2(U8(0), *b, *a, *s) // s = [a.lo, b.lo]
		VSHUFI64X2(U8(3), *b, *a, *b) // b = [a.hi, b.hi]
	} else {
		VPERM2I128(U8(0x20), *b, *a, *s) // s = [a.lo, b.lo]
		VPERM2I128(U8(0x31), *b, *a, *b) // b = [a.hi, b.hi]
	}
	var na, nb [16]int
	copy(na[0:8], la[0:8])
	copy(na[8:16], lb[0:8])
	copy(nb[0:8], la[8:16])
	copy(nb[8:16], lb[8:16])
	delete(layout, *a)
	layout[*s], layout[*b] = &na, &nb
	rename(a, s)
}

// shuf64 transposes 64-bit elements within each 128-bit half:
// A = [a0 a1 | a2 a3], B = [b0 b1 | b2 b3] (qwords) becomes
// A = [a0 b0 | a2 b2], B = [a1 b1 | a3 b3]. It is its own inverse.
func shuf64(a, b, s *VecPhysical) {
	la, lb := shuffleInputs(*a, *b, *s)
	VPUNPCKLQDQ(*b, *a, *s) // s = [a0 b0 | a2 b2]
	VPUNPCKHQDQ(*b, *a, *b) // b = [a1 b1 | a3 b3]
	var na, nb [16]int
	for h := range 2 { // 128-bit half
		copy(na[8*h:8*h+4], la[8*h:8*h+4])
		copy(na[8*h+4:8*h+8], lb[8*h:8*h+4])
		copy(nb[8*h:8*h+4], la[8*h+4:8*h+8])
		copy(nb[8*h+4:8*h+8], lb[8*h+4:8*h+8])
	}
	delete(layout, *a)
	layout[*s], layout[*b] = &na, &nb
	rename(a, s)
}

// shuf32 transposes 32-bit elements in pairs: A = [a0 a1 a2 a3 ...],
// B = [b0 b1 b2 b3 ...] (dwords) becomes A = [a0 b0 a2 b2 ...],
// B = [a1 b1 a3 b3 ...]. It is its own inverse.
func shuf32(a, b, s *VecPhysical) {
	la, lb := shuffleInputs(*a, *b, *s)
	VMOVSLDUP(*b, *s)      // s = [b0 b0 b2 b2 ...]
	blendOdd(*s, *a, *s)   // s = [a0 b0 a2 b2 ...]
	VPSRLQ(U8(32), *a, *a) // a = [a1 0 a3 0 ...]
	blendOdd(*b, *a, *b)   // b = [a1 b1 a3 b3 ...]
	var na, nb [16]int
	for d := 0; d < 8; d += 2 { // dword pairs
		copy(na[2*d:2*d+2], la[2*d:2*d+2])
		copy(na[2*d+2:2*d+4], lb[2*d:2*d+2])
		copy(nb[2*d:2*d+2], la[2*d+2:2*d+4])
		copy(nb[2*d+2:2*d+4], lb[2*d+2:2*d+4])
	}
	delete(layout, *a)
	layout[*s], layout[*b] = &na, &nb
	rename(a, s)
}

// ---------------------------------------------------------------------------
// NTT (Algorithm 9).

// The layers len = 8, 4 and 2 work inside register pairs, through
// shuffles, in a chain of dependent steps. The steps of the four pairs of
// a half run side by side (runChains), four independent chains; a shuffle
// frees the register it read, which is the scratch of the next one.

// fwdPairSteps returns the steps of NTT layers len = 8, 4, 2 on pair p of
// the registers d, which hold coefficients base to base+127, then of the
// reduction to [0, q) and the stores.
func fwdPairSteps(d *[8]VecPhysical, p int, s *VecPhysical, f GPPhysical, base int) []func() {
	a, b := &d[2*p], &d[2*p+1]
	reduce := func(r *VecPhysical) func() {
		return func() {
			barrett(*r, yBV) // [0, q]
			condSubQ(*r)     // [0, q)
		}
	}
	return []func(){
		func() { shuf128(a, b, s) }, // pairs (j, j+8)
		func() { ctButterfly(*a, *b, 8) },
		func() { shuf64(a, b, s) }, // pairs (j, j+4)
		func() { ctButterfly(*a, *b, 4) },
		func() { shuf32(a, b, s) }, // pairs (j, j+2)
		func() { ctButterfly(*a, *b, 2) },
		// Back to coefficient order.
		func() { shuf32(a, b, s) },
		func() { shuf64(a, b, s) },
		func() { shuf128(a, b, s) },
		reduce(a),
		reduce(b),
		func() { store(*a, f, base+32*p) },
		func() { store(*b, f, base+32*p+16) },
	}
}

// invPairSteps returns the steps of inverse NTT layers len = 2, 4, 8 on
// pair p of the registers d, from and back to coefficient order.
func invPairSteps(d *[8]VecPhysical, p int, s *VecPhysical) []func() {
	a, b := &d[2*p], &d[2*p+1]
	return []func(){
		func() { shuf128(a, b, s) },
		func() { shuf64(a, b, s) },
		func() { shuf32(a, b, s) }, // pairs (j, j+2)
		func() { gsButterfly(*a, *b, 2) },
		func() { shuf32(a, b, s) }, // pairs (j, j+4)
		func() { gsButterfly(*a, *b, 4) },
		func() { barrett(*a, yBV) }, // the sums, below 8q, to [0, q]
		func() { shuf64(a, b, s) },  // pairs (j, j+8)
		func() { gsButterfly(*a, *b, 8) },
		func() { shuf128(a, b, s) }, // coefficient order
	}
}

// A chain is a list of steps, each depending on the one before, for
// registers of half (of the AVX-512 routines, whose registers use
// switches to), or of the only half (-1).
type chain struct {
	half  int
	steps []func()
}

// runChains runs the i-th step of every chain, for each i in turn:
// independent chains side by side.
func runChains(chains []chain) {
	for i := range chains[0].steps {
		for _, c := range chains {
			if c.half >= 0 {
				use(c.half)
			}
			c.steps[i]()
		}
	}
}

func genNTT() {
	TEXT("nttAVX2", NOSPLIT, "func(f *[256]uint16)")
	Doc("nttAVX2 computes NTT(f) in place, as ntt: f in [0, q), result in [0, q).")
	Pragma("noescape")
	f := RDI
	Load(Param("f"), f)
	lastBroadcast = -1
	broadcast(yQ, q)
	broadcast(yBV, barrettV)

	// Bounds: the input is in [0, q); each layer adds less than 3q/4 to
	// |x| (the fqmul bound), so after seven layers |x| < 6.25q < 2^15
	// and no lane overflows.

	Comment("Layer len = 128: coefficient i with i+128, in two passes of 64 pairs.")
	d := []VecPhysical{Y0, Y1, Y2, Y3, Y4, Y5, Y6, Y7}
	for part := range 2 {
		for i := range 4 {
			load(d[i], f, 16*(4*part+i))
			load(d[i+4], f, 16*(4*part+i)+128)
		}
		for i := range 4 {
			ctButterfly(d[i], d[i+4], 128)
		}
		for i := range 4 {
			store(d[i], f, 16*(4*part+i))
			store(d[i+4], f, 16*(4*part+i)+128)
		}
	}

	// The two halves are now independent: layers len = 64 ... 2 run on
	// 128 coefficients (8 registers) at a time.
	for half := range 2 {
		Commentf("Half %d: layers len = 64, 32, 16 between registers.", half)
		d := [8]VecPhysical{Y0, Y1, Y2, Y3, Y4, Y5, Y6, Y7}
		for i := range 8 {
			load(d[i], f, 128*half+16*i)
		}
		for _, dist := range []int{4, 2, 1} {
			for i := range 8 {
				if i&dist == 0 {
					ctButterfly(d[i], d[i+dist], 16*dist)
				}
			}
		}
		Commentf("Half %d: layers len = 8, 4, 2 inside register pairs, then reduce to [0, q).", half)
		s := yS
		var chains []chain
		for p := range 4 {
			chains = append(chains, chain{-1, fwdPairSteps(&d, p, &s, f, 128*half)})
		}
		runChains(chains)
	}
	VZEROUPPER()
	RET()
}

// ---------------------------------------------------------------------------
// Inverse NTT (Algorithm 10).

func genInverseNTT() {
	TEXT("inverseNTTAVX2", NOSPLIT, "func(f *[256]uint16)")
	Doc("inverseNTTAVX2 computes NTT^-1(f) in place, as inverseNTT: f in [0, 2q), result in [0, q).")
	Pragma("noescape")
	f := RDI
	Load(Param("f"), f)
	lastBroadcast = -1
	broadcast(yQ, q)
	broadcast(yBV, barrettV)

	// Bounds, in multiples of q, for input in [0, 2q): the sum side of a
	// butterfly at most doubles and the product side is below 3q/4.
	// len 2: 4q; len 4: 8q, then the sums are Barrett reduced to [0, q];
	// len 8: 2q; 16: 4q; 32: 8q, sums reduced again; 64: 2q; 128: 4q.
	// Differences b - a obey the same bounds, all below 2^15 = 9.8q.
	for half := range 2 {
		d := [8]VecPhysical{Y0, Y1, Y2, Y3, Y4, Y5, Y6, Y7}
		for i := range 8 {
			load(d[i], f, 128*half+16*i)
		}
		Commentf("Half %d: layers len = 2, 4, 8 inside register pairs.", half)
		s := yS
		var chains []chain
		for p := range 4 {
			chains = append(chains, chain{-1, invPairSteps(&d, p, &s)})
		}
		runChains(chains)
		Commentf("Half %d: layers len = 16, 32, 64 between registers.", half)
		for _, dist := range []int{1, 2, 4} {
			for i := range 8 {
				if i&dist == 0 {
					gsButterfly(d[i], d[i+dist], 16*dist)
				}
			}
			if dist == 2 {
				for i := range 8 {
					if i&2 == 0 {
						barrett(d[i], yBV) // the sums, below 8q, to [0, q]
					}
				}
			}
		}
		for i := range 8 {
			store(d[i], f, 128*half+16*i)
		}
	}

	Comment("Layer len = 128, then scale by 128^-1 and map to [0, q).")
	// fqmul by 128^-1 leaves (-3q/4, 3q/4); a conditional add of q ends
	// in [0, q).
	scaleR, scaleRQ := montConst(pow(128, q-2))
	d := []VecPhysical{Y0, Y1, Y2, Y3, Y4, Y5, Y6, Y7}
	yScale, yScaleQ := Y8, yBV
	broadcast(yScale, scaleR)
	broadcast(yScaleQ, scaleRQ)
	for part := range 2 {
		for i := range 4 {
			load(d[i], f, 16*(4*part+i))
			load(d[i+4], f, 16*(4*part+i)+128)
		}
		for i := range 4 {
			gsButterfly(d[i], d[i+4], 128)
		}
		for i := range 8 {
			fqmul(d[i], d[i], yScale, yScaleQ)
			condAddQ(d[i])
		}
		for i := range 4 {
			store(d[i], f, 16*(4*part+i))
			store(d[i+4], f, 16*(4*part+i)+128)
		}
	}
	VZEROUPPER()
	RET()
}

// ---------------------------------------------------------------------------
// The NTTs with AVX-512 (EVEX on ymm, 32 registers).
//
// With 16 registers the AVX2 routines work on half the polynomial at a
// time, and each layer has four butterflies, whose chains of two
// multiplications and two additions are too few to fill the pipelines.
// With 32 registers both halves stay in registers from the first load to
// the last store, and the layers of the two halves, independent below
// len = 128, are interleaved butterfly by butterfly, each half with its
// own twiddle, scratch and shuffle registers. The arithmetic, and so the
// bounds, are the AVX2 routines'.

// halfRegs are the registers of one half that the AVX2 code keeps in yZ,
// yZQ, yT and yH, and the twiddle yZ holds. (Each half's shuffle scratch
// register is passed to the shuffles, as in the AVX2 routines.)
type halfRegs struct {
	z, zq, t, h VecPhysical
	last        int
}

var (
	halves  [2]halfRegs
	curHalf = -1
)

// startHalves gives each half its registers (half 0 the AVX2 set; Y8 and
// the data registers Y0-Y7 and Y16-Y23 stay out) and loads kBlend.
func startHalves() {
	halves = [2]halfRegs{
		{z: Y13, zq: Y12, t: Y11, h: Y10, last: -1},
		{z: Y24, zq: Y25, t: Y26, h: Y27, last: -1},
	}
	curHalf = -1
	use(0)
	MOVL(U32(0xaa), EAX)
	KMOVW(EAX, kBlend)
}

// use makes the register roles those of half h.
func use(h int) {
	if curHalf >= 0 {
		halves[curHalf] = halfRegs{yZ, yZQ, yT, yH, lastBroadcast}
	}
	r := halves[h]
	yZ, yZQ, yT, yH, lastBroadcast = r.z, r.zq, r.t, r.h, r.last
	curHalf = h
}

// endHalves restores the AVX2 register roles.
func endHalves() {
	use(0)
	curHalf = -1
	lastBroadcast = -1
}

var dataHalves = [2][8]VecPhysical{
	{Y0, Y1, Y2, Y3, Y4, Y5, Y6, Y7},
	{Y16, Y17, Y18, Y19, Y20, Y21, Y22, Y23},
}

// begin512 starts the AVX-512 NTT routine name: it sets the constants and
// the half registers up, and loads f whole into the data registers, which
// it returns with the halves' shuffle scratch registers.
func begin512(name, doc string) (f GPPhysical, d [2][8]VecPhysical, scratch [2]VecPhysical) {
	TEXT(name, NOSPLIT, "func(f *[256]uint16)")
	Doc(doc)
	Pragma("noescape")
	evex = true
	f = RDI
	Load(Param("f"), f)
	startHalves()
	broadcast(yQ, q)
	broadcast(yBV, barrettV)
	d = dataHalves
	scratch = [2]VecPhysical{yS, Y28}
	for h := range 2 {
		for i := range 8 {
			load(d[h][i], f, 128*h+16*i)
		}
	}
	return f, d, scratch
}

// end512 ends an AVX-512 NTT routine.
func end512() {
	endHalves()
	evex = false
	VZEROUPPER()
	RET()
}

// registerLayer returns the two halves' chains of a layer between
// registers: the butterflies of the pairs (d[h][i], d[h][i+dist]), at
// length 16*dist.
func registerLayer(d *[2][8]VecPhysical, dist int, butterfly func(a, b VecPhysical, length int)) []chain {
	chains := []chain{{half: 0}, {half: 1}}
	for h := range 2 {
		for i := range 8 {
			if i&dist == 0 {
				a, b := d[h][i], d[h][i+dist]
				chains[h].steps = append(chains[h].steps, func() { butterfly(a, b, 16*dist) })
			}
		}
	}
	return chains
}

func genNTT512() {
	f, d, scratch := begin512("nttAVX512", "nttAVX512 is nttAVX2 with AVX-512BW/VL: f in [0, q), result in [0, q).")
	Comment("Layer len = 128: the two halves' registers pairwise.")
	for i := range 8 {
		ctButterfly(d[0][i], d[1][i], 128)
	}
	Comment("Layers len = 64, 32, 16 between registers, the halves interleaved.")
	for _, dist := range []int{4, 2, 1} {
		runChains(registerLayer(&d, dist, ctButterfly))
	}
	Comment("Layers len = 8, 4, 2 inside register pairs, then reduce to [0, q).")
	var chains []chain
	for p := range 4 {
		for h := range 2 {
			chains = append(chains, chain{h, fwdPairSteps(&d[h], p, &scratch[h], f, 128*h)})
		}
	}
	runChains(chains)
	end512()
}

func genInverseNTT512() {
	f, d, scratch := begin512("inverseNTTAVX512", "inverseNTTAVX512 is inverseNTTAVX2 with AVX-512BW/VL: f in [0, 2q), result in [0, q).")
	Comment("Layers len = 2, 4, 8 inside register pairs, the halves interleaved.")
	var chains []chain
	for p := range 4 {
		for h := range 2 {
			chains = append(chains, chain{h, invPairSteps(&d[h], p, &scratch[h])})
		}
	}
	runChains(chains)
	Comment("Layers len = 16, 32, 64 between registers.")
	for _, dist := range []int{1, 2, 4} {
		chains := registerLayer(&d, dist, gsButterfly)
		if dist == 2 {
			// The sums of len = 32, below 8q, to [0, q], as in the AVX2 routine.
			for h := range 2 {
				for i := range 8 {
					if i&2 == 0 {
						a := d[h][i]
						chains[h].steps = append(chains[h].steps, func() { barrett(a, yBV) })
					}
				}
			}
		}
		runChains(chains)
	}
	Comment("Layer len = 128 between the halves, then scale by 128^-1 and map to [0, q).")
	endHalves()
	scaleR, scaleRQ := montConst(pow(128, q-2))
	yScale, yScaleQ := Y8, Y29
	broadcast(yScale, scaleR)
	broadcast(yScaleQ, scaleRQ)
	for i := range 8 {
		use(i % 2)
		gsButterfly(d[0][i], d[1][i], 128)
	}
	for i := range 8 {
		for h := range 2 {
			use(h)
			fqmul(d[h][i], d[h][i], yScale, yScaleQ)
			condAddQ(d[h][i])
		}
	}
	for h := range 2 {
		for i := range 8 {
			store(d[h][i], f, 128*h+16*i)
		}
	}
	end512()
}

// ---------------------------------------------------------------------------
// Base-case multiplication (Algorithms 11 and 12): see genInnerProduct.

// swapPairs is the VPSHUFB mask that exchanges the two 16-bit words of
// every dword.
var swapPairs = [16]uint16{
	0x0302, 0x0100, 0x0706, 0x0504, 0x0b0a, 0x0908, 0x0f0e, 0x0d0c,
	0x0302, 0x0100, 0x0706, 0x0504, 0x0b0a, 0x0908, 0x0f0e, 0x0d0c,
}

// genCache generates cacheAVX2: c[i] = b[2i+1] * gamma_i mod q.
func genCache() {
	TEXT("cacheAVX2", NOSPLIT, "func(c *[128]uint16, b *[256]uint16)")
	Doc("cacheAVX2 sets c[i] = b[2i+1] * gamma_i mod q in [0, q), as nttCache.compute, for b in [0, 2^15).")
	Pragma("noescape")
	pc, pb := RDI, RSI
	Load(Param("c"), pc)
	Load(Param("b"), pb)
	broadcast(yQ, q)
	X0, X1 := Y0, Y1
	for i := range 8 {
		Commentf("Pairs %d to %d.", 16*i, 16*i+15)
		VMOVDQU(Mem{Base: pb, Disp: 64 * i}, X0)
		VMOVDQU(Mem{Base: pb, Disp: 64*i + 32}, X1)
		VPSRLD(U8(16), X0, X0) // odd coefficients, zero-extended
		VPSRLD(U8(16), X1, X1)
		VPACKUSDW(X1, X0, X0)    // [pairs 0-3, 8-11 | 4-7, 12-15] of this block
		VPERMQ(U8(0xd8), X0, X0) // pairs in order
		var wr, wrq [16]uint16
		for j := range 16 {
			wr[j], wrq[j] = montConst(gamma(16*i + j))
		}
		fqmul(X0, X0, vector(wr), vector(wrq))
		condAddQ(X0)
		VMOVDQU(X0, Mem{Base: pc, Disp: 32 * i})
	}
	VZEROUPPER()
	RET()
}

// ---------------------------------------------------------------------------
// Compression and byte encoding (FIPS 203 section 4.2.1, Algorithms 5, 6).
//
// The bit order is ByteEncode's: coefficient i occupies bits d*i ... d*i+d-1
// of the little-endian bit string. Sixteen coefficients (one register)
// make 2d bytes: each 128-bit half packs its 8 coefficients into d bytes.

// wordsOf repeats the 16-bit pattern p over a 16-lane vector.
func wordsOf(p ...uint16) [16]uint16 {
	var v [16]uint16
	for i := range v {
		v[i] = p[i%len(p)]
	}
	return v
}

// dwordsOf repeats the 32-bit pattern p over an 8-lane vector.
func dwordsOf(p ...uint32) [16]uint16 {
	var v [16]uint16
	for i := range 8 {
		x := p[i%len(p)]
		v[2*i], v[2*i+1] = uint16(x), uint16(x>>16)
	}
	return v
}

// bytesOf lays out 32 bytes as a vector.
func bytesOf(b [32]byte) [16]uint16 {
	var v [16]uint16
	for i := range v {
		v[i] = uint16(b[2*i]) | uint16(b[2*i+1])<<8
	}
	return v
}

// storeExact writes the low count bytes of the XMM register x to m with
// stores of 8, 4, 2 and 1 bytes, never touching memory past m+count. It
// clobbers x.
func storeExact(x Register, m Mem, count int) {
	for _, size := range []int{8, 4, 2, 1} {
		if count < size {
			continue
		}
		switch size {
		case 8:
			VMOVQ(x, m)
		case 4:
			VMOVD(x, m)
		case 2:
			VPEXTRW(U8(0), x, m)
		case 1:
			VPEXTRB(U8(0), x, m)
		}
		count -= size
		m = m.Offset(size)
		if count > 0 {
			VPSRLDQ(U8(size), x, x)
		}
	}
	if count != 0 {
		panic("storeExact: unhandled size")
	}
}

// compressWords replaces each lane x in [0, q) of y by Compress_d(x) =
// round(2^d x / q) mod 2^d = floor((2^d x + (q-1)/2) / q) mod 2^d, exactly,
// in 16-bit arithmetic:
//
//	v  = 2^d x + 1664 (< 2^23; only v mod 2^16 is computed)
//	Q' = floor(16x * M / 2^16) with M = floor(2^(12+d) / q)
//
// Q' <= v/q, and v/q - Q' < x/2^12 + 1/2 + 1 < 2.32, so Q' is the quotient
// Q = floor(v/q) or up to two less. The remainder R = v - Q'q is then in
// [0, 3q), so it is exact modulo 2^16 and two conditional steps
// (R >= q: Q' += 1, R -= q) make Q' = Q. TestCompressEncodeAsm checks
// every input.
func compressWords(y VecPhysical, d int, yC1664, yM, yQm1, yMask, t0, t1 VecPhysical) {
	VPSLLW(U8(d), y, t0)   // 2^d x mod 2^16
	VPADDW(yC1664, t0, t0) // v mod 2^16
	VPSLLW(U8(4), y, y)    // 16x < 2^16
	VPMULHUW(yM, y, y)     // Q'
	VPMULLW(yQ, y, t1)     // Q'q mod 2^16
	VPSUBW(t1, t0, t0)     // R = v - Q'q, in [0, 3q)
	VPCMPGTW(yQm1, t0, t1) // R >= q ? -1 : 0
	VPSUBW(t1, y, y)       // Q' += 1 there
	VPAND(yQ, t1, t1)      //
	VPSUBW(t1, t0, t0)     // R -= q there, now in [0, 2q)
	VPCMPGTW(yQm1, t0, t1) // R >= q ? -1 : 0
	VPSUBW(t1, y, y)       // Q' = Q
	VPAND(yMask, y, y)     // mod 2^d
}

func genEncode(d int) {
	size := 32 * d
	if d == 12 {
		TEXT("encode12AVX2", NOSPLIT, fmt.Sprintf("func(b *[%d]byte, f *[256]uint16)", size))
		Doc("encode12AVX2 writes ByteEncode12(f) to b, as byteEncode12, for f in [0, 4096).")
	} else {
		TEXT(fmt.Sprintf("compressEncode%dAVX2", d), NOSPLIT, fmt.Sprintf("func(b *[%d]byte, f *[256]uint16)", size))
		Doc(fmt.Sprintf("compressEncode%dAVX2 writes ByteEncode_%d(Compress_%d(f)) to b, as ringCompressAndEncode, for f in [0, q).", d, d, d))
	}
	Pragma("noescape")
	pb, pf := RDI, RSI
	Load(Param("b"), pb)
	Load(Param("f"), pf)
	broadcast(yQ, q)
	yC1664, yM, yQm1, yMask := Y14, Y13, Y12, Y11
	yMadd, yShiftD, yShiftQ, yShuf := Y10, Y9, Y8, Y7
	if d < 12 {
		broadcast(yC1664, (q-1)/2)
		broadcast(yM, uint16((int(1)<<(12+d))/q)) // int: a uint16 shift would overflow
		broadcast(yQm1, q-1)
		broadcast(yMask, 1<<d-1)
	}
	// Packing, per 128-bit half:
	//  1. VPMADDWD by (1, 2^d): dword i = y[2i] + y[2i+1] << d, 2d bits.
	//  2. VPSLLVD by (32-2d, 0) then VPSRLQ by 32-2d: qword j =
	//     dword[2j] + dword[2j+1] << 2d, 4d bits.
	//  3. VPSLLVQ by (0, s), s = 4d mod 8: the upper qword's bits start at
	//     a byte boundary once placed after the lower one's 4d bits.
	//  4. VPSHUFB gathers the bytes (two shuffles ORed when a byte is
	//     shared, for odd d): d bytes at the bottom of each half, zeros
	//     above.
	VMOVDQU(vector(wordsOf(1, 1<<d)), yMadd)
	VMOVDQU(vector(dwordsOf(uint32(32-2*d), 0)), yShiftD)
	s := (4 * d) % 8
	VMOVDQU(vector(dwordsOf(0, 0, uint32(s), 0)), yShiftQ)
	var shufA, shufB [32]byte
	for i := range shufA {
		shufA[i], shufB[i] = 0x80, 0x80
	}
	lowBytes := (4*d + 7) / 8      // bytes of the lower qword
	highBytes := (4*d + s + 7) / 8 // bytes of the shifted upper qword
	at := 4 * d / 8                // where the upper qword's bytes go
	for h := range 2 {
		for k := range lowBytes {
			shufA[16*h+k] = byte(k)
		}
		for k := range highBytes {
			if s == 0 {
				shufA[16*h+at+k] = byte(8 + k)
			} else {
				shufB[16*h+at+k] = byte(8 + k)
			}
		}
	}
	VMOVDQU(vector(bytesOf(shufA)), yShuf)
	X, T0, T1 := Y0, Y1, Y2
	for j := range 16 {
		Commentf("Coefficients %d to %d -> bytes %d to %d.", 16*j, 16*j+15, 2*d*j, 2*d*j+2*d-1)
		VMOVDQU(Mem{Base: pf, Disp: 32 * j}, X)
		if d < 12 {
			compressWords(X, d, yC1664, yM, yQm1, yMask, T0, T1)
		}
		VPMADDWD(yMadd, X, X)
		VPSLLVD(yShiftD, X, X)
		VPSRLQ(U8(32-2*d), X, X)
		if s != 0 {
			VPSLLVQ(yShiftQ, X, X)
			VPSHUFB(vector(bytesOf(shufB)), X, T0)
			VPSHUFB(yShuf, X, X)
			VPOR(T0, X, X)
		} else {
			VPSHUFB(yShuf, X, X)
		}
		// Store each half's d bytes. A 16-byte store is used while it
		// stays inside b: its zero tail is overwritten by the next
		// store. Near the end, exact stores.
		VEXTRACTI128(U8(1), X, T1.AsX())
		for h, x := range []Register{X.AsX(), T1.AsX()} {
			off := 2*d*j + d*h
			if off+16 <= size {
				VMOVDQU(x, Mem{Base: pb, Disp: off})
			} else {
				storeExact(x, Mem{Base: pb, Disp: off}, d)
			}
		}
	}
	VZEROUPPER()
	RET()
}

// genDecode generates the decoders: ByteDecode_d followed by Decompress_d
// for d < 12, and ByteDecode12 with the modulus check for d = 12.
//
// Eight coefficients are decoded per register in 32-bit lanes: VPSHUFB
// copies into lane k the (at most three) bytes holding the bits of
// coefficient k, VPSRLVD drops the bits below it and VPAND those above.
// Each 128-bit half reads a 16-byte window of b that starts at the byte of
// its first coefficient, moved back where it would pass the end of b, so
// nothing outside b is read.
func genDecode(d int) {
	size := 32 * d
	if d == 12 {
		TEXT("decode12AVX2", NOSPLIT, fmt.Sprintf("func(f *[256]uint16, b *[%d]byte) int", size))
		Doc("decode12AVX2 sets f = ByteDecode12(b) with every value reduced modulo q, and",
			"returns 1 if every value was below q and 0 otherwise, without branching on the data.")
	} else {
		TEXT(fmt.Sprintf("decodeDecompress%dAVX2", d), NOSPLIT, fmt.Sprintf("func(f *[256]uint16, b *[%d]byte)", size))
		Doc(fmt.Sprintf("decodeDecompress%dAVX2 sets f = Decompress_%d(ByteDecode_%d(b)), as ringDecodeAndDecompress.", d, d, d))
	}
	Pragma("noescape")
	pf, pb := RDI, RSI
	Load(Param("f"), pf)
	Load(Param("b"), pb)
	broadcast(yQ, q)
	yMask, yFlag, yQm1 := Y14, Y13, Y12
	VMOVDQU(vector(dwordsOf(1<<d-1)), yMask)
	if d == 12 {
		VPXOR(yFlag, yFlag, yFlag)
		broadcast(yQm1, q-1)
	}
	for j := range 16 {
		Commentf("Coefficients %d to %d.", 16*j, 16*j+15)
		regs := []VecPhysical{Y0, Y1}
		for g, y := range regs {
			var shuf [32]byte
			var shifts [8]uint32
			var windows [2]int
			for h := range 2 {
				first := 16*j + 8*g + 4*h // first coefficient of this half
				w := d * first / 8
				if w+16 > size {
					w = size - 16
				}
				windows[h] = w
				for k := range 4 {
					bit := d * (first + k)
					lo, hi := bit/8, (bit+d-1)/8
					for i := range 4 {
						idx := byte(0x80)
						if lo+i <= hi {
							idx = byte(lo + i - w)
							if lo+i-w >= 16 || lo+i-w < 0 {
								panic("decode window")
							}
						}
						shuf[16*h+4*k+i] = idx
					}
					shifts[4*h+k] = uint32(bit % 8)
				}
			}
			VMOVDQU(Mem{Base: pb, Disp: windows[0]}, y.AsX())
			VINSERTI128(U8(1), Mem{Base: pb, Disp: windows[1]}, y, y)
			VPSHUFB(vector(bytesOf(shuf)), y, y)
			VPSRLVD(vector(dwordsOf(shifts[:]...)), y, y)
			VPAND(yMask, y, y)
		}
		// Dwords to words: [0-3 8-11 | 4-7 12-15], then qword order fixed.
		X := Y0
		VPACKUSDW(Y1, Y0, X)
		VPERMQ(U8(0xd8), X, X)
		if d == 12 {
			VPCMPGTW(yQm1, X, Y1) // lanes >= q
			VPOR(Y1, yFlag, yFlag)
			yT = Y2
			condSubQ(X)
			yT = Y11
		} else {
			// Decompress_d(y) = round(q y / 2^d) = VPMULHRSW(y << (15-d), q):
			// VPMULHRSW computes floor((a*b + 2^14) / 2^15), and
			// y << (15-d) < 2^15.
			VPSLLW(U8(15-d), X, X)
			VPMULHRSW(yQ, X, X)
		}
		VMOVDQU(X, Mem{Base: pf, Disp: 32 * j})
	}
	if d == 12 {
		// valid = 1 if no lane was >= q.
		XORQ(RAX, RAX)
		VPTEST(yFlag, yFlag)
		SETEQ(AL)
		Store(RAX, ReturnIndex(0))
	}
	VZEROUPPER()
	RET()
}

// ---------------------------------------------------------------------------
// Centred binomial sampling (Algorithm 8) and coefficient-wise add and
// subtract.

// genCBD2 generates samplePolyCBD2AVX2: coefficient i is x - y mod q
// where x counts the set bits among bits 4i, 4i+1 of b and y among bits
// 4i+2, 4i+3.
func genCBD2() {
	TEXT("samplePolyCBD2AVX2", NOSPLIT, "func(f *[256]uint16, b *[128]byte)")
	Doc("samplePolyCBD2AVX2 sets f = SamplePolyCBD_2(b) in [0, q), as samplePolyCBD(f, b, 2).")
	Pragma("noescape")
	pf, pb := RDI, RSI
	Load(Param("f"), pf)
	Load(Param("b"), pb)
	broadcast(yQ, q)
	y55, y33, y0F, y22, y2 := Y14, Y13, Y12, Y10, Y9
	broadcast(y55, 0x55)
	broadcast(y33, 0x33)
	broadcast(y0F, 0x0f)
	broadcast(y22, 0x22)
	broadcast(y2, 2)
	W, T, L, H := Y0, Y1, Y2, Y3
	for i := range 8 {
		Commentf("Bytes %d to %d -> coefficients %d to %d.", 16*i, 16*i+15, 32*i, 32*i+31)
		VPMOVZXBW(Mem{Base: pb, Disp: 16 * i}, W) // byte j of the block in word j
		// Pair counts: each 2-bit field becomes the sum of its two bits.
		VPSRLW(U8(1), W, T)
		VPAND(y55, T, T)
		VPAND(y55, W, W)
		VPADDW(T, W, W)
		// Per nibble (x in bits 0-1, y in bits 2-3): x + 2 - y in [0, 4],
		// which never borrows from the next nibble.
		VPSRLW(U8(2), W, T)
		VPAND(y33, T, T) // y of both nibbles
		VPAND(y33, W, W) // x of both nibbles
		VPADDW(y22, W, W)
		VPSUBW(T, W, W)
		// Byte j gives coefficients 2j (low nibble) and 2j+1 (high).
		VPSRLW(U8(4), W, T) // high nibble (bits above are zero)
		VPAND(y0F, W, W)    // low nibble
		VPUNPCKLWD(T, W, L) // [c0..c7 | c16..c23] of the block
		VPUNPCKHWD(T, W, H) // [c8..c15 | c24..c31]
		VPERM2I128(U8(0x20), H, L, W)
		VPERM2I128(U8(0x31), H, L, T)
		for k, x := range []VecPhysical{W, T} {
			VPSUBW(y2, x, x) // x - y in [-2, 2]
			condAddQ(x)      // mod q, in [0, q)
			VMOVDQU(x, Mem{Base: pf, Disp: 64*i + 32*k})
		}
	}
	VZEROUPPER()
	RET()
}

// genCBD3 generates samplePolyCBD3AVX2: coefficient i is x - y mod q
// where x counts the set bits among bits 6i .. 6i+2 of b and y among
// 6i+3 .. 6i+5. Three bytes give four coefficients; each iteration reads
// 24 bytes into eight 32-bit lanes.
func genCBD3() {
	TEXT("samplePolyCBD3AVX2", NOSPLIT, "func(f *[256]uint16, b *[192]byte)")
	Doc("samplePolyCBD3AVX2 sets f = SamplePolyCBD_3(b) in [0, q), as samplePolyCBD(f, b, 3).")
	Pragma("noescape")
	pf, pb := RDI, RSI
	Load(Param("f"), pf)
	Load(Param("b"), pb)
	broadcast(yQ, q)
	yShuf, y249, y1C7, y3F, y3 := Y14, Y13, Y12, Y10, Y9
	// Lane 0 reads bytes 0..15 of the block and uses 0..11; lane 1 reads
	// bytes 8..23 (so the last read ends at byte 192) and uses its 4..15.
	var shuf [32]byte
	for h, base := range []int{0, 4} {
		for k := range 4 {
			for i := range 3 {
				shuf[16*h+4*k+i] = byte(base + 3*k + i)
			}
			shuf[16*h+4*k+3] = 0x80
		}
	}
	VMOVDQU(vector(bytesOf(shuf)), yShuf)
	VMOVDQU(vector(dwordsOf(0x249249)), y249)
	VMOVDQU(vector(dwordsOf(0x1c71c7)), y1C7) // 3-bit fields 0, 2, 4, 6
	VMOVDQU(vector(dwordsOf(0x3f003f)), y3F)  // two words of 6 bits
	broadcast(y3, 3)
	W, T, A, B := Y0, Y1, Y2, Y3
	for i := range 8 {
		Commentf("Bytes %d to %d -> coefficients %d to %d.", 24*i, 24*i+23, 32*i, 32*i+31)
		VMOVDQU(Mem{Base: pb, Disp: 24 * i}, W.AsX())
		VINSERTI128(U8(1), Mem{Base: pb, Disp: 24*i + 8}, W, W)
		VPSHUFB(yShuf, W, W) // three bytes per dword: 24 bits, 4 coefficients
		// Triple counts: each 3-bit field becomes the sum of its bits.
		VPSRLD(U8(1), W, T)
		VPAND(y249, T, T)
		VPSRLD(U8(2), W, A)
		VPAND(y249, A, A)
		VPAND(y249, W, W)
		VPADDD(T, W, W)
		VPADDD(A, W, W)
		// Per 6-bit field (x in bits 0-2, y in bits 3-5): x + 3 - y in
		// [0, 6], which never borrows from the next field.
		VPSRLD(U8(3), W, T)
		VPAND(y1C7, T, T)                        // the y fields
		VPAND(y1C7, W, W)                        // the x fields
		VPADDD(vector(dwordsOf(0x0c30c3)), W, W) // 3 in each field
		VPSUBD(T, W, W)
		// Fields 0, 1 to the two words of A, fields 2, 3 to those of B.
		VPSLLD(U8(10), W, A) // field 1 at bit 16
		VPBLENDW(U8(0x55), W, A, A)
		VPAND(y3F, A, A)
		VPSRLD(U8(12), W, B) // field 2 at bit 0
		VPSRLD(U8(2), W, T)  // field 3 at bit 16
		VPBLENDW(U8(0xaa), T, B, B)
		VPAND(y3F, B, B)
		// Dword k of A/B: coefficients (4k, 4k+1) / (4k+2, 4k+3).
		VPUNPCKLDQ(B, A, W) // [c0..c7 | c16..c23]
		VPUNPCKHDQ(B, A, T) // [c8..c15 | c24..c31]
		VPERM2I128(U8(0x20), T, W, A)
		VPERM2I128(U8(0x31), T, W, B)
		for k, x := range []VecPhysical{A, B} {
			VPSUBW(y3, x, x) // x - y in [-3, 3]
			condAddQ(x)      // mod q, in [0, q)
			VMOVDQU(x, Mem{Base: pf, Disp: 64*i + 32*k})
		}
	}
	VZEROUPPER()
	RET()
}

// genAddSub generates polyAddAVX2 (f = a + b mod q) or polySubAVX2
// (f = a - b mod q) for a, b in [0, q); f may alias a or b.
func genAddSub(add bool) {
	if add {
		TEXT("polyAddAVX2", NOSPLIT, "func(f *[256]uint16, a *[256]uint16, b *[256]uint16)")
		Doc("polyAddAVX2 sets f = a + b mod q, as fieldAdd on every coefficient.")
	} else {
		TEXT("polySubAVX2", NOSPLIT, "func(f *[256]uint16, a *[256]uint16, b *[256]uint16)")
		Doc("polySubAVX2 sets f = a - b mod q, as fieldSub on every coefficient.")
	}
	Pragma("noescape")
	pf, pa, pb := RDI, RSI, RDX
	Load(Param("f"), pf)
	Load(Param("a"), pa)
	Load(Param("b"), pb)
	broadcast(yQ, q)
	for i := range 8 {
		// Two registers per step; the loads come first so that f may
		// alias a or b.
		x, y := Y0, Y1
		VMOVDQU(Mem{Base: pa, Disp: 64 * i}, x)
		VMOVDQU(Mem{Base: pa, Disp: 64*i + 32}, y)
		for k, r := range []VecPhysical{x, y} {
			if add {
				VPADDW(Mem{Base: pb, Disp: 64*i + 32*k}, r, r) // [0, 2q)
				condSubQ(r)
			} else {
				VPSUBW(Mem{Base: pb, Disp: 64*i + 32*k}, r, r) // (-q, q)
				condAddQ(r)
			}
		}
		VMOVDQU(x, Mem{Base: pf, Disp: 64 * i})
		VMOVDQU(y, Mem{Base: pf, Disp: 64*i + 32})
	}
	VZEROUPPER()
	RET()
}

// ---------------------------------------------------------------------------
// k-term inner product in the NTT domain, reduced.

// genInnerProduct generates innerProductAVX2 (f = sum_j a_j ∘ b_j mod q)
// or innerProductAddAVX2 (f = e + sum_j a_j ∘ b_j mod q), the twins of
// innerProduct: k calls of nttAccumulator.mulAdd followed by reduce or
// reduceAdd. The exact 32-bit sums stay in registers, block by block.
//
// Base-case multiplication (Algorithm 12) of the pair (a0, a1) by (b0, b1),
// with bc = b1 * gamma mod q from the cache, is
//
//	c0 = a0*b0 + a1*bc,  c1 = a0*b1 + a1*b0.
//
// With the pairs in the dwords of a register, VPMADDWD against (b0, bc)
// gives c0 and against (b1, b0) gives c1, exactly: every input is below
// q < 2^12, so the products and their sums are positive and below 2^25.
func genInnerProduct(add bool) {
	sig := "func(f *[256]uint16, a *[256]uint16, aStride uintptr, b *[256]uint16, bc *[128]uint16, k int)"
	if add {
		TEXT("innerProductAddAVX2", NOSPLIT, sig[:len(sig)-1]+", e *[256]uint16)")
		Doc("innerProductAddAVX2 sets f = e + sum_{j<k} a_j ∘ b_j mod q in [0, q), where a_j is at",
			"a + j*aStride bytes, b_j = b[j] and bc_j = bc[j] (arrays of polynomials), for 1 <= k <= 4",
			"and every input in [0, q).")
	} else {
		TEXT("innerProductAVX2", NOSPLIT, sig)
		Doc("innerProductAVX2 sets f = sum_{j<k} a_j ∘ b_j mod q in [0, q), where a_j is at",
			"a + j*aStride bytes, b_j = b[j] and bc_j = bc[j] (arrays of polynomials), for 1 <= k <= 4",
			"and every input in [0, q).")
	}
	Pragma("noescape")
	pf, pa, stride, pb, pc, k, pe := RDI, RSI, R8, RDX, RCX, R9, R10
	off, cnt, ra, rb, rc := RBX, RAX, R11, R12, R13
	Load(Param("f"), pf)
	Load(Param("a"), pa)
	Load(Param("aStride"), stride)
	Load(Param("b"), pb)
	Load(Param("bc"), pc)
	Load(Param("k"), k)
	if add {
		Load(Param("e"), pe)
	}
	broadcast(yQ, q)
	ySwap, yQinv, yLow, yC, yCQ := Y14, Y13, Y12, Y10, Y9
	VMOVDQU(vector(swapPairs), ySwap)
	broadcast(yQinv, qinv)
	VPCMPEQD(yLow, yLow, yLow)
	VPSRLD(U8(16), yLow, yLow) // 0x0000ffff in every dword
	cr, crq := montConst(1 << 16)
	broadcast(yC, cr)
	broadcast(yCQ, crq)
	E, O, A, B, C, X, Yv := Y0, Y1, Y2, Y3, Y4, Y5, Y6

	// off runs over the 16 blocks of 16 coefficients (32 bytes each).
	XORQ(off, off)
	Label(fmt.Sprintf("ip%v_block", add))
	Comment("E and O hold the even and odd outputs of pairs 0..7 of the block, exact sums.")
	VPXOR(E, E, E)
	VPXOR(O, O, O)
	MOVQ(pa, ra)
	ADDQ(off, ra)
	MOVQ(pb, rb)
	ADDQ(off, rb)
	MOVQ(off, cnt)
	SHRQ(U8(1), cnt)
	MOVQ(pc, rc)
	ADDQ(cnt, rc) // the cache has 8 entries (16 bytes) per block
	MOVQ(k, cnt)
	Label(fmt.Sprintf("ip%v_term", add))
	Comment("Term j: E += a0*b0 + a1*bc, O += a0*b1 + a1*b0, per pair.")
	VMOVDQU(Mem{Base: ra}, A)
	VMOVDQU(Mem{Base: rb}, B)
	VPMOVZXWD(Mem{Base: rc}, C)
	VPSLLD(U8(16), C, C)
	VPBLENDW(U8(0xaa), C, B, X) // (b0, bc)
	VPSHUFB(ySwap, B, Yv)       // (b1, b0)
	VPMADDWD(X, A, X)
	VPMADDWD(Yv, A, Yv)
	VPADDD(X, E, E)
	VPADDD(Yv, O, O)
	ADDQ(stride, ra)
	ADDQ(U32(2*n), rb)
	ADDQ(U32(n), rc)
	DECQ(cnt)
	JNZ(LabelRef(fmt.Sprintf("ip%v_term", add)))

	if add {
		Comment("Add e: its even coefficients to E, its odd ones to O.")
		VMOVDQU(Mem{Base: pe, Index: off, Scale: 1}, A)
		VPAND(yLow, A, B)
		VPSRLD(U8(16), A, A)
		VPADDD(B, E, E)
		VPADDD(A, O, O)
	}
	// Each sum x is below 4 * 2q^2 + q < 2^27. Split it as hi*2^16 + lo
	// with the words already in coefficient order: LO = (lo(E), lo(O))
	// and HI = (hi(E), hi(O)) in each dword.
	// Montgomery reduction: t = lo*qinv mod 2^16 makes x - t*q divisible
	// by 2^16, and r = hi - hi16(t*q) = (x - t*q) / 2^16 exactly (the low
	// halves of x and t*q are equal), congruent to x*R^-1 and in
	// (-q/2 - 1, 2^11 + q/2). fqmul by R then gives x mod q in (-3q/4,
	// 3q/4), and a conditional add of q makes it canonical.
	Comment("Montgomery reduction of the sums, then multiplication by R and [0, q).")
	VPSLLD(U8(16), O, A)
	VPBLENDW(U8(0xaa), A, E, A) // LO
	VPSRLD(U8(16), E, B)
	VPBLENDW(U8(0xaa), O, B, B) // HI, below 2^11
	VPMULLW(yQinv, A, A)
	VPMULHW(yQ, A, A)
	VPSUBW(A, B, B) // x * R^-1, in (-q/2 - 1, 2^11 + q/2)
	fqmul(B, B, yC, yCQ)
	condAddQ(B)
	VMOVDQU(B, Mem{Base: pf, Index: off, Scale: 1})
	ADDQ(U8(32), off)
	CMPQ(off, U32(2*n))
	JB(LabelRef(fmt.Sprintf("ip%v_block", add)))
	VZEROUPPER()
	RET()
}
