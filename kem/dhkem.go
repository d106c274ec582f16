package kem

import (
	"crypto"
	"crypto/ecdh"
	"crypto/hkdf"
	"crypto/rand"
	"crypto/sha256"
	"fmt"
)

// DHKEM(X25519, HKDF-SHA256), RFC 9180 Section 4.1 (HPKE KEM id 0x0020),
// a classical scheme: it is not post-quantum, and is here as the
// baseline a post-quantum scheme is compared with, so that the same
// protocol (package noise, the benchmarks) can run classically.
//
// The decapsulation key is the 32-byte X25519 private key (RFC 7748), as
// RFC 9180's SerializePrivateKey writes it and crypto/ecdh reads it; it is
// the key's "seed", though RFC 9180's DeriveKeyPair is not applied to it.
// The encapsulation seed is the ephemeral private key that
// GenerateKeyPair would make, so that RFC 9180's vectors (which give
// DeriveKeyPair's skEm) run through kemtest.
const (
	dhkemName    = "DHKEM-X25519-HKDF-SHA256"
	dhkemID      = 0x0020
	dhkemKeySize = 32 // Npk, Nsk and Nenc
	dhkemSecret  = 32 // Nsecret
)

// dhkemSuiteID is RFC 9180's suite_id for the KEM: "KEM" || I2OSP(kem_id, 2).
var dhkemSuiteID = []byte{'K', 'E', 'M', dhkemID >> 8, dhkemID & 0xff}

func registerDHKEM() { Register(dhkemScheme{}) }

type dhkemScheme struct{}

func (dhkemScheme) Name() string { return dhkemName }

// Specification names RFC 9180 and says the scheme is classical.
func (dhkemScheme) Specification() string {
	return "RFC 9180 DHKEM, classical: not post-quantum"
}

// HPKEID returns 0x0020.
func (dhkemScheme) HPKEID() (uint16, bool) { return dhkemID, true }

func (dhkemScheme) EncapsulationKeySize() int  { return dhkemKeySize }
func (dhkemScheme) DecapsulationKeySize() int  { return dhkemKeySize }
func (dhkemScheme) CiphertextSize() int        { return dhkemKeySize }
func (dhkemScheme) SharedKeySize() int         { return dhkemSecret }
func (dhkemScheme) EncapsulationSeedSize() int { return dhkemKeySize }

func (dhkemScheme) GenerateKey() (DecapsulationKey, error) {
	sk, err := ecdh.X25519().GenerateKey(rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("kem: %s: %w", dhkemName, err)
	}
	return &dhkemDecapsulationKey{sk}, nil
}

// NewDecapsulationKey takes the 32-byte X25519 private key.
func (dhkemScheme) NewDecapsulationKey(b []byte) (DecapsulationKey, error) {
	if len(b) != dhkemKeySize {
		return nil, fmt.Errorf("kem: invalid %s decapsulation key length %d, want %d", dhkemName, len(b), dhkemKeySize)
	}
	sk, err := ecdh.X25519().NewPrivateKey(b)
	if err != nil {
		return nil, fmt.Errorf("kem: %s: %w", dhkemName, err)
	}
	return &dhkemDecapsulationKey{sk}, nil
}

// NewEncapsulationKey takes the 32-byte X25519 public key.
func (dhkemScheme) NewEncapsulationKey(b []byte) (EncapsulationKey, error) {
	if len(b) != dhkemKeySize {
		return nil, fmt.Errorf("kem: invalid %s encapsulation key length %d, want %d", dhkemName, len(b), dhkemKeySize)
	}
	pk, err := ecdh.X25519().NewPublicKey(b)
	if err != nil {
		return nil, fmt.Errorf("kem: %s: %w", dhkemName, err)
	}
	// A point of small order gives the all-zero DH output, which RFC 9180
	// Section 7.1.4 refuses, with every (clamped) private key, so one DH
	// with a fixed key finds it and Encapsulate cannot fail. The key is
	// public: this check may take variable time.
	if _, err := dhkemCheckKey.ECDH(pk); err != nil {
		return nil, fmt.Errorf("kem: invalid %s encapsulation key: a point of small order", dhkemName)
	}
	return &dhkemEncapsulationKey{pk}, nil
}

// dhkemCheckKey is a fixed private key, for the check of public keys.
var dhkemCheckKey = func() *ecdh.PrivateKey {
	k, err := ecdh.X25519().NewPrivateKey(make([]byte, dhkemKeySize))
	if err != nil {
		panic("kem: " + err.Error())
	}
	return k
}()

