package fips203

import "crypto/sha3"

// sampleNTTFunc fills a with the NTT element that the matrix entry (i, j) of
// Â is derived from: FIPS 203 SampleNTT(rho || j || i), or a variant that
// produces the same values in constant time (the PAKE samplers).
type sampleNTTFunc func(a *nttElement, rho *[32]byte, j, i byte)

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

	var buf [168]byte // one SHAKE128 block: a multiple of 3 bytes
	k := 0
	for {
		h.Read(buf[:])
		for b := buf[:]; len(b) >= 3; b = b[3:] {
			d1 := uint16(b[0]) | uint16(b[1]&0x0f)<<8
			d2 := uint16(b[1])>>4 | uint16(b[2])<<4
			if d1 < q {
				a[k] = fieldElement(d1)
				k++
			}
			if k == n {
				return
			}
			if d2 < q {
				a[k] = fieldElement(d2)
				k++
			}
			if k == n {
				return
			}
		}
	}
}

// samplePolyCBD implements SamplePolyCBD_eta (FIPS 203, Algorithm 8) for
// eta = 2 and 3, reading 64 * eta bytes of b. It is constant time: each
// coefficient is a difference of bit counts, reduced modulo q with a mask.
func samplePolyCBD(f *ringElement, b []byte, eta int) {
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
