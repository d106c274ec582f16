package fips203

import (
	"math/rand/v2"
	"testing"

	"github.com/pqkem/pqkem/internal/cpuid"
)

// Differential tests of the assembly routines against their Go twins. On a
// machine or build without AVX2 they skip: the generic code is then the
// only code, and the rest of the tests cover it.

func requireAVX2(t testing.TB) {
	t.Helper()
	if !useAVX2() {
		if cpuid.HasAVX2() {
			t.Fatal("AVX2 present but the assembly path is disabled (ForceGeneric left on?)")
		}
		t.Skip("no AVX2 assembly in this build")
	}
}

// Edge inputs: all zero, all q-1, all of a value, alternating extremes.
func edgeRings(bound int) []ringElement {
	var out []ringElement
	for _, v := range []int{0, 1, q - 1, bound - 1, bound / 2} {
		var f ringElement
		for i := range f {
			f[i] = fieldElement(v)
		}
		out = append(out, f)
	}
	var alt, ramp ringElement
	for i := range alt {
		if i%2 == 0 {
			alt[i] = fieldElement(bound - 1)
		}
		ramp[i] = fieldElement(i * 13 % bound)
	}
	return append(out, alt, ramp)
}

func randomBounded(r *rand.Rand, bound int) ringElement {
	var f ringElement
	for i := range f {
		f[i] = fieldElement(r.IntN(bound))
	}
	return f
}

func checkNTT(t testing.TB, f ringElement) {
	t.Helper()
	g, h := f, f
	nttGeneric(&g)
	nttAVX2((*[n]uint16)(&h))
	if g != h {
		t.Fatalf("nttAVX2 differs from nttGeneric on input %v\ngot  %v\nwant %v", f, h, g)
	}
}

func checkInverseNTT(t testing.TB, f ringElement) {
	t.Helper()
	g, h := nttElement(f), nttElement(f)
	inverseNTTGeneric(&g)
	inverseNTTAVX2((*[n]uint16)(&h))
	if g != h {
		t.Fatalf("inverseNTTAVX2 differs from inverseNTTGeneric on input %v\ngot  %v\nwant %v", f, h, g)
	}
}

func TestNTTAsm(t *testing.T) {
	requireAVX2(t)
	for _, f := range edgeRings(q) {
		checkNTT(t, f)
	}
	r := rand.New(rand.NewPCG(11, 12))
	for range 2000 {
		checkNTT(t, randomBounded(r, q))
	}
	// Every coefficient value in every position: unit vectors scaled.
	for pos := range n {
		for _, v := range []int{1, q - 1, q / 2} {
			var f ringElement
			f[pos] = fieldElement(v)
			checkNTT(t, f)
		}
	}
}

func TestInverseNTTAsm(t *testing.T) {
	requireAVX2(t)
	// inverseNTT accepts lazily reduced input in [0, 2q).
	for _, bound := range []int{q, 2 * q} {
		for _, f := range edgeRings(bound) {
			checkInverseNTT(t, f)
		}
		r := rand.New(rand.NewPCG(13, uint64(bound)))
		for range 2000 {
			checkInverseNTT(t, randomBounded(r, bound))
		}
	}
	for pos := range n {
		for _, v := range []int{1, q - 1, 2*q - 1} {
			var f ringElement
			f[pos] = fieldElement(v)
			checkInverseNTT(t, f)
		}
	}
}

func checkCache(t testing.TB, b nttElement) {
	t.Helper()
	var c1, c2 nttCache
	c1.computeGeneric(&b)
	cacheAVX2((*[n / 2]uint16)(&c2), (*[n]uint16)(&b))
	if c1 != c2 {
		t.Fatalf("cacheAVX2 differs on %v\ngot  %v\nwant %v", b, c2, c1)
	}
}

