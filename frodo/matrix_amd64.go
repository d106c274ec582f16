//go:build amd64 && !purego

package frodo

import (
	"crypto/cipher"
	"unsafe"

	"github.com/pqkem/pqkem/internal/cpuid"
	"github.com/pqkem/pqkem/internal/keccak"
	"golang.org/x/sys/cpu"
)

//go:noescape
func aesRowAsm(rk *[176]byte, out *uint16, i uint64, nblocks uint64)

//go:noescape
func aesRowVAES(rk *[176]byte, out *uint16, i uint64, nblocks uint64)

//go:noescape
func aesRowVAES512(rk *[176]byte, out *uint16, i uint64, nblocks uint64)

//go:noescape
func dot8AVX2(out *uint16, row *uint16, st *uint16, n uint64)

//go:noescape
func sampleAVX2(s *uint16, n uint64, cdf *[cdfMaxSize][16]uint16, m uint64)

//go:noescape
func axpy4x8AVX2(bp *uint16, s *uint16, rows *uint16, n uint64, rowStride uint64)

// The dispatch of the amd64 build: each function below runs its assembly
// twin (matrix_amd64.s, dot_amd64.s) where the package's level (see level)
// and the CPU allow, else its Go form (the same name with Generic);
// matrix_noasm.go has the same names, which run the Go forms only.

// runLevel is the level operations run at now: level, or generic while a
// benchmark or another package's test holds cpuid.ForceGeneric.
func runLevel() cpuid.Level {
	if !cpuid.AVX2() {
		return cpuid.LevelGeneric
	}
	return level
}

// aesByLevel is, for each level, the fastest AES row generator this CPU
// runs at it: the AES features are checked here and nowhere else.
//
//   - AES-NI (with SSE4.1 for its word inserts), not a vector level, runs at
//     every level; without it crypto/aes does;
//   - VAES on ymm (VEX-encoded) needs the AVX2 level and VAES
//     ([cpuid.HasVAES], which PQKEM_CPU caps like AVX2);
//   - VAES on zmm needs the AVX-512 level (AVX-512F with the OS's saving of
//     the zmm and mask registers, which cpuid.Max includes), VAES with
//     AVX-512 (cpu.X86.HasAVX512VAES), and BMI2 for its tail mask.
var aesByLevel = func() (b [cpuid.LevelAVX512 + 1]aesImpl) {
	for l := range b {
		lv := min(cpuid.Level(l), cpuid.Max())
		switch {
		case !cpu.X86.HasAES || !cpu.X86.HasSSE41:
			b[l] = aesGo
		case lv >= cpuid.LevelAVX512 && cpuid.HasVAES() && cpu.X86.HasAVX512VAES && cpu.X86.HasBMI2:
			b[l] = aesVAES512
		case lv >= cpuid.LevelAVX2 && cpuid.HasVAES():
			b[l] = aesVAES
		default:
			b[l] = aesNI
		}
	}
	return b
}()

// aesFastest returns the fastest AES row generator this CPU runs at level
// l.
func aesFastest(l cpuid.Level) aesImpl { return aesByLevel[max(l, cpuid.LevelGeneric)] }

// dot8 sets out[k] += <row, st[k*n:(k+1)*n]> for k < 8 (see dot8Generic).
func dot8(out []uint16, row []uint16, st []uint16, n int) {
	if n%16 == 0 && runLevel() >= cpuid.LevelAVX2 {
		_, _, _ = out[nbar-1], row[n-1], st[nbar*n-1]
		dot8AVX2(&out[0], &row[0], &st[0], uint64(n))
		return
	}
	dot8Generic(out, row, st, n)
}

// hasVNNI reports whether the AVX-512 level also has AVX-512 VNNI for
// dot8x2VNNI (Ice Lake, Zen 4 and later; not Skylake-X).
var hasVNNI = cpu.X86.HasAVX512VNNI

