package fips203

import (
	"flag"
	"fmt"
	"testing"
)

// Exhaustive checks that field_test.go and asm_test.go leave out: the
// whole documented input range of condSub and of the compression
// constants, every d that compress and decompress document, the lazy
// reduction bounds of the generic NTTs, and, lane by lane, the reductions
// of the AVX2 assembly (_asm/main.go) modelled with the exact semantics of
// the instructions they use, over every input their comments allow. The
// assembly itself is compared with the Go twins per lane in asm_test.go;
// these tests prove the bounds its comments state, on which those
// comparisons rely for inputs the tests cannot reach.

// exhaustive makes the longest checks (TestBarrettReduce,
// TestCondSubWholeRange) cover their whole input ranges; by default they
// cover the values the code produces and a sample beyond.
var exhaustive = flag.Bool("fips203.exhaustive", false, "run TestBarrettReduce and TestCondSubWholeRange on every 32-bit and 31-bit input (about 40 CPU seconds)")

// TestCondSubWholeRange checks condSub(x, m) for the m the code uses, q and
// 2q, on every x below 2^24 and every 4099th x beyond, up to 2^31 (its
// documented range); with -fips203.exhaustive, on every x < 2^31.
func TestCondSubWholeRange(t *testing.T) {
	step := uint64(4099)
	if *exhaustive {
		step = 1
	}
	for _, m := range []uint32{q, 2 * q} {
		t.Run(fmt.Sprint(m), func(t *testing.T) {
			t.Parallel()
			checkCondSub(t, m, step)
		})
	}
}

func checkCondSub(t *testing.T, m uint32, step uint64) {
	for x := uint64(0); x < 1<<31; {
		want := uint32(x)
		if uint32(x) >= m {
			want -= m
		}
		if got := condSub(uint32(x), m); got != want {
			t.Fatalf("condSub(%d, %d) = %d, want %d", x, m, got, want)
		}
		if x < 1<<24 {
			x++
		} else {
			x += step
		}
	}
}

// TestCompressConstants checks the multiply-shift division by q in
// compress on every y it can form: y = x << d + q/2 for x < q and d <= 11,
// so y <= (q-1) << 11 + q/2 = 6817408.
//
// Beyond that, it logs the first y where the multiply-shift stops being
// exact (13788717), the bound field.go's comment gives.
func TestCompressConstants(t *testing.T) {
	const maxY = (q-1)<<11 + q/2
	for y := uint64(0); y <= maxY; y++ {
		if got := (y * compressMultiplier) >> compressShift; got != y/q {
			t.Fatalf("(%d * %d) >> %d = %d, want %d", y, compressMultiplier, compressShift, got, y/q)
		}
	}
	for y := uint64(maxY); y < 1<<24; y++ {
		if (y*compressMultiplier)>>compressShift != y/q {
			t.Logf("the multiply-shift is exact for y < %d (compress uses y <= %d)", y, maxY)
			break
		}
	}
}

// TestCompressEveryWidth checks Compress_d and Decompress_d against their
// definitions (FIPS 203, equations 4.7 and 4.8), computed here with exact
// integer division, for every input and every d that compress and
// decompress document (1 <= d <= 11), not only those ML-KEM uses.
func TestCompressEveryWidth(t *testing.T) {
	for d := uint8(1); d <= 11; d++ {
		for x := range uint32(q) {
			want := uint16((uint32(2)<<d*x + q) / (2 * q) % (1 << d))
			if got := compress(fieldElement(x), d); got != want {
				t.Fatalf("compress(%d, %d) = %d, want %d", x, d, got, want)
			}
		}
		for y := range uint32(1 << d) {
			want := fieldElement((2*q*y + 1<<d) >> (d + 1))
			if got := decompress(uint16(y), d); got != want {
				t.Fatalf("decompress(%d, %d) = %d, want %d", y, d, got, want)
			}
		}
	}
}