type dhkemDecapsulationKey struct{ sk *ecdh.PrivateKey }

func (k *dhkemDecapsulationKey) Scheme() Scheme { return dhkemScheme{} }
func (k *dhkemDecapsulationKey) Bytes() []byte  { return k.sk.Bytes() }

func (k *dhkemDecapsulationKey) EncapsulationKey() EncapsulationKey {
	return &dhkemEncapsulationKey{k.sk.PublicKey()}
}

func (k *dhkemDecapsulationKey) Encapsulator() crypto.Encapsulator {
	return k.EncapsulationKey()
}

// Decapsulate is RFC 9180's Decap (Section 4.1).
func (k *dhkemDecapsulationKey) Decapsulate(ciphertext []byte) ([]byte, error) {
	if len(ciphertext) != dhkemKeySize {
		return nil, fmt.Errorf("kem: invalid %s ciphertext length %d, want %d", dhkemName, len(ciphertext), dhkemKeySize)
	}
	pkE, err := ecdh.X25519().NewPublicKey(ciphertext)
	if err != nil {
		return nil, fmt.Errorf("kem: %s: %w", dhkemName, err)
	}
	return dhkemSharedSecret(k.sk, pkE, ciphertext, k.sk.PublicKey().Bytes())
}

type dhkemEncapsulationKey struct{ pk *ecdh.PublicKey }

func (k *dhkemEncapsulationKey) Scheme() Scheme { return dhkemScheme{} }
func (k *dhkemEncapsulationKey) Bytes() []byte  { return k.pk.Bytes() }

// Encapsulate is RFC 9180's Encap (Section 4.1), with a fresh ephemeral
// key.
func (k *dhkemEncapsulationKey) Encapsulate() (sharedKey, ciphertext []byte) {
	skE, err := ecdh.X25519().GenerateKey(rand.Reader)
	if err != nil {
		panic("kem: " + err.Error()) // crypto/rand does not fail
	}
	sharedKey, ciphertext, err = k.encapsulate(skE)
	if err != nil {
		// NewEncapsulationKey refused the keys of small order, the only
		// ones whose DH output is all zero.
		panic("kem: " + dhkemName + ": " + err.Error())
	}
	return sharedKey, ciphertext
}

func (k *dhkemEncapsulationKey) encapsulate(skE *ecdh.PrivateKey) (sharedKey, ciphertext []byte, err error) {
	enc := skE.PublicKey().Bytes()
	sharedKey, err = dhkemSharedSecret(skE, k.pk, enc, k.pk.Bytes())
	return sharedKey, enc, err
}

// dhkemEncapsulateDerand is the derandomized Encap, with random the
// ephemeral private key.
func dhkemEncapsulateDerand(k *dhkemEncapsulationKey, random []byte) (sharedKey, ciphertext []byte, err error) {
	skE, err := ecdh.X25519().NewPrivateKey(random)
	if err != nil {
		return nil, nil, fmt.Errorf("kem: %s: %w", dhkemName, err)
	}
	return k.encapsulate(skE)
}

// dhkemSharedSecret is DH(sk, pk) followed by ExtractAndExpand with
// kem_context = enc || pkRm (RFC 9180 Section 4.1). crypto/ecdh refuses an
// all-zero DH output, as Section 7.1.4 asks.
func dhkemSharedSecret(sk *ecdh.PrivateKey, pk *ecdh.PublicKey, enc, pkRm []byte) ([]byte, error) {
	dh, err := sk.ECDH(pk)
	if err != nil {
		return nil, fmt.Errorf("kem: %s: %w", dhkemName, err)
	}
	kemContext := append(append(make([]byte, 0, len(enc)+len(pkRm)), enc...), pkRm...)
	prk, err := hkdf.Extract(sha256.New, dhkemLabeled("eae_prk", dh), nil)
	if err != nil {
		return nil, fmt.Errorf("kem: %s: %w", dhkemName, err)
	}
	info := append([]byte{0, dhkemSecret}, dhkemLabeled("shared_secret", kemContext)...)
	ss, err := hkdf.Expand(sha256.New, prk, string(info), dhkemSecret)
	if err != nil {
		return nil, fmt.Errorf("kem: %s: %w", dhkemName, err)
	}
	return ss, nil
}

// dhkemLabeled is "HPKE-v1" || suite_id || label || b, the input of RFC
// 9180's LabeledExtract and (after I2OSP(L, 2)) LabeledExpand.
func dhkemLabeled(label string, b []byte) []byte {
	out := append([]byte("HPKE-v1"), dhkemSuiteID...)
	out = append(out, label...)
	return append(out, b...)
}
