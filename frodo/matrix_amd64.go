//go:build amd64 && !purego

package frodo

import (
	"crypto/sha3"
	"sync/atomic"
	"unsafe"

	"github.com/pqkem/pqkem/internal/cpuid"
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

// haveAESNI says whether the AES-NI row generator may run.
var haveAESNI = cpu.X86.HasAES && cpu.X86.HasSSE41

// aesImpl is one of the assembly AES row generators.
type aesImpl int32

const (
	aesNI      aesImpl = iota // AES-NI on xmm, eight blocks at a time (aesRowAsm)
	aesVAES                   // VAES on ymm, sixteen blocks (aesRowVAES)
	aesVAES512                // VAES on zmm, 32 blocks (aesRowVAES512)
)

// aesImplNames are the implementations' names, for tests.
var aesImplNames = [...]string{aesNI: "AES-NI", aesVAES: "VAES", aesVAES512: "VAES-512"}

// aesBest is the fastest implementation the CPU runs, if haveAESNI.
//
// VAES on ymm (VEX-encoded) needs VAES and AVX2 ([cpuid.HasVAES]). VAES on
// zmm needs AVX-512F (with the OS's saving of the zmm and mask registers,
// which [cpuid.HasAVX512] includes, as it does PQKEM_CPU), VAES, and BMI2
// for its tail mask.
var aesBest = func() aesImpl {
	switch {
	case !cpuid.HasVAES():
		return aesNI
	case cpuid.HasAVX512() && cpu.X86.HasAVX512VAES && cpu.X86.HasBMI2:
		return aesVAES512
	default:
		return aesVAES
	}
}()

// aesForced is 1 + the implementation forceAES asked for, or 0.
var aesForced atomic.Int32

// forceAES makes newAESECB choose impl, or aesBest if that is slower,
// and returns a function that restores the previous setting. For tests
// and benchmarks.
func forceAES(impl aesImpl) (restore func()) {
	old := aesForced.Swap(int32(impl) + 1)
	return func() { aesForced.Store(old) }
}

// aesImplsByName lists the implementations this CPU runs, fastest (the
// default) first, by name; force makes new operations use one.
func aesImplsByName() (names []string, force func(name string) (restore func())) {
	if haveAESNI {
		for impl := aesBest; impl >= aesNI; impl-- {
			names = append(names, aesImplNames[impl])
		}
	}
	force = func(name string) func() {
		for impl, n := range aesImplNames {
			if n == name {
				return forceAES(aesImpl(impl))
			}
		}
		panic("frodo: unknown AES implementation " + name)
	}
	return names, force
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

func axpy4x8(bp []uint16, sp []uint16, rows []uint16, stride, i, n int) {
	if cpuid.AVX2() && n%16 == 0 {
		_, _, _ = bp[nbar*n-1], sp[(nbar-1)*n+i+3], rows[3*stride+n-1]
		axpy4x8AVX2(&bp[0], &sp[i], &rows[0], uint64(n), uint64(stride))
		return
	}
	axpy4x8Generic(bp, sp, rows, stride, i, n)
}

// aesECB is the assembly row generator: the expanded AES-128 key and the
// implementation to run.
type aesECB struct {
	rk   [176]byte
	impl aesImpl
}

// newAESECB returns the assembly generator for key, or nil if the CPU
// lacks AES-NI or a test forced the generic path.
func newAESECB(key []byte) *aesECB {
	if !haveAESNI || cpuid.AVX2() != cpuid.HasAVX2() {
		return nil
	}
	e := &aesECB{impl: aesBest}
	if f := aesImpl(aesForced.Load() - 1); f >= aesNI && f < e.impl {
		e.impl = f
	}
	expandKey128(&e.rk, key)
	return e
}

func (e *aesECB) rows4(i, n int, r *rowBuf) {
	for k := range 4 {
		switch e.impl {
		case aesVAES512:
			aesRowVAES512(&e.rk, &r.row(k)[0], uint64(i+k), uint64(n/8))
		case aesVAES:
			aesRowVAES(&e.rk, &r.row(k)[0], uint64(i+k), uint64(n/8))
		default:
			aesRowAsm(&e.rk, &r.row(k)[0], uint64(i+k), uint64(n/8))
		}
	}
}

// readUint16s fills out with little-endian 16-bit words read from h:
// amd64 is little-endian, so h writes the words' bytes in place.
func readUint16s(h *sha3.SHAKE, out []uint16) {
	h.Read(unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(out))), 2*len(out)))
}

// shakeRowBytes returns row k of r as l bytes, for SHAKE128 to squeeze
// into directly: amd64 is little-endian, so the bytes are the row's words.
func shakeRowBytes(r *rowBuf, k int, l int) []byte {
	return unsafe.Slice((*byte)(unsafe.Pointer(&r.row(k)[0])), 2*maxN)[:l]
}

// shakeRowsDone has nothing to do: the rows are already words.
func shakeRowsDone(r *rowBuf, n int) {}

// rowScratch is empty: SHAKE128 squeezes into the rows themselves.
type rowScratch = struct{}
