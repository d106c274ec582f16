package noise

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/sha256"
	"crypto/sha512"
	"fmt"
	"hash"
	"strings"

	"golang.org/x/crypto/blake2b"
	"golang.org/x/crypto/blake2s"
	"golang.org/x/crypto/chacha20poly1305"

	"github.com/pqkem/pqkem/kem"
)

// A Cipher is a Noise cipher function: an AEAD with a 32-byte key, a
// 16-byte tag and a 64-bit nonce (Noise section 12.3 and 12.4).
type Cipher uint8

const (
	// ChaChaPoly is ChaCha20-Poly1305 (RFC 8439), the nonce being 4 zero
	// bytes and the counter as 8 little-endian bytes.
	ChaChaPoly Cipher = iota + 1
	// AESGCM is AES-256-GCM, the nonce being 4 zero bytes and the counter
	// as 8 big-endian bytes.
	AESGCM
)

// String returns the cipher's Noise name, "ChaChaPoly" or "AESGCM".
func (c Cipher) String() string {
	switch c {
	case ChaChaPoly:
		return "ChaChaPoly"
	case AESGCM:
		return "AESGCM"
	}
	return fmt.Sprintf("Cipher(%d)", uint8(c))
}

func (c Cipher) valid() bool { return c == ChaChaPoly || c == AESGCM }

// Ciphers returns the cipher functions, ChaChaPoly and AESGCM.
func Ciphers() []Cipher { return []Cipher{ChaChaPoly, AESGCM} }

// ParseCipher returns the cipher function whose Noise name is name, such
// as "ChaChaPoly" (see [Cipher.String]).
func ParseCipher(name string) (Cipher, error) {
	for _, c := range Ciphers() {
		if c.String() == name {
			return c, nil
		}
	}
	return 0, fmt.Errorf("noise: unknown cipher %q, want %s", name, orList(Ciphers()))
}

// orList lists the names of values: "A, B or C".
func orList[T fmt.Stringer](values []T) string {
	var b strings.Builder
	for i, v := range values {
		switch {
		case i == len(values)-1 && i > 0:
			b.WriteString(" or ")
		case i > 0:
			b.WriteString(", ")
		}
		b.WriteString(v.String())
	}
	return b.String()
}

// newAEAD returns the cipher keyed with the 32-byte key.
func (c Cipher) newAEAD(key []byte) (cipher.AEAD, error) {
	if c == ChaChaPoly {
		return chacha20poly1305.New(key)
	}
	b, err := aes.NewCipher(key)
	if err != nil {
		return nil, err
	}
	return cipher.NewGCM(b)
}

// A Hash is a Noise hash function (Noise section 12.5 to 12.8).
type Hash uint8

const (
	SHA256  Hash = iota + 1 // SHA-256, 32-byte output
	SHA512                  // SHA-512, 64-byte output
	BLAKE2s                 // BLAKE2s-256, unkeyed, 32-byte output
	BLAKE2b                 // BLAKE2b-512, unkeyed, 64-byte output
)

// String returns the hash's Noise name, such as "SHA256" or "BLAKE2b".
func (h Hash) String() string {
	switch h {
	case SHA256:
		return "SHA256"
	case SHA512:
		return "SHA512"
	case BLAKE2s:
		return "BLAKE2s"
	case BLAKE2b:
		return "BLAKE2b"
	}
	return fmt.Sprintf("Hash(%d)", uint8(h))
}

// Hashes returns the hash functions: SHA256, SHA512, BLAKE2s and BLAKE2b.
func Hashes() []Hash { return []Hash{SHA256, SHA512, BLAKE2s, BLAKE2b} }

// ParseHash returns the hash function whose Noise name is name, such as
// "BLAKE2b" (see [Hash.String]).
func ParseHash(name string) (Hash, error) {
	for _, h := range Hashes() {
		if h.String() == name {
			return h, nil
		}
	}
	return 0, fmt.Errorf("noise: unknown hash %q, want %s", name, orList(Hashes()))
}

func (h Hash) valid() bool { return h >= SHA256 && h <= BLAKE2b }

// Size is HASHLEN: 32 for SHA256 and BLAKE2s, 64 for SHA512 and BLAKE2b.
func (h Hash) Size() int {
	if h == SHA512 || h == BLAKE2b {
		return 64
	}
	return 32
}

// constructor returns a function making new hash states; HMAC over it uses
// the hash's block size (64 or 128 bytes), as Noise's HMAC-HASH does.
func (h Hash) constructor() func() hash.Hash {
	switch h {
	case SHA256:
		return sha256.New
	case SHA512:
		return sha512.New
	case BLAKE2s:
		return func() hash.Hash {
			d, _ := blake2s.New256(nil) // fails only for a key longer than 32 bytes
			return d
		}
	}
	return func() hash.Hash {
		d, _ := blake2b.New512(nil) // fails only for a key longer than 64 bytes
		return d
	}
}

