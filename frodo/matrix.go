package frodo

//go:generate go run -C _asm . -out ../dot_amd64.s -stubs ../dot_stub_amd64.go -pkg frodo

import (
	"crypto/aes"
	"crypto/cipher"
	"encoding/binary"
	"sync"
	"sync/atomic"

	"github.com/pqkem/pqkem/internal/cpuid"
	"github.com/pqkem/pqkem/internal/keccak"
)

// level is the assembly level this package runs: cpuid.Max(), chosen once
// when the process starts, as the CPU, the build and PQKEM_CPU allow. The
// tests lower it to run every path in one go test (cpuLevels, internal/cpuid/cpuidtest). The
// dispatch (matrix_amd64.go, matrix_noasm.go) reads it, and
// cpuid.ForceGeneric, which pqkem-bench and other packages' tests use, caps
// it at the generic level. Within a level, the AES row generator depends
// on the CPU's AES features too (aesFastest).
var level = cpuid.Max()

// The n x n matrix A is generated four rows at a time (eight with SHAKE128
// at the AVX-512 level: rows4 keeps the second four), used, and forgotten
// (Frodo.Gen with the row-wise generation the specification allows),
// unless the key it belongs to was precomputed
// ([EncapsulationKey.Precompute]): then it is generated once, kept whole,
// and read from there.
//
// With AES128, entry (i, j..j+7) of A is the little-endian 16-bit words of
// AES128(seedA, LE16(i) || LE16(j) || 0^96), for j a multiple of 8. With
// SHAKE128, row i is the first 2n bytes of SHAKE128(LE16(i) || seedA), read
// as little-endian 16-bit words.

// aesBatch is the number of AES blocks encrypted per batch.
const aesBatch = 8

// matrixA generates the rows of A for one seedA.
type matrixA struct {
	p     *ParameterSet
	seedA [seedASize]byte
	aes   aesGen // the AES row generator, for AES sets
	// full is A, n x n row by row, once expand has made it; nil until
	// then. A is public: keeping it needs no clearing.
	full      atomic.Pointer[[]uint16]
	expanding sync.Mutex // held while expand makes full
}

func (a *matrixA) init(p *ParameterSet, seedA []byte) {
	a.p = p
	copy(a.seedA[:], seedA)
	a.full.Store(nil)
	if p.aes {
		a.aes.init(a.seedA[:])
	}
}

// preRows is the most rows of A generated ahead (rowBuf.pre): about what
// three lanes make while the longest stream of error samples is squeezed
// (FrodoKEM-1344's encapsulation: 318 blocks of SHAKE256, 59 rows of 16
// blocks).
const preRows = 60

// rowBuf holds the rows of A that rows4 returns, row k at rows[k*maxN:],
// and the rows generated ahead.
type rowBuf struct {
	// rows holds the rows rows4 returns, and after gen8 the next four.
	rows [8 * maxN]uint16
	// ahead is 1 + the first of the four rows of A that rows[4*maxN:]
	// holds for the next call of rows4, or 0; aheadOf is their matrix.
	ahead   int
	aheadOf *matrixA
	// pre holds rows 0..npre-1 of A, row i at pre[i*maxN:], generated
	// during the squeezing of the error samples in the lanes their SHAKE
	// leaves free (rideRows); allocated on the first ride. a is the
	// matrix of the ride in progress, ride its state.
	pre  *[preRows * maxN]uint16
	npre int
	a    *matrixA
	ride keccak.Rows
	// bytes is scratch space for SHAKE128 rows where the rows cannot be
	// squeezed into directly (non-amd64 or purego builds; empty here).
	//lint:ignore U1000 used by matrix_noasm.go in the other builds
	bytes rowScratch
	// aes is the crypto/aes path's input and output blocks, allocated on
	// first use: it goes through the cipher.Block interface, so it is on
	// the heap, once per operation.
	aes *[2][aesBatch * aes.BlockSize]byte
}

// row returns row k of the buffer, maxN words.
func (r *rowBuf) row(k int) []uint16 { return r.rows[k*maxN : (k+1)*maxN] }

// rows4 returns rows i..i+3 of A, row i+k at rows[k*stride:][:n]: the
// expanded matrix's rows if a has one, else rows generated into r.
func (a *matrixA) rows4(i int, r *rowBuf) (rows []uint16, stride int) {
	n := a.p.n
	if full := a.full.Load(); full != nil {
		return (*full)[i*n : (i+4)*n], n
	}
	if i+4 <= r.npre {
		return r.pre[i*maxN : (i+4)*maxN], maxN
	}
	if r.ahead == i+1 && r.aheadOf == a {
		r.ahead, r.aheadOf = 0, nil
		return r.rows[4*maxN:], maxN
	}
	if !a.p.aes && i+8 <= n && wideRows() {
		a.gen8(i, r)
		r.ahead, r.aheadOf = i+5, a
		return r.rows[:], maxN
	}
	a.gen4(i, r)
	return r.rows[:], maxN
}

