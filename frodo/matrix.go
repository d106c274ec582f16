package frodo

import (
	"crypto/aes"
	"crypto/cipher"
	"encoding/binary"
	"sync"
	"sync/atomic"

	"github.com/pqkem/pqkem/internal/keccak"
)

// The n x n matrix A is generated four rows at a time, used, and forgotten
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
	block cipher.Block // for AES sets
	ecb   *aesECB      // the assembly path (AES-NI or VAES), when available
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
		if ecb := newAESECB(seedA); ecb != nil {
			a.ecb = ecb
			return
		}
		block, err := aes.NewCipher(a.seedA[:])
		if err != nil {
			panic("frodo: " + err.Error())
		}
		a.block = block
	}
}

// rowBuf holds four rows of A, row k at rows[k*maxN:].
type rowBuf struct {
	rows [4 * maxN]uint16
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
	a.gen4(i, r)
	return r.rows[:], maxN
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
		a.gen4(i, &w.r)
		for k := range 4 {
			copy(full[(i+k)*n:(i+k+1)*n], w.r.row(k))
		}
	}
	putWork(w)
	a.full.Store(&full)
}

// gen4 sets rows 0..3 of r to rows i..i+3 of A.
func (a *matrixA) gen4(i int, r *rowBuf) {
	n := a.p.n
	if a.p.aes {
		if a.ecb != nil {
			a.ecb.rows4(i, n, r)
			return
		}
		a.aesRows4(i, r)
		return
	}
	var in [4][2 + seedASize]byte
	for k := range 4 {
		binary.LittleEndian.PutUint16(in[k][:], uint16(i+k))
		copy(in[k][2:], a.seedA[:])
	}
	var x keccak.X4
	x.Init128([4][]byte{in[0][:], in[1][:], in[2][:], in[3][:]})
	l := (2*n + keccak.Rate128 - 1) / keccak.Rate128 * keccak.Rate128
	var out [4][]byte
	for k := range 4 {
		out[k] = shakeRowBytes(r, k, l)
	}
	x.SqueezeBlocks(&out)
	shakeRowsDone(r, n)
}

// aesRows4 is rows4 with crypto/aes, aesBatch blocks at a time.
func (a *matrixA) aesRows4(i int, r *rowBuf) {
	n := a.p.n
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
				a.block.Encrypt(out[16*b:16*b+16], in[16*b:16*b+16])
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
		for k := range 4 {
			dot8(b[(i+k)*nbar:(i+k)*nbar+nbar], rows[k*stride:k*stride+n], st, n)
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
