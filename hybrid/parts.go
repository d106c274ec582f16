package hybrid

import (
	"crypto/ecdh"
	"crypto/rand"
	"fmt"
	"io"
)

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
	// rejectSmallOrder says that public keys of small order, whose
	// exchange with any key is all zeros, are rejected (X25519).
	rejectSmallOrder bool
}

var (
	x25519 = &ecPart{name: "X25519", curve: ecdh.X25519(), scalarSize: 32, pointSize: 32, secretSize: 32, candidates: 1,
		rejectSmallOrder: true}
	p256 = &ecPart{name: "P-256", curve: ecdh.P256(), scalarSize: 32, pointSize: 65, secretSize: 32, candidates: 3}
	p384 = &ecPart{name: "P-384", curve: ecdh.P384(), scalarSize: 48, pointSize: 97, secretSize: 48, candidates: 1}
)

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
	if e.rejectSmallOrder {
		if x25519SmallOrder(b) {
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

// x25519SmallOrderU are the u-coordinates of the points of small order of
// Curve25519 and of its quadratic twist, which X25519 maps to all zeros
// whatever the scalar (a clamped scalar is a multiple of the cofactor 8,
// and of the twist's 4): 0 (order 2), 1 and p-1 (order 4, one on the curve
// and one on the twist), the two u of the points of order 8, and the two
// that are non-canonical encodings of these, p and p+1 (u + p for any
// other of them does not fit in 255 bits). Little-endian, as RFC 7748
// encodes them.
var x25519SmallOrderU = [7][32]byte{
	{0},
	{1},
	{0xe0, 0xeb, 0x7a, 0x7c, 0x3b, 0x41, 0xb8, 0xae, 0x16, 0x56, 0xe3, 0xfa, 0xf1, 0x9f, 0xc4, 0x6a,
		0xda, 0x09, 0x8d, 0xeb, 0x9c, 0x32, 0xb1, 0xfd, 0x86, 0x62, 0x05, 0x16, 0x5f, 0x49, 0xb8, 0x00},
	{0x5f, 0x9c, 0x95, 0xbc, 0xa3, 0x50, 0x8c, 0x24, 0xb1, 0xd0, 0xb1, 0x55, 0x9c, 0x83, 0xef, 0x5b,
		0x04, 0x44, 0x5c, 0xc4, 0x58, 0x1c, 0x8e, 0x86, 0xd8, 0x22, 0x4e, 0xdd, 0xd0, 0x9f, 0x11, 0x57},
	{0xec, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
		0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f}, // p - 1
	{0xed, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
		0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f}, // p
	{0xee, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
		0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f}, // p + 1
}

// x25519SmallOrder reports whether the 32-byte X25519 public key b is of
// small order, so that every exchange with it gives all zeros: its u, with
// the top bit ignored as RFC 7748 section 5 asks, is one of
// x25519SmallOrderU. It gives the answer that an X25519 exchange with any
// key would (TestX25519SmallOrder checks that against crypto/ecdh) in
// nanoseconds instead of a scalar multiplication. Public keys are public:
// the comparison need not be constant time.
func x25519SmallOrder(b []byte) bool {
	var u [32]byte
	copy(u[:], b)
	u[31] &= 0x7f
	for i := range x25519SmallOrderU {
		if u == x25519SmallOrderU[i] {
			return true
		}
	}
	return false
}
