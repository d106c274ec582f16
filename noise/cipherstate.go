package noise

import (
	"crypto/cipher"
	"encoding/binary"
	"errors"
	"fmt"
	"math"

	"github.com/pqkem/pqkem/internal/vzeroupper"
)

// MaxMessageSize is the largest Noise message, handshake or transport,
// tags included (Noise section 3). A transport message's plaintext is at
// most [MaxPlaintextSize] bytes.
const MaxMessageSize = 65535

// MaxPlaintextSize is the largest plaintext of one transport message:
// [MaxMessageSize] less the 16-byte tag.
const MaxPlaintextSize = MaxMessageSize - tagSize

const (
	keySize   = 32
	tagSize   = 16
	nonceSize = 12
)

var (
	// ErrAuthentication is returned (wrapped, with what failed) when a
	// message does not decrypt: it was altered, replayed, reordered or
	// truncated, or the peers do not share the keys they should (a wrong
	// static key).
	ErrAuthentication = errors.New("noise: authentication failed")

	// ErrNonceExhausted is returned by a CipherState that has sent or
	// received 2^64-1 messages; a new handshake is needed.
	ErrNonceExhausted = errors.New("noise: nonce exhausted, a new handshake is needed")

	// ErrMessageTooLarge is returned (wrapped, with the sizes) for a
	// message that would exceed, or exceeds, [MaxMessageSize].
	ErrMessageTooLarge = errors.New("noise: message too large")
)

// A CipherState encrypts or decrypts the transport messages of one
// direction of a session (Noise section 5.1): an AEAD key and a 64-bit
// counter, the nonce of the next message. A CipherState is not safe for
// concurrent use.
type CipherState struct {
	cipher Cipher
	aead   cipher.AEAD // nil: no key
	n      uint64
	nonce  [nonceSize]byte
}

// initializeKey is InitializeKey(key): k = key (the first 32 bytes), n = 0.
func (cs *CipherState) initializeKey(c Cipher, key []byte) error {
	aead, err := c.newAEAD(key[:keySize])
	if err != nil {
		return fmt.Errorf("noise: %v", err)
	}
	cs.cipher, cs.aead, cs.n = c, aead, 0
	return nil
}

func (cs *CipherState) hasKey() bool { return cs.aead != nil }

// nonceFor writes n into the 12-byte nonce as the cipher wants it.
func (cs *CipherState) nonceFor(n uint64) []byte {
	clear(cs.nonce[:4])
	if cs.cipher == ChaChaPoly {
		binary.LittleEndian.PutUint64(cs.nonce[4:], n)
	} else {
		binary.BigEndian.PutUint64(cs.nonce[4:], n)
	}
	return cs.nonce[:]
}

// encryptWithAd is EncryptWithAd, appending to out; without a key it
// appends the plaintext.
func (cs *CipherState) encryptWithAd(out, ad, plaintext []byte) ([]byte, error) {
	if !cs.hasKey() {
		return append(out, plaintext...), nil
	}
	// 2^64-1 is reserved for rekeying (Noise section 5.1).
	if cs.n == math.MaxUint64 {
		return out, ErrNonceExhausted
	}
	out = cs.aead.Seal(out, cs.nonceFor(cs.n), plaintext, ad)
	cs.n++
	return out, nil
}

// clearUpperAfterOpen is false only in benchmarks that measure the cost
// of the dirty AVX state.
var clearUpperAfterOpen = true

// decryptWithAd is DecryptWithAd, appending to out; on failure n is
// unchanged.
func (cs *CipherState) decryptWithAd(out, ad, ciphertext []byte) ([]byte, error) {
	if !cs.hasKey() {
		return append(out, ciphertext...), nil
	}
	if cs.n == math.MaxUint64 {
		return out, ErrNonceExhausted
	}
	// A message shorter than the tag, which handshake lengths and
	// transport framing already exclude, fails like a wrong tag.
	out, err := cs.aead.Open(out, cs.nonceFor(cs.n), ciphertext, ad)
	if cs.cipher == ChaChaPoly && clearUpperAfterOpen {
		// x/crypto's amd64 Open leaves the AVX upper state dirty for
		// plaintexts of 512k+64 bytes (an ML-KEM-768 ciphertext is 1088),
		// which slows the next SSE code on Intel CPUs: see package
		// internal/vzeroupper.
		vzeroupper.AfterOpen(len(ciphertext) - tagSize)
	}
	if err != nil {
		return out, ErrAuthentication
	}
	cs.n++
	return out, nil
}

// Encrypt encrypts and authenticates plaintext with associated data ad
// (nil for Noise transport messages) under the next nonce, appends the
// message (the ciphertext and the 16-byte tag) to out and returns the
// extended buffer. To encrypt in place, use plaintext[:0] as out.
// The message may be at most [MaxMessageSize] bytes, so plaintext at most
// [MaxPlaintextSize].
func (cs *CipherState) Encrypt(out, ad, plaintext []byte) ([]byte, error) {
	if len(plaintext) > MaxPlaintextSize {
		return out, fmt.Errorf("%w: %d-byte plaintext, want at most %d", ErrMessageTooLarge, len(plaintext), MaxPlaintextSize)
	}
	if !cs.hasKey() {
		return out, errors.New("noise: Encrypt on a CipherState without a key")
	}
	return cs.encryptWithAd(out, ad, plaintext)
}

// Decrypt checks and decrypts the message under the next nonce with
// associated data ad, appends the plaintext to out and returns the
// extended buffer. A message that fails authentication returns an error
// wrapping [ErrAuthentication] and leaves the nonce unchanged, so a
// forged message does not desynchronize the session. To decrypt in place,
// use message[:0] as out.
func (cs *CipherState) Decrypt(out, ad, message []byte) ([]byte, error) {
	if len(message) > MaxMessageSize {
		return out, fmt.Errorf("%w: %d bytes, over %d", ErrMessageTooLarge, len(message), MaxMessageSize)
	}
	if !cs.hasKey() {
		return out, errors.New("noise: Decrypt on a CipherState without a key")
	}
	out, err := cs.decryptWithAd(out, ad, message)
	if err == ErrAuthentication {
		err = fmt.Errorf("%w: transport message %d", ErrAuthentication, cs.n)
	}
	return out, err
}

// Rekey replaces the key with the first 32 bytes of its encryption of 32
// zero bytes under the nonce 2^64-1 (Noise section 4.2, REKEY); the
// counter is not changed. Both parties must rekey the direction at the
// same point of the session, by agreement of the application.
func (cs *CipherState) Rekey() error {
	if !cs.hasKey() {
		return errors.New("noise: Rekey on a CipherState without a key")
	}
	var buf [keySize + tagSize]byte
	k := cs.aead.Seal(buf[:0], cs.nonceFor(math.MaxUint64), buf[:keySize], nil)
	n := cs.n
	err := cs.initializeKey(cs.cipher, k[:keySize])
	clear(buf[:])
	cs.n = n
	return err
}

// Nonce returns the counter: the number of messages this CipherState has
// encrypted or decrypted, which is the nonce of the next one.
func (cs *CipherState) Nonce() uint64 { return cs.n }

// SetNonce sets the counter, for transports that deliver messages out of
// order and carry the nonce themselves (Noise section 5.1, SetNonce). A
// nonce must never be used twice for encryption.
func (cs *CipherState) SetNonce(n uint64) { cs.n = n }

// destroy drops the key; the AEAD's copy of it is left to the garbage
// collector, as the standard library's AEADs have no way to wipe it.
func (cs *CipherState) destroy() { cs.aead = nil }
