package fips203

import (
	"math/rand/v2"
	"testing"
)

// Exhaustive checks of the field arithmetic over each function's whole
// documented input range: the Go counterpart of a machine-checked proof of
// the reductions.

func TestFieldReduceOnceExhaustive(t *testing.T) {
	for a := range uint16(2 * q) {
		if got, want := fieldReduceOnce(a), fieldElement(a%q); got != want {
			t.Fatalf("fieldReduceOnce(%d) = %d, want %d", a, got, want)
		}
	}
}

func TestCondSub(t *testing.T) {
	for _, m := range []uint32{q, 2 * q} {
		for x := range uint32(1 << 20) {
			want := x
			if x >= m {
				want = x - m
			}
			if got := condSub(x, m); got != want {
				t.Fatalf("condSub(%d, %d) = %d, want %d", x, m, got, want)
			}
		}
	}
}

func TestFieldAddSubMulExhaustive(t *testing.T) {
	for a := range fieldElement(q) {
		for b := range fieldElement(q) {
			if got, want := fieldAdd(a, b), fieldElement((uint32(a)+uint32(b))%q); got != want {
				t.Fatalf("fieldAdd(%d, %d) = %d, want %d", a, b, got, want)
			}
			if got, want := fieldSub(a, b), fieldElement((uint32(a)+q-uint32(b))%q); got != want {
				t.Fatalf("fieldSub(%d, %d) = %d, want %d", a, b, got, want)
			}
			if got, want := fieldMul(a, b), fieldElement(uint32(a)*uint32(b)%q); got != want {
				t.Fatalf("fieldMul(%d, %d) = %d, want %d", a, b, got, want)
			}
		}
	}
}

// TestBarrettReduce checks fieldReduce on every input below 2^27, which
// covers every value the code produces, and with -fips203.exhaustive on
// every 32-bit input.
func TestBarrettReduce(t *testing.T) {
	limit := uint64(1) << 27
	if *exhaustive {
		limit = 1 << 32
	}
	for x := uint64(0); x < limit; x++ {
		if got := fieldReduce(uint32(x)); uint64(got) != x%q {
			t.Fatalf("fieldReduce(%d) = %d, want %d", x, got, x%q)
		}
	}
}

// TestShoupExhaustive checks the Shoup multiplication by every constant the
// code multiplies by, on every 16-bit input.
func TestShoupExhaustive(t *testing.T) {
	check := func(w fieldElement, ws uint32) {
		for a := range uint32(1 << 16) {
			r := mulShoupLazy(a, uint32(w), ws)
			if r >= 2*q || r%q != a*uint32(w)%q {
				t.Fatalf("mulShoupLazy(%d, %d) = %d, want %d mod q in [0, 2q)", a, w, r, a*uint32(w)%q)
			}
			if got := fieldMulShoup(fieldElement(a), w, ws); uint32(got) != a*uint32(w)%q {
				t.Fatalf("fieldMulShoup(%d, %d) = %d", a, w, got)
			}
		}
	}
	for i := range 128 {
		check(zetas[i], zetasShoup[i])
		check(gammas[i], gammasShoup[i])
	}
	check(nInverse, nInverseShoup)
}

func TestZetas(t *testing.T) {
	// Spot values from FIPS 203, Appendix A.
	if zetas[0] != 1 || zetas[1] != 1729 || zetas[127] != 2154 {
		t.Errorf("zetas = %d, %d, ..., %d", zetas[0], zetas[1], zetas[127])
	}
	if gammas[0] != 17 || gammas[1] != q-17 || gammas[127] != 1175 {
		t.Errorf("gammas = %d, %d, ..., %d", gammas[0], gammas[1], gammas[127])
	}
}

func TestNTTRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for range 1000 {
		f := new(ringElement)
		*f = randomBounded(r, q)
		g := *f
		if got := inverseNTT(ntt(&g)); *got != *f {
			t.Fatal("inverseNTT(ntt(f)) != f")
		}
	}
	// All zero and all q-1.
	var f ringElement
	for i := range f {
		f[i] = q - 1
	}
	g := f
	if got := inverseNTT(ntt(&g)); *got != f {
		t.Fatal("inverseNTT(ntt(q-1 ...)) != q-1 ...")
	}
}

