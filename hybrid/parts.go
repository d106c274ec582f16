package hybrid

import (
	"crypto"
	"crypto/ecdh"
	"crypto/rand"
	"fmt"
	"io"

	"github.com/pqkem/pqkem/mlkem"
	"github.com/pqkem/pqkem/mlkem/mlkemtest"
)

const (
	mlkemSeedSize      = mlkem.SeedSize
	mlkemSharedKeySize = mlkem.SharedKeySize
	// mlkemMessageSize is the size of FIPS 203's m, the randomness of one
	// encapsulation.
	mlkemMessageSize = 32
)

// mlkemPart is one ML-KEM level, through package mlkem.
type mlkemPart struct {
	name           string
	ekSize, ctSize int
	newDK          func(seed []byte) (crypto.Decapsulator, error)
	newEK          func(b []byte) (crypto.Encapsulator, error)
	// encapsulate is ML-KEM.Encaps_internal with m, for an ek that newEK
	// or newDK made.
	encapsulate func(ek crypto.Encapsulator, m []byte) (sharedKey, ciphertext []byte, err error)
}

var (
	mlkem512 = newMLKEMPart("ML-KEM-512", mlkem.EncapsulationKeySize512, mlkem.CiphertextSize512,
		mlkem.NewDecapsulationKey512, mlkem.NewEncapsulationKey512, mlkemtest.Encapsulate512)
	mlkem768 = newMLKEMPart("ML-KEM-768", mlkem.EncapsulationKeySize768, mlkem.CiphertextSize768,
		mlkem.NewDecapsulationKey768, mlkem.NewEncapsulationKey768, mlkemtest.Encapsulate768)
	mlkem1024 = newMLKEMPart("ML-KEM-1024", mlkem.EncapsulationKeySize1024, mlkem.CiphertextSize1024,
		mlkem.NewDecapsulationKey1024, mlkem.NewEncapsulationKey1024, mlkemtest.Encapsulate1024)
)

// newMLKEMPart adapts one level of package mlkem, whose key types are DK
// and EK.
func newMLKEMPart[DK crypto.Decapsulator, EK crypto.Encapsulator](name string, ekSize, ctSize int,
	newDK func([]byte) (DK, error), newEK func([]byte) (EK, error), encapsulate func(EK, []byte) ([]byte, []byte, error),
) *mlkemPart {
	return &mlkemPart{
		name: name, ekSize: ekSize, ctSize: ctSize,
		newDK: func(seed []byte) (crypto.Decapsulator, error) {
			dk, err := newDK(seed)
			if err != nil {
				return nil, err
			}
			return dk, nil
		},
		newEK: func(b []byte) (crypto.Encapsulator, error) {
			ek, err := newEK(b)
			if err != nil {
				return nil, err
			}
			return ek, nil
		},
		encapsulate: func(ek crypto.Encapsulator, m []byte) ([]byte, []byte, error) {
			return encapsulate(ek.(EK), m)
		},
	}
}

// ecPart is one elliptic curve, through crypto/ecdh. A nil *ecPart is the
// absent curve of ML-KEM alone: its sizes are zero.
type ecPart struct {
	name  string
	curve ecdh.Curve
	// scalarSize is the size of a private key, pointSize of an encoded
	// public key (uncompressed for P-256 and P-384), secretSize of an ECDH
	// output.
	scalarSize, pointSize, secretSize int
	// candidates is how many scalarSize-byte candidates the randomness of
	// one derandomized encapsulation holds.
	candidates int
	// smallOrderCheck is a private key used to detect X25519 public keys
	// of small order, whose exchange with any key is all zeros.
	smallOrderCheck *ecdh.PrivateKey
}

var (
	x25519 = &ecPart{name: "X25519", curve: ecdh.X25519(), scalarSize: 32, pointSize: 32, secretSize: 32, candidates: 1,
		smallOrderCheck: mustKey(ecdh.X25519(), 32)}
	p256 = &ecPart{name: "P-256", curve: ecdh.P256(), scalarSize: 32, pointSize: 65, secretSize: 32, candidates: 3}
	p384 = &ecPart{name: "P-384", curve: ecdh.P384(), scalarSize: 48, pointSize: 97, secretSize: 48, candidates: 1}
)

func mustKey(c ecdh.Curve, n int) *ecdh.PrivateKey {
	b := make([]byte, n)
	b[0] = 1
	k, err := c.NewPrivateKey(b)
	if err != nil {
		panic(err)
	}
	return k
}

func (e *ecPart) size() int {
	if e == nil {
		return 0
	}
	return e.pointSize
}

func (e *ecPart) scalarLen() int {
	if e == nil {
		return 0
	}
	return e.scalarSize
}

func (e *ecPart) randomLen() int {
	if e == nil {
		return 0
	}
	return e.scalarSize * e.candidates
}

// keyFromStream returns the first candidate read from xof that is a valid
// private key, as draft-ietf-hpke-pq's key expansion (and crypto/hpke)
// does. For X25519 that is always the first. The loop's length depends on
// the secret stream only through candidates that are discarded (not valid
// scalars), which reveals nothing about the key that is kept.
func (e *ecPart) keyFromStream(xof io.Reader) *ecdh.PrivateKey {
	b := make([]byte, e.scalarSize)
	for {
		xof.Read(b)
		if k, err := e.curve.NewPrivateKey(b); err == nil {
			return k
		}
	}
}

// keyFromCandidates returns the first scalarSize-byte candidate in r that
// is a valid private key.
func (e *ecPart) keyFromCandidates(r []byte) (*ecdh.PrivateKey, error) {
	for ; len(r) >= e.scalarSize; r = r[e.scalarSize:] {
		if k, err := e.curve.NewPrivateKey(r[:e.scalarSize]); err == nil {
			return k, nil
		}
	}
	return nil, fmt.Errorf("no valid %s scalar among the %d candidates of the encapsulation randomness", e.name, e.candidates)
}

// newPublicKey parses a point. crypto/ecdh rejects points not on the
// curve, the identity and compressed encodings.
func (e *ecPart) newPublicKey(b []byte) (*ecdh.PublicKey, error) {
	if len(b) != e.pointSize {
		return nil, fmt.Errorf("length %d, want %d", len(b), e.pointSize)
	}
	return e.curve.NewPublicKey(b)
}

// newPeerKey parses a long-term public key: as newPublicKey, and for
// X25519 it also rejects points of small order, with which every exchange
// gives all zeros, so that Encapsulate cannot fail later.
func (e *ecPart) newPeerKey(b []byte) (*ecdh.PublicKey, error) {
	pk, err := e.newPublicKey(b)
	if err != nil {
		return nil, err
	}
	if e.smallOrderCheck != nil {
		if _, err := e.smallOrderCheck.ECDH(pk); err != nil {
			return nil, fmt.Errorf("point of small order (the X25519 output would be all zeros)")
		}
	}
	return pk, nil
}

func randomBytes(n int) []byte {
	b := make([]byte, n)
	rand.Read(b)
	return b
}
