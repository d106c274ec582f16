package frodo

import "sync"

// The AES-128 key schedule (FIPS 197, section 5.2) for the AES-NI row
// generator. seedA is public, so the S-box lookups leak nothing.

var sbox = sync.OnceValue(func() *[256]byte {
	// S(x) = affine(x^-1) in GF(2^8) modulo x^8 + x^4 + x^3 + x + 1.
	mul := func(a, b byte) byte {
		var p byte
		for b != 0 {
			if b&1 != 0 {
				p ^= a
			}
			hi := a & 0x80
			a <<= 1
			if hi != 0 {
				a ^= 0x1b
			}
			b >>= 1
		}
		return p
	}
	var s [256]byte
	for x := range 256 {
		inv := byte(0)
		if x != 0 {
			// x^254 = x^-1
			inv = 1
			for range 254 {
				inv = mul(inv, byte(x))
			}
		}
		rotl := func(b byte, k int) byte { return b<<k | b>>(8-k) }
		s[x] = inv ^ rotl(inv, 1) ^ rotl(inv, 2) ^ rotl(inv, 3) ^ rotl(inv, 4) ^ 0x63
	}
	return &s
})

// expandKey128 writes the eleven round keys of the AES-128 key to rk, in
// the byte order AESENC takes them.
func expandKey128(rk *[176]byte, key []byte) {
	s := sbox()
	copy(rk[:16], key)
	rcon := byte(1)
	for i := 16; i < 176; i += 4 {
		t := [4]byte{rk[i-4], rk[i-3], rk[i-2], rk[i-1]}
		if i%16 == 0 {
			t = [4]byte{s[t[1]] ^ rcon, s[t[2]], s[t[3]], s[t[0]]}
			hi := rcon & 0x80
			rcon <<= 1
			if hi != 0 {
				rcon ^= 0x1b
			}
		}
		for k := range 4 {
			rk[i+k] = rk[i-16+k] ^ t[k]
		}
	}
}
