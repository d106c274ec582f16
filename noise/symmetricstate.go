package noise

import (
	"crypto/hkdf"
	"encoding"
	"fmt"
	"hash"
	"sync"

	"github.com/pqkem/pqkem/kem"
)

const maxHashSize = 64

// symmetricState is Noise's SymmetricState (Noise section 5.2): the
// chaining key ck, the handshake hash h, and the handshake's CipherState.
type symmetricState struct {
	hash    Hash
	newHash func() hash.Hash
	d       hash.Hash // a hash state reused by mixHash
	hlen    int
	ck      [maxHashSize]byte
	h       [maxHashSize]byte
	cs      CipherState
}

// initializeSymmetric is InitializeSymmetric(protocol_name): h is the name
// zero-padded to HASHLEN if it fits, its hash otherwise; ck = h; no key.
func (ss *symmetricState) initializeSymmetric(p Protocol, name string) {
	ss.hash, ss.newHash, ss.hlen = p.Hash, p.Hash.constructor(), p.Hash.Size()
	ss.d = ss.newHash()
	ss.cs.cipher = p.Cipher
	if len(name) <= ss.hlen {
		copy(ss.h[:], name)
	} else {
		ss.d.Write([]byte(name))
		ss.d.Sum(ss.h[:0])
	}
	ss.ck = ss.h
}

// mixHash is MixHash(data): h = HASH(h || data).
func (ss *symmetricState) mixHash(data []byte) {
	ss.d.Reset()
	ss.d.Write(ss.h[:ss.hlen])
	ss.d.Write(data)
	ss.d.Sum(ss.h[:0])
}

// hkdf is Noise's HKDF(ck, ikm, n) (Noise section 4.3): RFC 5869's
// HKDF-Extract with salt ck, then HKDF-Expand with empty info, read as n
// outputs of HASHLEN bytes.
func (ss *symmetricState) hkdf(ikm []byte, n int) ([]byte, error) {
	prk, err := hkdf.Extract(ss.newHash, ikm, ss.ck[:ss.hlen])
	if err != nil {
		return nil, fmt.Errorf("noise: %v", err)
	}
	out, err := hkdf.Expand(ss.newHash, prk, "", n*ss.hlen)
	clear(prk)
	if err != nil {
		return nil, fmt.Errorf("noise: %v", err)
	}
	return out, nil
}

// mixKey is MixKey(ikm): ck, temp_k = HKDF(ck, ikm, 2), and the
// CipherState keyed with the first 32 bytes of temp_k.
func (ss *symmetricState) mixKey(ikm []byte) error {
	out, err := ss.hkdf(ikm, 2)
	if err != nil {
		return err
	}
	defer clear(out)
	copy(ss.ck[:], out[:ss.hlen])
	return ss.cs.initializeKey(ss.cs.cipher, out[ss.hlen:ss.hlen+keySize])
}

// mixKeyAndHash is MixKeyAndHash(ikm): ck, temp_h, temp_k =
// HKDF(ck, ikm, 3), MixHash(temp_h), and the CipherState keyed with the
// first 32 bytes of temp_k.
func (ss *symmetricState) mixKeyAndHash(ikm []byte) error {
	out, err := ss.hkdf(ikm, 3)
	if err != nil {
		return err
	}
	defer clear(out)
	copy(ss.ck[:], out[:ss.hlen])
	ss.mixHash(out[ss.hlen : 2*ss.hlen])
	return ss.cs.initializeKey(ss.cs.cipher, out[2*ss.hlen:2*ss.hlen+keySize])
}

// encryptAndHash is EncryptAndHash(plaintext), appending the ciphertext
// (the plaintext itself before the first key) to out.
func (ss *symmetricState) encryptAndHash(out, plaintext []byte) ([]byte, error) {
	start := len(out)
	out, err := ss.cs.encryptWithAd(out, ss.h[:ss.hlen], plaintext)
	if err != nil {
		return out, err
	}
	ss.mixHash(out[start:])
	return out, nil
}

// encryptAndHashKey is encryptAndHash of ek's encoding, which it appends
// to out and encrypts there.
func (ss *symmetricState) encryptAndHashKey(out []byte, ek kem.EncapsulationKey) ([]byte, error) {
	start := len(out)
	out = appendKey(out, ek)
	if ss.cs.hasKey() {
		var err error
		// In place: the ciphertext starts where the plaintext does.
		if out, err = ss.cs.encryptWithAd(out[:start], ss.h[:ss.hlen], out[start:]); err != nil {
			return out, err
		}
	}
	ss.mixHash(out[start:])
	return out, nil
}

// mixHashKey is MixHash of ek's encoding.
func (ss *symmetricState) mixHashKey(ek kem.EncapsulationKey) {
	buf := keyScratch.Get().(*[]byte)
	*buf = appendKey((*buf)[:0], ek)
	ss.mixHash(*buf)
	keyScratch.Put(buf)
}

// keyScratch holds buffers for mixHashKey: public keys, which need no
// clearing.
var keyScratch = sync.Pool{New: func() any { return new([]byte) }}

// appendKey appends ek's encoding to b: where the key can append it
// itself ([encoding.BinaryAppender], as FrodoKEM's keys, of 9.6 to 21.5
// KB), without the copy that Bytes makes.
func appendKey(b []byte, ek kem.EncapsulationKey) []byte {
	if a, ok := ek.(encoding.BinaryAppender); ok {
		if out, err := a.AppendBinary(b); err == nil {
			return out
		}
	}
	return append(b, ek.Bytes()...)
}

// decryptAndHash is DecryptAndHash(ciphertext), appending the plaintext to
// out, which must not overlap ciphertext.
func (ss *symmetricState) decryptAndHash(out, ciphertext []byte) ([]byte, error) {
	out, err := ss.cs.decryptWithAd(out, ss.h[:ss.hlen], ciphertext)
	if err != nil {
		return out, err
	}
	ss.mixHash(ciphertext)
	return out, nil
}

// split is Split(): the two transport CipherStates keyed from
// HKDF(ck, empty, 2), c1 for initiator to responder, c2 for responder to
// initiator.
func (ss *symmetricState) split() (c1, c2 *CipherState, err error) {
	out, err := ss.hkdf(nil, 2)
	if err != nil {
		return nil, nil, err
	}
	defer clear(out)
	c1, c2 = new(CipherState), new(CipherState)
	if err := c1.initializeKey(ss.cs.cipher, out[:keySize]); err != nil {
		return nil, nil, err
	}
	if err := c2.initializeKey(ss.cs.cipher, out[ss.hlen:ss.hlen+keySize]); err != nil {
		return nil, nil, err
	}
	return c1, c2, nil
}

// destroy wipes the chaining key and drops the handshake's key; h stays,
// as it is the public handshake hash.
func (ss *symmetricState) destroy() {
	clear(ss.ck[:])
	ss.cs.destroy()
}
