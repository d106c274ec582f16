package noise

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/sha256"
	"crypto/sha512"
	"errors"
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

// A Protocol is a pattern, a KEM (or two), a cipher and a hash:
// everything two parties must agree on, and what its name, such as
// "Noise_pqXX_MLKEM768_ChaChaPoly_SHA256", says.
//
// KEM is the KEM of the static keys, and of the ephemeral key too unless
// EphemeralKEM is set: then the e and ekem tokens use EphemeralKEM, and
// the s and skem tokens and both parties' static keys use KEM, as in
// Clatter, whose names give both ("Noise_pqXX_MLKEM768+MLKEM1024_...":
// the ephemeral KEM first). Such a split lets a static key be of a
// conservative KEM (FrodoKEM) while forward secrecy comes from a fast one
// (ML-KEM). An ephemeral-only KEM ([kem.EphemeralOnly]) may be the
// EphemeralKEM of any pattern.
//
// In a hybrid pattern ([Pattern.Hybrid]) the name's KEM part starts with
// "25519+" (X25519, the only curve Clatter names) and the static keys are
// hybrid keys of KEM ([HybridScheme]).
type Protocol struct {
	Pattern Pattern
	KEM     kem.Scheme
	Cipher  Cipher
	Hash    Hash
	// EphemeralKEM, if not nil, is the KEM of the ephemeral key, when it
	// differs from KEM.
	EphemeralKEM kem.Scheme
}

// ErrPSKInvalid is returned (wrapped) for a protocol whose psk tokens
// break Clatter's PSK rule (see [Pattern.WithPSK]): a party would encrypt
// with a key derived from a PSK and nothing random of its own.
var ErrPSKInvalid = errors.New("noise: invalid PSK placement")

// ephemeralKEM returns the KEM of the ephemeral keys.
func (p Protocol) ephemeralKEM() kem.Scheme {
	if p.EphemeralKEM != nil {
		return p.EphemeralKEM
	}
	return p.KEM
}

// staticScheme returns the scheme of the static keys: KEM, or its hybrid
// pairing with X25519 in a hybrid pattern.
func (p Protocol) staticScheme() kem.Scheme {
	if p.Pattern.Hybrid() && p.KEM != nil {
		return HybridScheme(p.KEM)
	}
	return p.KEM
}

// kemPart returns the protocol name's KEM part, "MLKEM768",
// "MLKEM768+MLKEM1024" or "25519+MLKEM768", with "?" for a KEM that has
// no Noise name.
func (p Protocol) kemPart() string {
	name := func(s kem.Scheme) string {
		if s != nil {
			if n, err := KEMName(s); err == nil {
				return n
			}
		}
		return "?"
	}
	k := name(p.KEM)
	if p.EphemeralKEM != nil {
		if e := name(p.EphemeralKEM); e != k {
			k = e + "+" + k
		}
	}
	if p.Pattern.Hybrid() {
		k = "25519+" + k
	}
	return k
}

// String returns the protocol name, "Noise_" pattern "_" KEM "_" cipher
// "_" hash, with the KEMs' Noise names (see [KEMName]) as Clatter writes
// them: "MLKEM768", "MLKEM768+MLKEM1024" (ephemeral, then static) when
// the KEMs differ, "25519+MLKEM768" in a hybrid pattern. For a KEM
// without a Noise name it writes a placeholder.
func (p Protocol) String() string {
	return "Noise_" + p.Pattern.String() + "_" + p.kemPart() + "_" + p.Cipher.String() + "_" + p.Hash.String()
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
	if err := p.Pattern.spec().pskErr; err != nil {
		return err
	}
	if _, err := KEMName(p.KEM); err != nil {
		return err
	}
	if p.EphemeralKEM != nil {
		if _, err := KEMName(p.EphemeralKEM); err != nil {
			return err
		}
	}
	if kem.EphemeralOnly(p.KEM) && p.Pattern.hasStaticKeys() {
		return fmt.Errorf("noise: %s is not safe as a static key (ephemeral-only: pqNN, or an EphemeralKEM)", p.KEM.Name())
	}
	sizes := p.MessageSizes()
	for i, n := range sizes {
		if n > MaxMessageSize {
			return fmt.Errorf("noise: %v does not fit: message %d is %d bytes, over %d", p, i, n, MaxMessageSize)
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
	ek := p.ephemeralKEM()
	epk, ect := ek.EncapsulationKeySize(), ek.CiphertextSize()
	spk, sct := p.KEM.EncapsulationKeySize(), p.KEM.CiphertextSize()
	dh := 0
	if p.Pattern.Hybrid() {
		dh = dhSize
	}
	sp := p.Pattern.spec()
	sizes := make([]int, 0, len(sp.messages))
	keyed := false
	for _, msg := range sp.messages {
		n := 0
		for _, t := range msg {
			switch t {
			case tokenE:
				n += dh + epk
				keyed = keyed || sp.psk // MixKey(e.pk) in a PSK pattern
			case tokenS:
				if dh > 0 {
					n += dh + tagIf(keyed)
				}
				n += spk + tagIf(keyed)
			case tokenEKEM:
				n += ect
				keyed = true
			case tokenSKEM:
				n += sct + tagIf(keyed)
				keyed = true
			default: // psk and the DH tokens
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
// "Noise_pqNK_MLKEM768_ChaChaPoly_BLAKE2b", "Noise_pqXXpsk3_MLKEM768_...",
// "Noise_pqNK_MLKEM768+FrodoKEM-640-AES_..." (ephemeral KEM first) or
// "Noise_hybridXX_25519+MLKEM768_...". The KEMs are looked up by their
// Noise names among the schemes of package kem (see [KEMName]).
func ParseProtocol(name string) (Protocol, error) {
	parts := strings.Split(name, "_")
	if len(parts) != 5 || parts[0] != "Noise" {
		return Protocol{}, fmt.Errorf("noise: invalid protocol name %q", name)
	}
	var p Protocol
	var ok bool
	if p.Pattern, ok = parsePattern(parts[1]); !ok {
		return Protocol{}, fmt.Errorf("noise: unknown pattern %q", parts[1])
	}
	kems := parts[2]
	if p.Pattern.Hybrid() {
		if kems, ok = strings.CutPrefix(kems, "25519+"); !ok {
			return Protocol{}, fmt.Errorf("noise: hybrid KEM part %q, want 25519+KEM", parts[2])
		}
	}
	var err error
	if p.EphemeralKEM, p.KEM, err = parseKEMs(kems); err != nil {
		return Protocol{}, err
	}
	if p.Cipher, err = ParseCipher(parts[3]); err != nil {
		return Protocol{}, err
	}
	if p.Hash, err = ParseHash(parts[4]); err != nil {
		return Protocol{}, err
	}
	return p, nil
}

// parseKEMs parses a KEM part, "KEM" or "EKEM+SKEM"; a KEM name may
// itself hold a "+", so each split is tried.
func parseKEMs(part string) (ephemeral, static kem.Scheme, err error) {
	if k, err := KEMByName(part); err == nil {
		return nil, k, nil
	}
	for i := range len(part) {
		if part[i] != '+' {
			continue
		}
		e, err1 := KEMByName(part[:i])
		s, err2 := KEMByName(part[i+1:])
		if err1 != nil || err2 != nil {
			continue
		}
		if e.Name() == s.Name() {
			return nil, nil, fmt.Errorf("noise: KEM part %q names one KEM twice", part)
		}
		return e, s, nil
	}
	return nil, nil, fmt.Errorf("noise: unknown KEM %q", part)
}