// TestNTTLazyBounds replays the loops of nttGeneric and
// inverseNTTGeneric on upper bounds instead of values, and checks what
// their comments claim: every input of mulShoupLazy is below 2^16, no
// uint16 coefficient overflows, and the final reductions get inputs in
// their ranges (fieldReduce: any uint32; condSub after the scaling: below
// 2q).
func TestNTTLazyBounds(t *testing.T) {
	// Forward: inputs below q.
	var hiF [n]uint32
	for i := range hiF {
		hiF[i] = q - 1
	}
	for length := 128; length >= 2; length /= 2 {
		for start := 0; start < n; start += 2 * length {
			for j := start; j < start+length; j++ {
				lo, hi := hiF[j], hiF[j+length]
				if hi >= 1<<16 {
					t.Fatalf("ntt: mulShoupLazy input bound %d at layer %d", hi, length)
				}
				tMax := uint32(2*q - 1) // mulShoupLazy's result
				hiF[j] = lo + tMax
				hiF[j+length] = lo + 2*q // x - t + 2q with t >= 0
				if hiF[j] >= 1<<16 || hiF[j+length] >= 1<<16 {
					t.Fatalf("ntt: coefficient bound %d overflows uint16 at layer %d", max(hiF[j], hiF[j+length]), length)
				}
			}
		}
	}
	for i := range hiF {
		if hiF[i] >= 15*q {
			t.Fatalf("ntt: final bound %d, the comment says below 15q", hiF[i])
		}
	}
	// Inverse: inputs below 2q (lazily reduced, as asm_test.go feeds it).
	var hiI [n]uint32
	for i := range hiI {
		hiI[i] = 2*q - 1
	}
	for length := 2; length <= 128; length *= 2 {
		for start := 0; start < n; start += 2 * length {
			for j := start; j < start+length; j++ {
				x, y := hiI[j], hiI[j+length]
				if x >= 2*q || y >= 2*q {
					t.Fatalf("inverseNTT: inputs %d, %d not below 2q at layer %d", x, y, length)
				}
				// condSub(x+y, 2q) needs x+y < 4q to land below 2q.
				if x+y >= 4*q {
					t.Fatalf("inverseNTT: x+y bound %d at layer %d", x+y, length)
				}
				if y+2*q >= 1<<16 {
					t.Fatalf("inverseNTT: mulShoupLazy input bound %d at layer %d", y+2*q, length)
				}
				hiI[j], hiI[j+length] = 2*q-1, 2*q-1
			}
		}
	}
	// The final scaling: mulShoupLazy of a value below 2q < 2^16, then
	// condSub by q of a value below 2q.
}

// Lane-level models of the AVX2 instructions the reductions use: 16-bit
// signed lanes, products wrapping as VPMULLW and VPMULHW compute them.

func mullo16(a, b int16) int16 { return int16(int32(a) * int32(b)) }
func mulhi16(a, b int16) int16 { return int16((int32(a) * int32(b)) >> 16) }

const (
	asmQinv     = -3327 // q^-1 mod 2^16 as a signed lane (62209)
	asmBarrettV = 20159 // round(2^26 / q)
)

// fqmulModel is fqmul of _asm/main.go: hi16(b*wR) - hi16(lo16(b*wRqinv)*q).
func fqmulModel(b, wr, wrq int16) int16 {
	tt := mullo16(b, wrq)
	return mulhi16(b, wr) - mulhi16(tt, q)
}

// montConstModel is montConst of _asm/main.go: (w*R mod q centred, that
// times q^-1 mod 2^16).
func montConstModel(w int) (wr, wrq int16) {
	r := int32((int64(w) << 16) % q) // int64: w << 16 overflows a 32-bit int (w is up to 2^16)
	if r > q/2 {
		r -= q
	}
	return int16(r), int16(uint16(r * asmQinv))
}

func modQ(x int64) int64 { return (x%q + q) % q }

