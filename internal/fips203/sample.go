package fips203

import (
	"crypto/sha3"
	"encoding/binary"

	"github.com/pqkem/pqkem/internal/keccak"
)

// sampleMatrixFunc expands Â from rho: it fills a[i*k+j] = Â[j][i] =
// SampleNTT(rho || i || j) for i, j < k (lines 3 to 7 of Algorithms 13 and
// 14; a holds Â transposed, see encryptionKey). It gets the whole matrix so
// that an implementation can batch entries, as sampleMatrixFIPS does with
// the four-way SHAKE128.
type sampleMatrixFunc func(a []nttElement, rho *[32]byte, k int)

// sampleMatrixFIPS expands Â with FIPS 203 SampleNTT. With the four-way AVX2
// Keccak the entries run on the lanes of the schedule of schedule.go (which
// key generation and key parsing use with the hash beside them); otherwise
// entry by entry. Either way every entry equals SampleNTT(rho || i || j).
func sampleMatrixFIPS(a []nttElement, rho *[32]byte, k int) {
	if keccak.Accelerated() {
		var s lanesSchedule
		s.init(k, rho)
		s.addMatrices()
		for s.busy() {
			s.step(a)
		}
		return
	}
	for i := range k {
		for j := range k {
			sampleNTT(&a[i*k+j], rho, byte(i), byte(j))
		}
	}
}

// sampleNTT implements SampleNTT (FIPS 203, Algorithm 7): rejection sampling
// of uniform coefficients from SHAKE128(rho || j || i).
//
// Its running time depends on rho, which is public (it is part of the
// encapsulation key), so the data-dependent loop and the branch on each
// candidate do not leak secrets. It reads as many blocks as it needs: there
// is no limit on the number of rejections.
func sampleNTT(a *nttElement, rho *[32]byte, j, i byte) {
	var seed [34]byte
	copy(seed[:], rho[:])
	seed[32], seed[33] = j, i
	h := sha3.NewSHAKE128()
	h.Write(seed[:])

	var buf [3 * keccak.Rate128]byte // a multiple of 3 bytes
	h.Read(buf[:])
	k := rejectionSample(a, 0, buf[:])
	for k < n {
		h.Read(buf[:keccak.Rate128])
		k = rejectionSample(a, k, buf[:keccak.Rate128])
	}
}

// rejectionSampleGeneric is the loop body of SampleNTT (Algorithm 7, lines 5 to
// 14): it parses b, a multiple of 3 bytes, into 12-bit candidates d1, d2,
// stores those below q in a[k], a[k+1], ... until a is full, and returns the
// new count. It runs on public data only (rho), so its timing may and does
// depend on the candidates.
func rejectionSampleGeneric(a *nttElement, k int, b []byte) int {
	// Fast path: four candidates from six bytes, read as one 64-bit word,
	// stored without a branch: each candidate is written to a[k] and k
	// advances only if it was accepted, so a rejected one is overwritten by
	// the next. With k <= n-4 at the start of a group every write is in
	// bounds, and a slot below the final k always ends up holding the last,
	// accepted candidate written to it.
	for len(b) >= 8 && k <= n-4 {
		x := binary.LittleEndian.Uint64(b)
		for range 4 {
			d := x & 0xfff
			a[k&(n-1)] = fieldElement(d)
			k += int((d - q) >> 63) // 1 if d < q
			x >>= 12
		}
		b = b[6:]
	}
	// The tail, candidate by candidate, as Algorithm 7 writes it.
	for ; len(b) >= 3 && k < n; b = b[3:] {
		d1 := uint16(b[0]) | uint16(b[1]&0x0f)<<8
		d2 := uint16(b[1])>>4 | uint16(b[2])<<4
		if d1 < q {
			a[k] = fieldElement(d1)
			k++
		}
		if d2 < q && k < n {
			a[k] = fieldElement(d2)
			k++
		}
	}
	return k
}

// samplePolyCBDGeneric implements SamplePolyCBD_eta (FIPS 203, Algorithm 8)
// for eta = 2 and 3, reading 64 * eta bytes of b. It is constant time: each
// coefficient is a difference of bit counts, reduced modulo q with a mask.
func samplePolyCBDGeneric(f *ringElement, b []byte, eta int) {
	switch eta {
	case 2:
		b := b[:128]
		for i := range n / 8 {
			// Eight coefficients from four bytes: each takes 2 + 2 bits.
			w := uint32(b[4*i]) | uint32(b[4*i+1])<<8 | uint32(b[4*i+2])<<16 | uint32(b[4*i+3])<<24
			d := w&0x55555555 + w>>1&0x55555555
			for j := range 8 {
				x := fieldElement(d >> (4 * j) & 3)
				y := fieldElement(d >> (4*j + 2) & 3)
				f[8*i+j] = fieldSub(x, y)
			}
		}
	case 3:
		b := b[:192]
		for i := range n / 4 {
			// Four coefficients from three bytes: each takes 3 + 3 bits.
			w := uint32(b[3*i]) | uint32(b[3*i+1])<<8 | uint32(b[3*i+2])<<16
			d := w&0x249249 + w>>1&0x249249 + w>>2&0x249249
			for j := range 4 {
				x := fieldElement(d >> (6 * j) & 7)
				y := fieldElement(d >> (6*j + 3) & 7)
				f[4*i+j] = fieldSub(x, y)
			}
		}
	default:
		panic("fips203: unsupported eta") // unreachable: eta comes from Params
	}
}