func TestCacheAsm(t *testing.T) {
	requireAVX2(t)
	for _, f := range edgeRings(q) {
		checkCache(t, nttElement(f))
	}
	r := rand.New(rand.NewPCG(15, 16))
	for range 2000 {
		checkCache(t, nttElement(randomBounded(r, q)))
	}
	// Every odd-position value in every pair position, exhaustively.
	for v := range q {
		var b nttElement
		for i := range n / 2 {
			b[2*i+1] = fieldElement((v + 7*i) % q)
		}
		checkCache(t, b)
	}
}

func checkMulAdd(t testing.TB, acc nttAccumulator, a, b nttElement, bc nttCache) {
	t.Helper()
	acc1, acc2 := acc, acc
	acc1.mulAddGeneric(&a, &b, &bc)
	mulAddAVX2((*[n]uint32)(&acc2), (*[n]uint16)(&a), (*[n]uint16)(&b), (*[n / 2]uint16)(&bc))
	if acc1 != acc2 {
		t.Fatalf("mulAddAVX2 differs\ngot  %v\nwant %v", acc2, acc1)
	}
}

func TestMulAddAsm(t *testing.T) {
	requireAVX2(t)
	r := rand.New(rand.NewPCG(17, 18))
	edges := edgeRings(q)
	for _, a := range edges {
		for _, b := range edges {
			var bc nttCache
			bn := nttElement(b)
			bc.computeGeneric(&bn)
			checkMulAdd(t, nttAccumulator{}, nttElement(a), bn, bc)
		}
	}
	for range 2000 {
		a, b := nttElement(randomBounded(r, q)), nttElement(randomBounded(r, q))
		var bc nttCache
		for i := range bc {
			bc[i] = fieldElement(r.IntN(q))
		}
		var acc nttAccumulator
		for i := range acc {
			acc[i] = r.Uint32() >> 4
		}
		checkMulAdd(t, acc, a, b, bc)
	}
}

func checkReduce(t testing.TB, acc nttAccumulator, e *nttElement) {
	t.Helper()
	acc1, acc2 := acc, acc
	var f1, f2 nttElement
	if e == nil {
		acc1.reduceGeneric(&f1)
		reduceAVX2((*[n]uint16)(&f2), (*[n]uint32)(&acc2))
	} else {
		acc1.reduceAddGeneric(&f1, e)
		reduceAddAVX2((*[n]uint16)(&f2), (*[n]uint32)(&acc2), (*[n]uint16)(e))
	}
	if f1 != f2 || acc1 != acc2 {
		t.Fatalf("reduce differs on %v (e = %v)\ngot  %v\nwant %v", acc, e, f2, f1)
	}
}

// TestReduceAsm checks the accumulator reduction on every input below
// 2^26 (all that k <= 4 products of canonical values can sum to is below
// 4 * 2q^2 < 2^27; the sweep continues to 2^27 unless -short), on the
// extremes of its documented domain [0, 2^30), and on random inputs.
func TestReduceAsm(t *testing.T) {
	requireAVX2(t)
	limit := uint32(1) << 27
	if testing.Short() {
		limit = 1 << 24
	}
	var acc nttAccumulator
	for x := uint32(0); x < limit; x += n {
		for i := range acc {
			acc[i] = x + uint32(i)
		}
		checkReduce(t, acc, nil)
	}
	for x := uint32(1<<30) - 1<<16; x < 1<<30; x += n {
		for i := range acc {
			acc[i] = x + uint32(i)
		}
		checkReduce(t, acc, nil)
	}
	r := rand.New(rand.NewPCG(19, 20))
	for range 2000 {
		for i := range acc {
			acc[i] = r.Uint32() >> 2
		}
		e := nttElement(randomBounded(r, q))
		checkReduce(t, acc, nil)
		checkReduce(t, acc, &e)
	}
	var e nttElement
	for i := range e {
		e[i] = q - 1
	}
	for i := range acc {
		acc[i] = 1<<30 - 1 - q
	}
	checkReduce(t, acc, &e)
}
