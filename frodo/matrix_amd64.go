//go:build amd64 && !purego

package frodo

import (
	"sync/atomic"
	"unsafe"

	"github.com/pqkem/pqkem/internal/cpuid"
	"golang.org/x/sys/cpu"
)

//go:noescape
func aesRowAsm(rk *[176]byte, out *uint16, i uint64, nblocks uint64)

//go:noescape
func aesRowVAES(rk *[176]byte, out *uint16, i uint64, nblocks uint64)

// cpuidVAES reports CPUID leaf 7's VAES bit (ECX bit 9).
func cpuidVAES() bool

//go:noescape
func dot8AVX2(out *uint16, row *uint16, st *uint16, n uint64)

//go:noescape
func sampleAVX2(s *uint16, n uint64, cdf *[cdfMaxSize][16]uint16, m uint64)

//go:noescape
func axpy4x8AVX2(bp *uint16, s *uint16, rows *uint16, n uint64, rowStride uint64)

// haveAESNI says whether the AES-NI row generator may run.
var haveAESNI = cpu.X86.HasAES && cpu.X86.HasSSE41

// haveVAES says whether the VAES row generator (VEX-encoded, on ymm) may
// run: VAES and AVX2, whose flag in x/sys/cpu includes the OS's saving of
// the ymm registers. x/sys/cpu reports VAES only with AVX-512
// (HasAVX512VAES), which CPUs with VAES on ymm alone (AMD Zen 3) lack, so
// the bit is read from CPUID directly.
var haveVAES = haveAESNI && cpu.X86.HasAVX2 && cpuidVAES()

// noVAES makes newAESECB choose AES-NI over VAES, for tests and
// benchmarks (see forceAESNI).
var noVAES atomic.Bool

// forceAESNI makes newAESECB choose the AES-NI routine over VAES while on
// is true, and returns a function that restores the previous setting.
func forceAESNI(on bool) (restore func()) {
	old := noVAES.Swap(on)
	return func() { noVAES.Store(old) }
}

func dot8(out []uint16, row []uint16, st []uint16, n int) {
	if cpuid.AVX2() && n%16 == 0 {
		_, _, _ = out[nbar-1], row[n-1], st[nbar*n-1]
		dot8AVX2(&out[0], &row[0], &st[0], uint64(n))
		return
	}
	dot8Generic(out, row, st, n)
}

// sample replaces each entry of s with a sample of the error distribution
// (see sampleGeneric).
func (p *ParameterSet) sample(s []uint16) {
	if m := len(s) &^ 15; m > 0 && cpuid.AVX2() {
		sampleAVX2(&s[0], uint64(m), &p.cdfVec, uint64(len(p.cdf)-1))
		s = s[m:]
	}
	p.sampleGeneric(s)
}

func axpy4x8(bp []uint16, sp []uint16, r *rowBuf, i, n int) {
	if cpuid.AVX2() && n%16 == 0 {
		_, _ = bp[nbar*n-1], sp[(nbar-1)*n+i+3]
		axpy4x8AVX2(&bp[0], &sp[i], &r.rows[0][0], uint64(n), maxN)
		return
	}
	axpy4x8Generic(bp, sp, r, i, n)
}

// aesECB is the assembly row generator: the expanded AES-128 key, and
// whether to use VAES (sixteen blocks at a time on ymm) or AES-NI (eight
// on xmm).
type aesECB struct {
	rk   [176]byte
	vaes bool
}

// newAESECB returns the assembly generator for key, or nil if the CPU
// lacks AES-NI or a test forced the generic path.
func newAESECB(key []byte) *aesECB {
	if !haveAESNI || cpuid.AVX2() != cpuid.HasAVX2() {
		return nil
	}
	e := &aesECB{vaes: haveVAES && !noVAES.Load()}
	expandKey128(&e.rk, key)
	return e
}

func (e *aesECB) rows4(i, n int, r *rowBuf) {
	for k := range 4 {
		if e.vaes {
			aesRowVAES(&e.rk, &r.rows[k][0], uint64(i+k), uint64(n/8))
		} else {
			aesRowAsm(&e.rk, &r.rows[k][0], uint64(i+k), uint64(n/8))
		}
	}
}

// shakeRowBytes returns row k of r as l bytes, for SHAKE128 to squeeze
// into directly: amd64 is little-endian, so the bytes are the row's words.
func shakeRowBytes(r *rowBuf, k int, l int) []byte {
	return unsafe.Slice((*byte)(unsafe.Pointer(&r.rows[k][0])), 2*maxN)[:l]
}

// shakeRowsDone has nothing to do: the rows are already words.
func shakeRowsDone(r *rowBuf, n int) {}

// rowScratch is empty: SHAKE128 squeezes into the rows themselves.
type rowScratch = struct{}
