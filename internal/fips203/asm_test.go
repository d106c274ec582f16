//go:build amd64 && !purego

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
	// The tests call the assembly directly, so only the CPU and the build
	// matter, not the ForceGeneric switch.
	if !cpuid.HasAVX2() {
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

// nttAsm are the assembly NTTs this machine runs, by name.
func nttAsm() (names []string, fwd, inv []func(*[n]uint16)) {
	names, fwd, inv = []string{"AVX2"}, []func(*[n]uint16){nttAVX2}, []func(*[n]uint16){inverseNTTAVX2}
	if cpuid.HasAVX512() {
		names = append(names, "AVX512")
		fwd = append(fwd, nttAVX512)
		inv = append(inv, inverseNTTAVX512)
	}
	return names, fwd, inv
}

func checkNTT(t testing.TB, f ringElement) {
	t.Helper()
	g := f
	nttGeneric(&g)
	names, fwd, _ := nttAsm()
	for i, asm := range fwd {
		h := f
		asm((*[n]uint16)(&h))
		if g != h {
			t.Fatalf("ntt%s differs from nttGeneric on input %v\ngot  %v\nwant %v", names[i], f, h, g)
		}
	}
}

func checkInverseNTT(t testing.TB, f ringElement) {
	t.Helper()
	g := nttElement(f)
	inverseNTTGeneric(&g)
	names, _, inv := nttAsm()
	for i, asm := range inv {
		h := nttElement(f)
		asm((*[n]uint16)(&h))
		if g != h {
			t.Fatalf("inverseNTT%s differs from inverseNTTGeneric on input %v\ngot  %v\nwant %v", names[i], f, h, g)
		}
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

// TestInnerProductReduction drives the reduction of innerProduct over
// every product x*y with x, y in [0, q) (k = 1, b1 = bc = 0, so each even
// output is a0*b0 and each odd one a1*b0), then over the largest sums
// (k = 4, every input q-1, plus e = q-1).
func TestInnerProductReduction(t *testing.T) {
	requireAVX2(t)
	var b [maxK]nttElement
	var bc [maxK]nttCache
	var a [1]nttElement
	step := 1
	if testing.Short() {
		step = 7
	}
	for y := 0; y < q; y += step {
		for i := range n / 2 {
			b[0][2*i], b[0][2*i+1] = fieldElement(y), 0
		}
		for x0 := 0; x0 < q; x0 += n {
			for i := range n {
				a[0][i] = fieldElement((x0 + i) % q)
			}
			var got nttElement
			innerProduct(&got, a[:], 1, b[:], bc[:], 1, nil)
			for i := range n / 2 {
				want0 := fieldElement(uint32(a[0][2*i]) * uint32(y) % q)
				want1 := fieldElement(uint32(a[0][2*i+1]) * uint32(y) % q)
				if got[2*i] != want0 || got[2*i+1] != want1 {
					t.Fatalf("innerProduct of (%d, %d) by (%d, 0) = (%d, %d), want (%d, %d)",
						a[0][2*i], a[0][2*i+1], y, got[2*i], got[2*i+1], want0, want1)
				}
			}
		}
	}
	var full [maxK]nttElement
	var e nttElement
	for j := range maxK {
		for i := range n {
			full[j][i], b[j][i], e[i] = q-1, q-1, q-1
		}
		for i := range bc[j] {
			bc[j][i] = q - 1
		}
	}
	// Each output is 4 * 2(q-1)^2 + (q-1) = 9(q-1)^2 ... mod q.
	var got nttElement
	innerProduct(&got, full[:], 1, b[:], bc[:], maxK, &e)
	want := fieldElement((8*uint64(q-1)*(q-1) + q - 1) % q)
	for i := range got {
		if got[i] != want {
			t.Fatalf("innerProduct at the maximal sum: %d, want %d", got[i], want)
		}
	}
}

var compressionWidths = []uint8{1, 4, 5, 10, 11}

func checkCompressEncode(t testing.TB, f ringElement, d uint8) {
	t.Helper()
	restore := cpuLevels.Force(cpuid.LevelGeneric)
	want := ringCompressAndEncode(nil, &f, d)
	restore()
	// Surround the output with canaries to catch stray stores.
	buf := make([]byte, 64+len(want)+64)
	for i := range buf {
		buf[i] = 0xa5
	}
	out := buf[64 : 64+len(want)]
	compressEncodeAVX2(out, &f, d)
	if string(out) != string(want) {
		t.Fatalf("d = %d: compressEncodeAVX2 differs on %v\ngot  %x\nwant %x", d, f, out, want)
	}
	for i := range 64 {
		if buf[i] != 0xa5 || buf[len(buf)-1-i] != 0xa5 {
			t.Fatalf("d = %d: compressEncodeAVX2 wrote outside its output", d)
		}
	}
}

func checkDecodeDecompress(t testing.TB, b []byte, d uint8) {
	t.Helper()
	var g, h ringElement
	restore := cpuLevels.Force(cpuid.LevelGeneric)
	ringDecodeAndDecompress(&g, b, d)
	restore()
	decodeDecompressAVX2(&h, b, d)
	if g != h {
		t.Fatalf("d = %d: decodeDecompressAVX2 differs on %x\ngot  %v\nwant %v", d, b, h, g)
	}
}

// TestCompressEncodeAsm runs every value in [0, q) through every lane
// position (the lanes are independent, so this is exhaustive per lane),
// plus edge and random polynomials.
func TestCompressEncodeAsm(t *testing.T) {
	requireAVX2(t)
	r := rand.New(rand.NewPCG(23, 24))
	for _, d := range compressionWidths {
		for start := 0; start < q; start++ {
			var f ringElement
			for i := range f {
				f[i] = fieldElement((start + 13*i) % q)
			}
			checkCompressEncode(t, f, d)
		}
		for _, f := range edgeRings(q) {
			checkCompressEncode(t, f, d)
		}
		for range 500 {
			checkCompressEncode(t, randomBounded(r, q), d)
		}
	}
}

func TestDecodeDecompressAsm(t *testing.T) {
	requireAVX2(t)
	r := rand.New(rand.NewPCG(25, 26))
	for _, d := range compressionWidths {
		size := 32 * int(d)
		for _, fill := range []byte{0, 0xff, 0x55, 0xaa} {
			b := make([]byte, size)
			for i := range b {
				b[i] = fill
			}
			checkDecodeDecompress(t, b, d)
		}
		// Every d-bit value in every position (values of step 1, shifted).
		for start := range 1 << d {
			var f ringElement
			for i := range f {
				f[i] = fieldElement((start + i) % (1 << d))
			}
			// Encode the raw d-bit values with the generic bit packer by
			// choosing x with Compress_d(x) = value: Decompress_d inverts
			// Compress_d on its range.
			for i := range f {
				f[i] = decompress(f[i], d)
			}
			restore := cpuLevels.Force(cpuid.LevelGeneric)
			b := ringCompressAndEncode(nil, &f, d)
			restore()
			checkDecodeDecompress(t, b, d)
		}
		for range 1000 {
			b := make([]byte, size)
			for i := range b {
				b[i] = byte(r.Uint32())
			}
			checkDecodeDecompress(t, b, d)
		}
		// Trailing bytes beyond 32 d are ignored.
		b := make([]byte, size+7)
		for i := range b {
			b[i] = byte(r.Uint32())
		}
		checkDecodeDecompress(t, b, d)
	}
}

func checkEncodeDecode12(t testing.TB, f nttElement) {
	t.Helper()
	restore := cpuLevels.Force(cpuid.LevelGeneric)
	want := byteEncode12(nil, &f)
	var g1 nttElement
	valid1 := byteDecode12Secret(&g1, want)
	var g2 nttElement
	err2 := byteDecode12Check(&g2, want)
	restore()
	buf := make([]byte, 32+len(want)+32)
	out := buf[32 : 32+len(want)]
	encode12AVX2((*[encodingSize12]byte)(out), (*[n]uint16)(&f))
	if string(out) != string(want) {
		t.Fatalf("encode12AVX2 differs on %v\ngot  %x\nwant %x", f, out, want)
	}
	for i := range 32 {
		if buf[i] != 0 || buf[len(buf)-1-i] != 0 {
			t.Fatal("encode12AVX2 wrote outside its output")
		}
	}
	var h nttElement
	valid2 := decode12AVX2((*[n]uint16)(&h), (*[encodingSize12]byte)(want))
	if valid1 != valid2 || h != g1 {
		t.Fatalf("decode12AVX2 = %d, %v; want %d, %v", valid2, h, valid1, g1)
	}
	if (err2 == nil) != (valid2 == 1) || (err2 == nil && h != g2) {
		t.Fatalf("decode12AVX2 = %d, %v; byteDecode12Check: %v, %v", valid2, h, err2, g2)
	}
}

// TestEncode12Asm covers every 12-bit value (including the invalid ones
// from q to 4095) in every lane, one invalid value alone in every position,
// and random polynomials.
func TestEncode12Asm(t *testing.T) {
	requireAVX2(t)
	for start := range 4096 {
		var f nttElement
		for i := range f {
			f[i] = fieldElement((start + 17*i) % 4096)
		}
		checkEncodeDecode12(t, f)
	}
	r := rand.New(rand.NewPCG(27, 28))
	for pos := range n {
		f := nttElement(randomBounded(r, q))
		f[pos] = fieldElement(q + r.IntN(4096-q))
		checkEncodeDecode12(t, f)
		f[pos] = q - 1
		checkEncodeDecode12(t, f)
	}
	for range 1000 {
		checkEncodeDecode12(t, nttElement(randomBounded(r, q)))
	}
}

func checkCBD(t testing.TB, b []byte, eta int) {
	t.Helper()
	var g, h ringElement
	samplePolyCBDGeneric(&g, b, eta)
	samplePolyCBDAVX2(&h, b, eta)
	if g != h {
		t.Fatalf("eta %d: samplePolyCBDAVX2 differs on %x\ngot  %v\nwant %v", eta, b, h, g)
	}
}

// TestSamplePolyCBDAsm runs every byte value through every byte position,
// plus random inputs; with the lanes independent, every coefficient sees
// every bit pattern it can.
func TestSamplePolyCBDAsm(t *testing.T) {
	requireAVX2(t)
	r := rand.New(rand.NewPCG(29, 30))
	for _, eta := range []int{2, 3} {
		size := 64 * eta
		for v := range 256 {
			for _, stride := range []int{1, 7} {
				b := make([]byte, size)
				for i := range b {
					b[i] = byte(v + stride*i)
				}
				checkCBD(t, b, eta)
			}
		}
		for range 1000 {
			b := make([]byte, size)
			for i := range b {
				b[i] = byte(r.Uint32())
			}
			checkCBD(t, b, eta)
		}
	}
}

// TestPolyAddSubAsm covers every pair (a, b) in [0, q)^2.
func TestPolyAddSubAsm(t *testing.T) {
	requireAVX2(t)
	pairs := q * q
	if testing.Short() {
		pairs = 1 << 20
	}
	var a, b ringElement
	for p := 0; p < pairs; p += n {
		for i := range a {
			x := (p + i) % (q * q)
			a[i], b[i] = fieldElement(x/q), fieldElement(x%q)
		}
		var s, d ringElement
		polyAddAVX2((*[n]uint16)(&s), (*[n]uint16)(&a), (*[n]uint16)(&b))
		polySubAVX2((*[n]uint16)(&d), (*[n]uint16)(&a), (*[n]uint16)(&b))
		for i := range a {
			if s[i] != fieldAdd(a[i], b[i]) || d[i] != fieldSub(a[i], b[i]) {
				t.Fatalf("polyAdd/SubAVX2(%d, %d) = %d, %d", a[i], b[i], s[i], d[i])
			}
		}
	}
	// Aliasing: f = a.
	c := a
	polyAddAVX2((*[n]uint16)(&c), (*[n]uint16)(&c), (*[n]uint16)(&b))
	for i := range c {
		if c[i] != fieldAdd(a[i], b[i]) {
			t.Fatal("polyAddAVX2 with f = a")
		}
	}
}

// TestInnerProductAsm compares innerProduct on the AVX2 path with the
// generic path, for every k and both strides, with and without e, on
// random and extreme inputs (every input q-1 maximizes the sums).
func TestInnerProductAsm(t *testing.T) {
	requireAVX2(t)
	r := rand.New(rand.NewPCG(31, 32))
	for iter := range 300 {
		var a [maxK * maxK]nttElement
		var b [maxK]nttElement
		var bc [maxK]nttCache
		var e nttElement
		fill := func(p *nttElement) {
			for i := range p {
				switch iter {
				case 0:
					p[i] = q - 1
				case 1:
					p[i] = 0
				default:
					p[i] = fieldElement(r.IntN(q))
				}
			}
		}
		for i := range a {
			fill(&a[i])
		}
		for j := range maxK {
			fill(&b[j])
			bc[j].computeGeneric(&b[j])
			if iter == 0 {
				for i := range bc[j] {
					bc[j][i] = q - 1
				}
			}
		}
		fill(&e)
		for k := 1; k <= maxK; k++ {
			for _, stride := range []int{1, k} {
				for _, ep := range []*nttElement{nil, &e} {
					var want, got nttElement
					restore := cpuLevels.Force(cpuid.LevelGeneric)
					innerProduct(&want, a[1:], stride, b[:], bc[:], k, ep)
					restore()
					innerProduct(&got, a[1:], stride, b[:], bc[:], k, ep)
					if got != want {
						t.Fatalf("k = %d, stride %d, e %v: innerProduct differs\ngot  %v\nwant %v", k, stride, ep != nil, got, want)
					}
				}
			}
		}
	}
}