// rideRows makes h, a fresh SHAKE about to squeeze the error samples
// that must all be read before the first row of A is used, generate rows
// of A from row 0 on in the lanes it leaves free (keccak.SHAKE.Ride),
// where A comes from SHAKE128 and is not kept whole and the CPU runs the
// AVX-512 permutation. endRide ends it.
func (a *matrixA) rideRows(h *keccak.SHAKE, r *rowBuf) {
	r.npre = 0
	if a.p.aes || a.full.Load() != nil {
		return
	}
	r.a = a
	if !h.Ride(&r.ride, r) {
		r.a = nil
		return
	}
	if r.pre == nil {
		r.pre = new([preRows * maxN]uint16)
	}
}

// endRide ends the ride of rideRows, if any: rows4 then returns the rows
// made ahead, in groups of four (the rows of a group not complete are
// made again).
func (r *rowBuf) endRide(h *keccak.SHAKE) {
	if r.a != nil {
		r.npre = h.StopRide() &^ 3
		r.a = nil
	}
}

// RowIn returns the input of row i of the ride's A, LE16(i) || seedA,
// appended to buf (keccak.RowSource).
func (r *rowBuf) RowIn(i int, buf []byte) []byte {
	in := r.a.shakeIn(i)
	return append(buf, in[:]...)
}

// shakeIn returns the SHAKE128 input of row i of A, LE16(i) || seedA.
func (a *matrixA) shakeIn(i int) (in [2 + seedASize]byte) {
	binary.LittleEndian.PutUint16(in[:], uint16(i))
	copy(in[2:], a.seedA[:])
	return in
}

// shakeRowLen is the length of a SHAKE128 row of A as squeezed: 2n bytes
// rounded up to whole blocks.
func shakeRowLen(n int) int {
	return (2*n + keccak.Rate128 - 1) / keccak.Rate128 * keccak.Rate128
}

// RowOut returns the bytes of row i in pre, or nil past its capacity or
// the last row (keccak.RowSource).
func (r *rowBuf) RowOut(i int) []byte {
	n := r.a.p.n
	if i >= preRows || i >= n {
		return nil
	}
	return wordBytes(r.pre[i*maxN : i*maxN+n])
}

// expand generates A whole and keeps it, for later operations to read
// instead of generating it again. It generates A once: concurrent calls
// wait for the first.
func (a *matrixA) expand() {
	if a.full.Load() != nil {
		return
	}
	a.expanding.Lock()
	defer a.expanding.Unlock()
	if a.full.Load() != nil {
		return
	}
	n := a.p.n
	full := make([]uint16, n*n)
	w := getWork()
	for i := 0; i < n; i += 4 {
		rows, stride := a.rows4(i, &w.r)
		for k := range 4 {
			copy(full[(i+k)*n:(i+k+1)*n], rows[k*stride:])
		}
	}
	putWork(w)
	a.full.Store(&full)
}

// gen4 sets rows 0..3 of r to rows i..i+3 of A.
func (a *matrixA) gen4(i int, r *rowBuf) {
	n := a.p.n
	if a.p.aes {
		a.aes.rows4(i, n, r)
		return
	}
	in := [4][2 + seedASize]byte{a.shakeIn(i), a.shakeIn(i + 1), a.shakeIn(i + 2), a.shakeIn(i + 3)}
	var x keccak.X4
	x.Init128([4][]byte{in[0][:], in[1][:], in[2][:], in[3][:]})
	var out [4][]byte
	for k := range out {
		out[k] = shakeRowBytes(r, k, shakeRowLen(n))
	}
	x.SqueezeBlocks(&out)
	shakeRowsDone(r, n, 4)
}

// gen8 sets rows 0..7 of r to rows i..i+7 of A, for a SHAKE128 set where
// wideRows reports true: eight rows on the eight-way permutation.
func (a *matrixA) gen8(i int, r *rowBuf) {
	n := a.p.n
	var in [8][2 + seedASize]byte
	var ins, out [8][]byte
	for k := range in {
		in[k] = a.shakeIn(i + k)
		ins[k] = in[k][:]
		out[k] = shakeRowBytes(r, k, shakeRowLen(n))
	}
	var x keccak.X8
	x.Init128(ins)
	x.SqueezeBlocks(&out)
	shakeRowsDone(r, n, 8)
}

// aesImpl is one of the AES row generators, slowest first.
type aesImpl int32

const (
	aesGo      aesImpl = iota // crypto/aes, aesBatch blocks at a time (aesRows4Generic)
	aesNI                     // AES-NI on xmm, eight blocks at a time (aesRowAsm)
	aesVAES                   // VAES on ymm, sixteen blocks (aesRowVAES)
	aesVAES512                // VAES on zmm, 32 blocks (aesRowVAES512)
)

// aesImplNames are the generators' names, for tests and benchmarks.
var aesImplNames = [...]string{aesGo: "crypto/aes", aesNI: "AES-NI", aesVAES: "VAES", aesVAES512: "VAES-512"}

