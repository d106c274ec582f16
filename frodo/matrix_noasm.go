//go:build !amd64 || purego

package frodo

import (
	"crypto/cipher"

	"github.com/pqkem/pqkem/internal/cpuid"
	"github.com/pqkem/pqkem/internal/keccak"
)

// The dispatch without assembly: the same names as matrix_amd64.go, each
// running its Go form.

func dot8(out []uint16, row []uint16, st []uint16, n int) { dot8Generic(out, row, st, n) }

// hasVNNI is false: this build has no AVX-512 VNNI product.
const hasVNNI = false

func dot8x2(out []uint16, rows []uint16, stride int, st []uint16, n int) {
	dot8x2Generic(out, rows, stride, st, n)
}

func axpy4x8(bp []uint16, sp []uint16, rows []uint16, stride, i, n int) {
	axpy4x8Generic(bp, sp, rows, stride, i, n)
}

// aesFastest returns crypto/aes at every level: this build has no AES
// assembly.
func aesFastest(cpuid.Level) aesImpl { return aesGo }

// aesGen generates rows of A for one seedA with crypto/aes.
type aesGen struct{ block cipher.Block }

func (g *aesGen) init(key []byte)           { g.block = newAESBlock(key) }
func (g *aesGen) rows4(i, n int, r *rowBuf) { aesRows4Generic(g.block, i, n, r) }

// readUint16s fills out with little-endian 16-bit words read from h.
func readUint16s(h *keccak.SHAKE, out []uint16) { readUint16sGeneric(h, out) }

// shakeRowBytes returns scratch space for SHAKE128 row k, l bytes.
func shakeRowBytes(r *rowBuf, k int, l int) []byte { return r.bytes[k][:l] }

// wordBytes returns nil: without the AVX-512 permutation no rows are made
// ahead (matrixA.rideRows), and this build has none.
func wordBytes(w []uint16) []byte { return nil }

// shakeRowsDone converts the first rows rows from bytes to words.
func shakeRowsDone(r *rowBuf, n, rows int) {
	for k := range rows {
		leUint16s(r.row(k)[:n], r.bytes[k][:])
	}
}

// shakeRowBuf is the size of a buffer for one SHAKE128 row: 2n bytes
// rounded up to whole SHAKE128 blocks.
const shakeRowBuf = (2*maxN + keccak.Rate128 - 1) / keccak.Rate128 * keccak.Rate128

// rowScratch holds four SHAKE128 rows as bytes, before their conversion
// (gen4: this build never makes eight, see wideRows).
type rowScratch = [4][shakeRowBuf]byte

// wideRows is false: this build has no eight-way permutation.
func wideRows() bool { return false }

// sample replaces each entry of s with a sample of the error distribution.
func (p *ParameterSet) sample(s []uint16) { p.sampleGeneric(s) }