// TestAsmFqmulModel checks the Montgomery multiplication of the assembly
// for every constant w in [0, q) (the twiddles and R are among them) and
// every 16-bit signed lane b: the result is congruent to b*w and lies in
// (-3q/4, 3q/4), as the generator's comment says. Under -short, every 7th
// w.
func TestAsmFqmulModel(t *testing.T) {
	if asmQinv*q&0xffff != 1 {
		t.Fatal("asmQinv is not q^-1 mod 2^16")
	}
	step := 1
	if testing.Short() {
		step = 7
	}
	for w := 0; w < q; w += step {
		wr, wrq := montConstModel(w)
		for b := -1 << 15; b < 1<<15; b++ {
			r := fqmulModel(int16(b), wr, wrq)
			if 4*int(r) <= -3*q || 4*int(r) >= 3*q {
				t.Fatalf("fqmul(%d, w = %d) = %d, outside (-3q/4, 3q/4)", b, w, r)
			}
			if modQ(int64(r)) != modQ(int64(b)*int64(w)) {
				t.Fatalf("fqmul(%d, w = %d) = %d, not congruent to %d", b, w, r, modQ(int64(b)*int64(w)))
			}
		}
	}
}

// TestAsmBarrettModel checks barrett of the assembly on every lane x with
// |x| < 2^15: the result is in [0, q] and congruent to x.
func TestAsmBarrettModel(t *testing.T) {
	for x := -(1 << 15) + 1; x < 1<<15; x++ {
		est := mulhi16(int16(x), asmBarrettV) >> 10 // VPMULHW, VPSRAW $10
		r := int16(x) - mullo16(est, q)             // VPMULLW, VPSUBW
		if r < 0 || r > q || modQ(int64(r)) != modQ(int64(x)) {
			t.Fatalf("barrett(%d) = %d, want x mod q in [0, q]", x, r)
		}
	}
}

// TestAsmConditionalModels checks condAddQ on (-q, q) and condSubQ on
// [0, 2q): the result is x mod q in [0, q).
func TestAsmConditionalModels(t *testing.T) {
	condAdd := func(x int16) int16 { return x + (x>>15)&q }
	for x := -q + 1; x < q; x++ {
		if r := condAdd(int16(x)); int64(r) != modQ(int64(x)) {
			t.Fatalf("condAddQ(%d) = %d", x, r)
		}
	}
	for x := 0; x < 2*q; x++ {
		if r := condAdd(int16(x) - q); int64(r) != modQ(int64(x)) {
			t.Fatalf("condSubQ(%d) = %d", x, r)
		}
	}
}

// TestAsmInnerProductReductionModel checks the reduction at the end of
// innerProduct in the assembly for every sum x < 2^27 (the comment's bound
// on 4 * 2q^2 + q): Montgomery reduction r = hi - hi16(lo16(lo*qinv)*q) in
// (-q/2 - 1, 2^11 + q/2) and congruent to x * 2^-16, then fqmul by R and
// condAddQ give x mod q. Under -short, x below 2^24 and every 97th beyond.
func TestAsmInnerProductReductionModel(t *testing.T) {
	cr, crq := montConstModel(1 << 16)
	step := uint32(1)
	if testing.Short() {
		step = 97
	}
	for x := uint32(0); x < 1<<27; {
		lo, hi := int16(uint16(x)), int16(x>>16)
		tt := mullo16(lo, asmQinv)
		r := hi - mulhi16(tt, q)
		if 2*int(r) <= -q-2 || 2*int(r) >= 1<<12+q {
			t.Fatalf("Montgomery reduction of %d = %d, outside (-q/2 - 1, 2^11 + q/2)", x, r)
		}
		f := fqmulModel(r, cr, crq)
		f += (f >> 15) & q
		if int64(f) != int64(x%q) {
			t.Fatalf("innerProduct reduction of %d = %d, want %d", x, f, x%q)
		}
		if x < 1<<24 {
			x++
		} else {
			x += step
		}
	}
	// The largest sum the routine can see is below 2^27.
	if 4*2*(q-1)*(q-1)+(q-1) >= 1<<27 {
		t.Fatal("the largest inner-product sum is not below 2^27")
	}
}
