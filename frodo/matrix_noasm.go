//go:build !amd64 || purego

package frodo

import (
	"crypto/sha3"

	"github.com/pqkem/pqkem/internal/keccak"
)

func dot8(out []uint16, row []uint16, st []uint16, n int) { dot8Generic(out, row, st, n) }

func axpy4x8(bp []uint16, sp []uint16, rows []uint16, stride, i, n int) {
	axpy4x8Generic(bp, sp, rows, stride, i, n)
}

// aesECB is the assembly path (AES-NI or VAES), which this build does not
// have.
type aesECB struct{}

func newAESECB(key []byte) *aesECB { return nil }

func (*aesECB) rows4(i, n int, r *rowBuf) { panic("unreachable") }

// readUint16s fills out with little-endian 16-bit words read from h.
func readUint16s(h *sha3.SHAKE, out []uint16) { readUint16sGeneric(h, out) }

// shakeRowBytes returns scratch space for SHAKE128 row k, l bytes.
func shakeRowBytes(r *rowBuf, k int, l int) []byte { return r.bytes[k][:l] }

// shakeRowsDone converts the four rows from bytes to words.
func shakeRowsDone(r *rowBuf, n int) {
	for k := range 4 {
		leUint16s(r.row(k)[:n], r.bytes[k][:])
	}
}

// shakeRowBuf is the size of a buffer for one SHAKE128 row: 2n bytes
// rounded up to whole SHAKE128 blocks.
const shakeRowBuf = (2*maxN + keccak.Rate128 - 1) / keccak.Rate128 * keccak.Rate128

// rowScratch holds four SHAKE128 rows as bytes, before their conversion.
type rowScratch = [4][shakeRowBuf]byte

// sample replaces each entry of s with a sample of the error distribution.
func (p *ParameterSet) sample(s []uint16) { p.sampleGeneric(s) }

// aesImplsByName lists no implementations: this build has no assembly.
func aesImplsByName() (names []string, force func(name string) (restore func())) {
	return nil, func(string) func() { panic("frodo: no AES assembly in this build") }
}