// A Protocol is a pattern, a KEM, a cipher and a hash: everything two
// parties must agree on, and what its name, such as
// "Noise_pqXX_MLKEM768_ChaChaPoly_SHA256", says.
type Protocol struct {
	Pattern Pattern
	KEM     kem.Scheme
	Cipher  Cipher
	Hash    Hash
}

// String returns the protocol name, "Noise_" pattern "_" KEM "_" cipher
// "_" hash, with the KEM's Noise name (see [KEMName]); for a protocol
// whose KEM has no Noise name it returns the name with a placeholder.
func (p Protocol) String() string {
	k := "?"
	if p.KEM != nil {
		if n, err := KEMName(p.KEM); err == nil {
			k = n
		}
	}
	return "Noise_" + p.Pattern.String() + "_" + k + "_" + p.Cipher.String() + "_" + p.Hash.String()
}

// check returns an error if the protocol is not one this package runs.
func (p Protocol) check() error {
	switch {
	case !p.Pattern.valid():
		return fmt.Errorf("noise: unknown pattern %v", p.Pattern)
	case p.KEM == nil:
		return fmt.Errorf("noise: protocol %v has no KEM", p)
	case !p.Cipher.valid():
		return fmt.Errorf("noise: unknown cipher %v", p.Cipher)
	case !p.Hash.valid():
		return fmt.Errorf("noise: unknown hash %v", p.Hash)
	}
	if _, err := KEMName(p.KEM); err != nil {
		return err
	}
	if kem.EphemeralOnly(p.KEM) && p.Pattern.hasStaticKeys() {
		return fmt.Errorf("noise: %s is not safe as a static key (its keys are for one exchange, or a few: eFrodoKEM allows fewer than 2^8 ciphertexts per key, the CCS 2016 Frodo key exchange is passively secure and single-use); of the KEM patterns only pqNN, which has no static keys, may use it",
			p.KEM.Name())
	}
	sizes := p.MessageSizes()
	for i, n := range sizes {
		if n > MaxMessageSize {
			return fmt.Errorf("noise: %v does not fit: handshake message %d would be %d bytes with an empty payload, over the %d-byte limit of a Noise message",
				p, i, n, MaxMessageSize)
		}
	}
	return nil
}

// MessageSizes returns the size of each handshake message of the protocol
// with an empty payload; a payload adds its length. A message may be at
// most [MaxMessageSize] bytes, so message i leaves room for
// MaxMessageSize - MessageSizes()[i] bytes of payload. It returns nil for a
// protocol without a valid pattern or a KEM.
func (p Protocol) MessageSizes() []int {
	if !p.Pattern.valid() || p.KEM == nil {
		return nil
	}
	pk, ct := p.KEM.EncapsulationKeySize(), p.KEM.CiphertextSize()
	sizes := make([]int, 0, p.Pattern.Messages())
	keyed := false
	for _, msg := range p.Pattern.spec().messages {
		n := 0
		for _, t := range msg {
			switch t {
			case tokenE:
				n += pk
			case tokenS:
				n += pk + tagIf(keyed)
			case tokenEKEM:
				n += ct
				keyed = true
			case tokenSKEM:
				n += ct + tagIf(keyed)
				keyed = true
			}
		}
		sizes = append(sizes, n+tagIf(keyed))
	}
	return sizes
}

func tagIf(keyed bool) int {
	if keyed {
		return tagSize
	}
	return 0
}

// ParseProtocol parses a protocol name such as
// "Noise_pqNK_MLKEM768_ChaChaPoly_BLAKE2b". The KEM is looked up by its
// Noise name among the schemes of package kem (see [KEMName]).
func ParseProtocol(name string) (Protocol, error) {
	parts := strings.Split(name, "_")
	if len(parts) != 5 || parts[0] != "Noise" {
		return Protocol{}, fmt.Errorf("noise: invalid protocol name %q, want Noise_PATTERN_KEM_CIPHER_HASH", name)
	}
	var p Protocol
	for _, q := range Patterns() {
		if q.String() == parts[1] {
			p.Pattern = q
		}
	}
	if p.Pattern == 0 {
		return Protocol{}, fmt.Errorf("noise: unknown pattern %q in protocol name %q", parts[1], name)
	}
	k, err := KEMByName(parts[2])
	if err != nil {
		return Protocol{}, err
	}
	p.KEM = k
	if p.Cipher, err = ParseCipher(parts[3]); err != nil {
		return Protocol{}, fmt.Errorf("noise: unknown cipher %q in protocol name %q, want %s", parts[3], name, orList(Ciphers()))
	}
	if p.Hash, err = ParseHash(parts[4]); err != nil {
		return Protocol{}, fmt.Errorf("noise: unknown hash %q in protocol name %q, want %s", parts[4], name, orList(Hashes()))
	}
	return p, nil
}