// dot8x2 is dot8 for two rows of A, row m at rows[m*stride:][:n], adding
// row m's products to out[8m:8m+8] (see dot8x2Generic).
func dot8x2(out []uint16, rows []uint16, stride int, st []uint16, n int) {
	if n%16 == 0 && hasVNNI && runLevel() >= cpuid.LevelAVX512 {
		_, _, _ = out[2*nbar-1], rows[stride+n-1], st[nbar*n-1]
		dot8x2VNNI(&out[0], &rows[0], uint64(stride), &st[0], uint64(n))
		return
	}
	dot8(out[:nbar], rows[:n], st, n)
	dot8(out[nbar:2*nbar], rows[stride:stride+n], st, n)
}

// sample replaces each entry of s with a sample of the error distribution
// (see sampleGeneric): with AVX2 sixteen at a time, the rest in Go.
func (p *ParameterSet) sample(s []uint16) {
	if m := len(s) &^ 15; m > 0 && runLevel() >= cpuid.LevelAVX2 {
		sampleAVX2(&s[0], uint64(m), &p.cdfVec, uint64(len(p.cdf)-1))
		s = s[m:]
	}
	p.sampleGeneric(s)
}

// axpy4x8 adds, for the four rows of A i..i+3 and each k < 8,
// sp[k][i+m] * A[i+m] to bp[k] (see axpy4x8Generic).
func axpy4x8(bp []uint16, sp []uint16, rows []uint16, stride, i, n int) {
	if n%16 == 0 && runLevel() >= cpuid.LevelAVX2 {
		_, _, _ = bp[nbar*n-1], sp[(nbar-1)*n+i+3], rows[3*stride+n-1]
		axpy4x8AVX2(&bp[0], &sp[i], &rows[0], uint64(n), uint64(stride))
		return
	}
	axpy4x8Generic(bp, sp, rows, stride, i, n)
}

// aesGen generates rows of A for one seedA with AES-128: with an assembly
// routine and the expanded key, or with crypto/aes (aesGo).
type aesGen struct {
	impl  aesImpl
	rk    [176]byte    // the round keys, for the assembly
	block cipher.Block // crypto/aes's cipher, for aesGo
}

// init readies g for key with the fastest generator of the level
// operations run at now, or a slower one a test forced (forceAES).
func (g *aesGen) init(key []byte) {
	g.impl = aesFastest(runLevel())
	if f := aesImpl(aesForced.Load() - 1); f >= aesGo && f < g.impl {
		g.impl = f
	}
	g.block = nil
	if g.impl == aesGo {
		g.block = newAESBlock(key)
		return
	}
	expandKey128(&g.rk, key)
}

// rows4 sets rows 0..3 of r to rows i..i+3 of A, n words each.
func (g *aesGen) rows4(i, n int, r *rowBuf) {
	if g.impl == aesGo {
		aesRows4Generic(g.block, i, n, r)
		return
	}
	for k := range 4 {
		switch g.impl {
		case aesVAES512:
			aesRowVAES512(&g.rk, &r.row(k)[0], uint64(i+k), uint64(n/8))
		case aesVAES:
			aesRowVAES(&g.rk, &r.row(k)[0], uint64(i+k), uint64(n/8))
		default:
			aesRowAsm(&g.rk, &r.row(k)[0], uint64(i+k), uint64(n/8))
		}
	}
}

// readUint16s fills out with little-endian 16-bit words read from h:
// amd64 is little-endian, so h writes the words' bytes in place.
func readUint16s(h *keccak.SHAKE, out []uint16) { h.Read(wordBytes(out)) }

// shakeRowBytes returns row k of r as l bytes, for SHAKE128 to squeeze
// into directly: amd64 is little-endian, so the bytes are the row's words.
func shakeRowBytes(r *rowBuf, k int, l int) []byte { return wordBytes(r.row(k))[:l] }

// wordBytes returns the bytes of w, little-endian words in place (amd64
// is little-endian).
func wordBytes(w []uint16) []byte {
	return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(w))), 2*len(w))
}

// shakeRowsDone has nothing to do: the rows are already words.
func shakeRowsDone(r *rowBuf, n, rows int) {}

// wideRows reports whether SHAKE128 rows of A are made eight at a time
// (matrixA.gen8): at the AVX-512 level, where keccak.X8 runs one
// eight-way permutation.
func wideRows() bool { return runLevel() >= cpuid.LevelAVX512 && keccak.Wide() }

// rowScratch is empty: SHAKE128 squeezes into the rows themselves.
type rowScratch = struct{}
