package noise

import (
	"crypto"
	"crypto/ecdh"
	"crypto/rand"
	"errors"
	"fmt"

	"github.com/pqkem/pqkem/kem"
)

// dhSize is the size of an X25519 public key, private key and shared
// secret (RFC 7748).
const dhSize = 32

// HybridScheme returns the scheme of the hybrid static keys that pair an
// X25519 key with a key of s (not nil); its name is "X25519+" and s's
// name. It is not registered in package kem, and package keyfile has no
// encoding for its keys: keep the halves, and pair them with
// [NewHybridDecapsulationKey] and [NewHybridEncapsulationKey].
func HybridScheme(s kem.Scheme) kem.Scheme {
	if h, ok := s.(hybridScheme); ok {
		return h
	}
	return hybridScheme{s}
}

type hybridScheme struct{ k kem.Scheme }

func (h hybridScheme) Name() string               { return "X25519+" + h.k.Name() }
func (h hybridScheme) EncapsulationKeySize() int  { return dhSize + h.k.EncapsulationKeySize() }
func (h hybridScheme) DecapsulationKeySize() int  { return dhSize + h.k.DecapsulationKeySize() }
func (h hybridScheme) CiphertextSize() int        { return h.k.CiphertextSize() }
func (h hybridScheme) SharedKeySize() int         { return h.k.SharedKeySize() }
func (h hybridScheme) EncapsulationSeedSize() int { return h.k.EncapsulationSeedSize() }

// GenerateKey generates a new X25519 key and a new key of the KEM.
func (h hybridScheme) GenerateKey() (kem.DecapsulationKey, error) {
	return GenerateHybridKey(h.k)
}

// NewDecapsulationKey takes the 32-byte X25519 private key followed by
// the KEM's decapsulation key encoding.
func (h hybridScheme) NewDecapsulationKey(b []byte) (kem.DecapsulationKey, error) {
	if len(b) < dhSize {
		return nil, fmt.Errorf("noise: invalid %s key length %d", h.Name(), len(b))
	}
	dh, err := ecdh.X25519().NewPrivateKey(b[:dhSize])
	if err != nil {
		return nil, fmt.Errorf("noise: %s: %w", h.Name(), err)
	}
	k, err := h.k.NewDecapsulationKey(b[dhSize:])
	if err != nil {
		return nil, err
	}
	return &HybridDecapsulationKey{dh, k}, nil
}

// NewEncapsulationKey takes the 32-byte X25519 public key followed by the
// KEM's encapsulation key.
func (h hybridScheme) NewEncapsulationKey(b []byte) (kem.EncapsulationKey, error) {
	if len(b) != h.EncapsulationKeySize() {
		return nil, fmt.Errorf("noise: invalid %s public key length %d, want %d", h.Name(), len(b), h.EncapsulationKeySize())
	}
	dh, err := ecdh.X25519().NewPublicKey(b[:dhSize])
	if err != nil {
		return nil, fmt.Errorf("noise: %s: %w", h.Name(), err)
	}
	k, err := h.k.NewEncapsulationKey(b[dhSize:])
	if err != nil {
		return nil, err
	}
	return &HybridEncapsulationKey{dh, k}, nil
}

// A HybridDecapsulationKey is the static key pair of a party in a hybrid
// pattern: an X25519 private key and a KEM decapsulation key.
//
// The static keys of the hybrid patterns ([HybridNN] to [HybridIX]) are
// pairs: an X25519 key, for the DH tokens (es, se, ss), and a key of the
// protocol's static KEM, for skem. They are kem keys whose scheme is
// [HybridScheme] of the KEM, so that they go wherever a static key goes:
// [HandshakeConfig.StaticKey], [HandshakeConfig.RemoteStaticKey],
// [Config.StaticKey], [Config.PeerStaticKey], the key given to
// [Config.VerifyPeerStaticKey] and [AllowPeers], and
// [HandshakeState.PeerStaticKey].
//
// Their encodings are the X25519 key followed by the KEM key's: the
// 32-byte public key then the KEM's encapsulation key (Bytes of a
// [HybridEncapsulationKey]), and the 32-byte X25519 private key then the
// KEM's seed (Bytes of a [HybridDecapsulationKey]). Clatter sends the two
// public halves in this order in an s token.
//
// As kem keys, Encapsulate and Decapsulate use the KEM half alone: the
// X25519 half serves only the DH tokens of a handshake.
type HybridDecapsulationKey struct {
	dh *ecdh.PrivateKey
	k  kem.DecapsulationKey
}

// A HybridEncapsulationKey is the static public key of a party in a
// hybrid pattern: an X25519 public key and a KEM encapsulation key.
// See [HybridDecapsulationKey].
type HybridEncapsulationKey struct {
	dh *ecdh.PublicKey
	k  kem.EncapsulationKey
}

var errNotX25519 = errors.New("noise: the DH half of a hybrid key must be an X25519 key")