// aesForced is 1 + the generator forceAES asked for, or 0.
var aesForced atomic.Int32

// forceAES makes the keys made after it use impl, or the fastest generator
// of their level if that is slower, and returns a function that restores
// the previous setting. For tests and benchmarks.
func forceAES(impl aesImpl) (restore func()) {
	old := aesForced.Swap(int32(impl) + 1)
	return func() { aesForced.Store(old) }
}

// aesImplsByName lists the AES row generators this build and CPU run at
// the highest level, the fastest (the default) first, by name; force makes
// the keys made after it use one (see forceAES).
func aesImplsByName() (names []string, force func(name string) (restore func())) {
	for impl := aesFastest(cpuid.Max()); impl >= aesGo; impl-- {
		names = append(names, aesImplNames[impl])
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

// newAESBlock returns crypto/aes's cipher for the 16-byte key.
func newAESBlock(key []byte) cipher.Block {
	block, err := aes.NewCipher(key)
	if err != nil {
		panic("frodo: " + err.Error())
	}
	return block
}

// aesRows4Generic sets rows 0..3 of r to rows i..i+3 of A, n words each,
// with block (crypto/aes), aesBatch blocks at a time.
func aesRows4Generic(block cipher.Block, i, n int, r *rowBuf) {
	if r.aes == nil {
		r.aes = new([2][aesBatch * aes.BlockSize]byte)
	}
	in, out := &r.aes[0], &r.aes[1]
	clear(in[:])
	for k := range 4 {
		row := r.row(k)[:n]
		for j := 0; j < n; j += 8 * aesBatch {
			for b := range aesBatch {
				binary.LittleEndian.PutUint16(in[16*b:], uint16(i+k))
				binary.LittleEndian.PutUint16(in[16*b+2:], uint16(j+8*b))
			}
			m := min(aesBatch, (n-j)/8)
			for b := range m {
				block.Encrypt(out[16*b:16*b+16], in[16*b:16*b+16])
			}
			leUint16s(row[j:j+8*m], out[:])
		}
	}
}

// mulAddASPlusE sets b (n x n̄) to A*S + b, where st is S^T (n̄ x n), for
// key generation.
func (p *ParameterSet) mulAddASPlusE(b []uint16, st []uint16, a *matrixA, r *rowBuf) {
	n := p.n
	for i := 0; i < n; i += 4 {
		rows, stride := a.rows4(i, r)
		for k := 0; k < 4; k += 2 {
			dot8x2(b[(i+k)*nbar:(i+k+2)*nbar], rows[k*stride:], stride, st, n)
		}
	}
}

// mulAddSAPlusE sets bp (n̄ x n) to S'*A + bp, where sp is S' (n̄ x n), for
// encapsulation and the re-encryption in decapsulation.
func (p *ParameterSet) mulAddSAPlusE(bp []uint16, sp []uint16, a *matrixA, r *rowBuf) {
	n := p.n
	for i := 0; i < n; i += 4 {
		rows, stride := a.rows4(i, r)
		axpy4x8(bp, sp, rows, stride, i, n)
	}
}

// dot8Generic sets out[k] += <row, st[k*n:(k+1)*n]> for k < 8.
func dot8Generic(out []uint16, row []uint16, st []uint16, n int) {
	out = out[:nbar]
	row = row[:n]
	st = st[:nbar*n]
	var acc [nbar]uint16
	for k := range nbar {
		s := st[k*n : k*n+n]
		var sum uint16
		for j, v := range row {
			sum += v * s[j]
		}
		acc[k] = sum
	}
	for k := range nbar {
		out[k] += acc[k]
	}
}

// dot8x2Generic sets out[8m+k] += <rows[m*stride:][:n], st[k*n:(k+1)*n]>
// for m < 2 and k < 8: dot8Generic for two rows.
func dot8x2Generic(out []uint16, rows []uint16, stride int, st []uint16, n int) {
	dot8Generic(out[:nbar], rows[:n], st, n)
	dot8Generic(out[nbar:2*nbar], rows[stride:stride+n], st, n)
}

// axpy4x8Generic adds, for the four rows of A i..i+3 (row i+m at
// rows[m*stride:][:n]) and each k < 8, sp[k][i+m] * A[i+m] to bp[k].
func axpy4x8Generic(bp []uint16, sp []uint16, rows []uint16, stride, i, n int) {
	r0, r1, r2, r3 := rows[:n], rows[stride:stride+n], rows[2*stride:2*stride+n], rows[3*stride:3*stride+n]
	for k := range nbar {
		s := sp[k*n : k*n+n]
		s0, s1, s2, s3 := s[i], s[i+1], s[i+2], s[i+3]
		out := bp[k*n : k*n+n]
		for j := range out {
			out[j] += s0*r0[j] + s1*r1[j] + s2*r2[j] + s3*r3[j]
		}
	}
}
