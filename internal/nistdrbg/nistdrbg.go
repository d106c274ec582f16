// Package nistdrbg is the AES-256 CTR DRBG (NIST SP 800-90A, without a
// derivation function) of the NIST PQC known-answer-test generator
// PQCgenKAT: the randombytes_init / randombytes of its rng.c, for
// reproducing the .rsp files of the submissions. It uses crypto/aes.
//
// It is a test tool, not a source of secure randomness for keys: it is
// seeded by its caller and never reseeds.
package nistdrbg

import (
	"crypto/aes"
	"crypto/cipher"
)

// SeedSize is the size of the entropy input: 48 bytes.
const SeedSize = 48

// DRBG is the state of one AES-256 CTR DRBG: Key and V of rng.c (its
// reseed counter is never read, so it is not kept).
type DRBG struct {
	key   [32]byte
	v     [16]byte
	block cipher.Block
}

// New returns a DRBG initialized as randombytes_init(entropy, personalization, 256):
// entropy must be 48 bytes; personalization may be nil or 48 bytes.
func New(entropy, personalization []byte) *DRBG {
	if len(entropy) != SeedSize || (personalization != nil && len(personalization) != SeedSize) {
		panic("nistdrbg: entropy and personalization must be 48 bytes")
	}
	var material [SeedSize]byte
	copy(material[:], entropy)
	for i, b := range personalization {
		material[i] ^= b
	}
	d := new(DRBG)
	d.setKey()
	d.update(&material)
	return d
}

func (d *DRBG) setKey() {
	b, err := aes.NewCipher(d.key[:])
	if err != nil {
		panic(err)
	}
	d.block = b
}

// incrementV adds one to V, a 128-bit big-endian counter.
func (d *DRBG) incrementV() {
	for j := 15; j >= 0; j-- {
		d.v[j]++
		if d.v[j] != 0 {
			break
		}
	}
}

// update is AES256_CTR_DRBG_Update; provided may be nil.
func (d *DRBG) update(provided *[SeedSize]byte) {
	var temp [SeedSize]byte
	for i := range 3 {
		d.incrementV()
		d.block.Encrypt(temp[16*i:16*i+16], d.v[:])
	}
	if provided != nil {
		for i := range temp {
			temp[i] ^= provided[i]
		}
	}
	copy(d.key[:], temp[:32])
	copy(d.v[:], temp[32:])
	d.setKey()
}

// Read fills b, as one call of randombytes(b, len(b)): the DRBG's update
// step runs after each call, so splitting a read into two calls gives
// different bytes. It never fails.
func (d *DRBG) Read(b []byte) (int, error) {
	var block [16]byte
	for o := 0; o < len(b); o += 16 {
		d.incrementV()
		d.block.Encrypt(block[:], d.v[:])
		copy(b[o:], block[:])
	}
	d.update(nil)
	return len(b), nil
}

// Bytes returns n bytes from one call of randombytes.
func (d *DRBG) Bytes(n int) []byte {
	b := make([]byte, n)
	d.Read(b)
	return b
}