// schoolbook multiplies in R_q = Z_q[X]/(X^256 + 1) directly.
func schoolbook(a, b *ringElement) ringElement {
	var c [2 * n]uint64
	for i := range n {
		for j := range n {
			c[i+j] += uint64(a[i]) * uint64(b[j])
		}
	}
	var r ringElement
	for i := range n {
		r[i] = fieldElement((c[i] + (q*q*n - c[i+n])) % q)
	}
	return r
}

// TestMultiplyNTTs checks that the NTT, the accumulated base-case
// multiplication and the inverse NTT multiply polynomials in R_q.
func TestMultiplyNTTs(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for range 50 {
		var a, b [maxK]ringElement
		var want ringElement
		for i := range maxK {
			a[i], b[i] = randomBounded(r, q), randomBounded(r, q)
			p := schoolbook(&a[i], &b[i])
			for x := range want {
				want[x] = fieldAdd(want[x], p[x])
			}
		}
		var acc nttAccumulator
		for i := range maxK {
			aHat, bHat := ntt(&a[i]), ntt(&b[i])
			var c nttCache
			c.compute(bHat)
			acc.mulAdd(aHat, bHat, &c)
		}
		var out nttElement
		acc.reduce(&out)
		if got := inverseNTT(&out); *got != want {
			t.Fatal("sum of NTT products differs from the schoolbook product")
		}
	}
}

// TestSamplePolyCBD compares the bit-sliced sampler with Algorithm 8 read
// literally.
func TestSamplePolyCBD(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for _, eta := range []int{2, 3} {
		for range 200 {
			b := make([]byte, 64*eta)
			for i := range b {
				b[i] = byte(r.Uint32())
			}
			bit := func(i int) int { return int(b[i/8] >> (i % 8) & 1) }
			var f ringElement
			samplePolyCBD(&f, b, eta)
			for i := range n {
				x, y := 0, 0
				for j := range eta {
					x += bit(2*i*eta + j)
					y += bit(2*i*eta + eta + j)
				}
				if want := fieldElement((x - y + q) % q); f[i] != want {
					t.Fatalf("eta %d: coefficient %d = %d, want %d", eta, i, f[i], want)
				}
			}
		}
	}
}

func TestEncodeRoundTrip(t *testing.T) {
	// Every 12-bit coefficient through ByteEncode12 and ByteDecode12, in
	// every position parity.
	for v := range uint16(4096) {
		var f nttElement
		for i := range f {
			f[i] = fieldElement((v + uint16(i)) % 4096)
		}
		b := byteEncode12(nil, &f)
		var g nttElement
		err := byteDecode12Check(&g, b)
		hasUnreduced := false
		for i := range f {
			if f[i] >= q {
				hasUnreduced = true
			}
		}
		if hasUnreduced != (err != nil) {
			t.Fatalf("byteDecode12Check error %v for values from %d", err, v)
		}
		var h nttElement
		if valid := byteDecode12Secret(&h, b); valid != 1-boolInt(hasUnreduced) {
			t.Fatalf("byteDecode12Secret valid = %d for values from %d", valid, v)
		}
		for i := range f {
			if h[i] != f[i]%q {
				t.Fatalf("byteDecode12Reduce: %d, want %d", h[i], f[i]%q)
			}
			if err == nil && g[i] != f[i] {
				t.Fatalf("byteDecode12Check: %d, want %d", g[i], f[i])
			}
		}
	}
	// Every coefficient through compress-encode, decode-decompress.
	for _, d := range []uint8{1, 4, 5, 10, 11} {
		for start := 0; start < q; start += n {
			var f ringElement
			for i := range f {
				f[i] = fieldElement((start + i) % q)
			}
			b := ringCompressAndEncode(nil, &f, d)
			if len(b) != 32*int(d) {
				t.Fatalf("d = %d: encoding is %d bytes", d, len(b))
			}
			var g ringElement
			ringDecodeAndDecompress(&g, b, d)
			for i := range f {
				if want := decompress(compress(f[i], d), d); g[i] != want {
					t.Fatalf("d = %d: coefficient %d = %d, want %d", d, f[i], g[i], want)
				}
			}
		}
	}
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// randomBounded returns a polynomial of coefficients below bound.
func randomBounded(r *rand.Rand, bound int) ringElement {
	var f ringElement
	for i := range f {
		f[i] = fieldElement(r.IntN(bound))
	}
	return f
}