// NewHybridDecapsulationKey pairs an X25519 private key with a KEM key.
func NewHybridDecapsulationKey(dh *ecdh.PrivateKey, k kem.DecapsulationKey) (*HybridDecapsulationKey, error) {
	if dh == nil || k == nil {
		return nil, errors.New("noise: a hybrid key needs both halves")
	}
	if dh.Curve() != ecdh.X25519() {
		return nil, errNotX25519
	}
	return &HybridDecapsulationKey{dh, k}, nil
}

// NewHybridEncapsulationKey pairs an X25519 public key with a KEM key.
func NewHybridEncapsulationKey(dh *ecdh.PublicKey, k kem.EncapsulationKey) (*HybridEncapsulationKey, error) {
	if dh == nil || k == nil {
		return nil, errors.New("noise: a hybrid key needs both halves")
	}
	if dh.Curve() != ecdh.X25519() {
		return nil, errNotX25519
	}
	return &HybridEncapsulationKey{dh, k}, nil
}

// GenerateHybridKey generates a hybrid static key pair: a new X25519 key
// and a new key of s.
func GenerateHybridKey(s kem.Scheme) (*HybridDecapsulationKey, error) {
	dh, err := ecdh.X25519().GenerateKey(rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("noise: %w", err)
	}
	k, err := s.GenerateKey()
	if err != nil {
		return nil, err
	}
	return &HybridDecapsulationKey{dh, k}, nil
}

// DH returns the X25519 half.
func (k *HybridDecapsulationKey) DH() *ecdh.PrivateKey { return k.dh }

// KEM returns the KEM half.
func (k *HybridDecapsulationKey) KEM() kem.DecapsulationKey { return k.k }

// Scheme returns [HybridScheme] of the KEM half's scheme.
func (k *HybridDecapsulationKey) Scheme() kem.Scheme { return hybridScheme{k.k.Scheme()} }

// Bytes returns the X25519 private key followed by the KEM key's
// encoding. It is secret.
func (k *HybridDecapsulationKey) Bytes() []byte {
	return append(k.dh.Bytes(), k.k.Bytes()...)
}

// Decapsulate decapsulates with the KEM half.
func (k *HybridDecapsulationKey) Decapsulate(ciphertext []byte) ([]byte, error) {
	return k.k.Decapsulate(ciphertext)
}

// EncapsulationKey returns the public key pair.
func (k *HybridDecapsulationKey) EncapsulationKey() kem.EncapsulationKey {
	return k.Public()
}

// Public returns the public key pair.
func (k *HybridDecapsulationKey) Public() *HybridEncapsulationKey {
	return &HybridEncapsulationKey{k.dh.PublicKey(), k.k.EncapsulationKey()}
}

// Encapsulator returns the public key pair.
func (k *HybridDecapsulationKey) Encapsulator() crypto.Encapsulator { return k.Public() }

// Precompute precomputes the KEM half, if its scheme can
// ([kem.Precomputer]).
func (k *HybridDecapsulationKey) Precompute() {
	if p, ok := k.k.(kem.Precomputer); ok {
		p.Precompute()
	}
}

// DH returns the X25519 half.
func (k *HybridEncapsulationKey) DH() *ecdh.PublicKey { return k.dh }

// KEM returns the KEM half.
func (k *HybridEncapsulationKey) KEM() kem.EncapsulationKey { return k.k }

// Scheme returns [HybridScheme] of the KEM half's scheme.
func (k *HybridEncapsulationKey) Scheme() kem.Scheme { return hybridScheme{k.k.Scheme()} }

// Bytes returns the X25519 public key followed by the KEM key's encoding.
func (k *HybridEncapsulationKey) Bytes() []byte {
	return appendKey(k.dh.Bytes(), k.k)
}

// Encapsulate encapsulates to the KEM half.
func (k *HybridEncapsulationKey) Encapsulate() (sharedKey, ciphertext []byte) {
	return k.k.Encapsulate()
}

// Precompute precomputes the KEM half, if its scheme can
// ([kem.Precomputer]).
func (k *HybridEncapsulationKey) Precompute() {
	if p, ok := k.k.(kem.Precomputer); ok {
		p.Precompute()
	}
}

// splitStatic returns the halves of a static key of the protocol: for a
// hybrid pattern the X25519 key and the KEM key of a hybrid key, else no
// X25519 key and the key itself.
func splitStatic(dk kem.DecapsulationKey) (*ecdh.PrivateKey, kem.DecapsulationKey) {
	if h, ok := dk.(*HybridDecapsulationKey); ok {
		return h.dh, h.k
	}
	return nil, dk
}

func splitRemote(ek kem.EncapsulationKey) (*ecdh.PublicKey, kem.EncapsulationKey) {
	if h, ok := ek.(*HybridEncapsulationKey); ok {
		return h.dh, h.k
	}
	return nil, ek
}
