// Package hybrid implements the post-quantum/traditional hybrid KEMs that
// are deployed today, byte-compatible with their peers:
//
//   - X-Wing (draft-connolly-cfrg-xwing-kem), which is also HPKE's
//     MLKEM768-X25519 (KEM id 0x647a): [MLKEM768X25519];
//   - [MLKEM768P256] (0x0050) and [MLKEM1024P384] (0x0051) from
//     draft-ietf-hpke-pq, and ML-KEM-512, ML-KEM-768 and ML-KEM-1024 under
//     their HPKE KEM ids (0x0040, 0x0041, 0x0042: [MLKEM512], [MLKEM768],
//     [MLKEM1024]), with the DeriveKeyPair of that draft
//     ([KEM.DeriveKeyPair]). The functions are named as the standard
//     library's crypto/hpke names them;
//   - the TLS key-share groups of draft-ietf-tls-ecdhe-mlkem:
//     [X25519MLKEM768] (0x11EC), [SecP256r1MLKEM768] (0x11EB) and
//     [SecP384r1MLKEM1024] (0x11ED), where the key share is the encapsulation
//     key, the server's share is the ciphertext and the shared secret is
//     the concatenation of the two components' secrets.
//
// There is one implementation, [KEM], parameterized by what tells the
// schemes apart: an ML-KEM level (the module's one table of levels, on the
// code of package [github.com/pqkem/pqkem/mlkem]), an optional elliptic-curve
// Diffie-Hellman part (crypto/ecdh: X25519, or P-256 or P-384 with
// uncompressed points), the order of the two parts on the wire, how the
// decapsulation key is made from its seed, and how the two shared secrets
// are combined:
//
//   - X-Wing and the HPKE hybrids: the decapsulation key is a 32-byte seed,
//     expanded with SHAKE-256 into the 64-byte ML-KEM seed d || z followed by
//     the elliptic-curve scalar (for P-256 and P-384, the first candidate in
//     the stream that is a valid scalar); the shared secret is
//     SHA3-256(ss_PQ || ss_T || ct_T || ek_T || label).
//   - The TLS groups: no specification defines a key derivation, so the
//     decapsulation key is the two private keys themselves, the 64-byte
//     ML-KEM seed and the elliptic-curve scalar, in key-share order.
//   - ML-KEM alone (the HPKE ML-KEM KEMs): the 64-byte seed d || z, and the
//     ML-KEM shared secret.
//
// Derandomized encapsulation, for known-answer tests, is in package
// [github.com/pqkem/pqkem/hybrid/hybridtest] and nowhere in this package's
// API. It takes FIPS 203's 32-byte m followed by the randomness of the
// ephemeral elliptic-curve key: 32 bytes for X25519, 48 for P-384 and 96
// for P-256 (three 32-byte candidate scalars, tried in order), as in
// draft-ietf-hpke-pq's test vectors.
//
// Every input is checked: lengths, the ML-KEM encapsulation key (FIPS 203
// section 7.2), and elliptic-curve points, which must be on the curve and
// not the identity. An X25519 public key of small order is rejected when it
// is parsed, and an X25519 exchange whose output is all zeros is an error.
// TLS requires that (RFC 8446 section 7.4.2), and crypto/hpke and
// draft-irtf-cfrg-hybrid-kems do it for MLKEM768-X25519; the X-Wing draft
// only allows it (RFC 7748 section 6.1's MAY), so an X-Wing peer that skips
// the check, as CIRCL's kem/xwing does, accepts a small-order X25519 point
// that this package rejects. No honest party ever produces one.
//
// # Use with crypto/hpke
//
// The standard library's crypto/hpke has MLKEM768X25519, MLKEM768P256,
// MLKEM1024P384, MLKEM768 and MLKEM1024 too, and takes this package's keys
// of those KEMs by their bytes: hpke.MLKEM768X25519().NewPublicKey(ek.Bytes())
// to seal, hpke.MLKEM768X25519().NewPrivateKey(dk.Bytes()) to open (the
// function of crypto/hpke with the name of the KEM, or hpke.NewKEM with
// [KEM.HPKEID]). The other way, the Bytes of a crypto/hpke private key is
// the seed [KEM.NewDecapsulationKey] takes. hpke.NewHybridPublicKey and
// hpke.NewHybridPrivateKey do not work with these keys: they accept
// crypto/mlkem's types only. See the examples.
//
// Package [github.com/pqkem/pqkem/kem] registers the six hybrids by name,
// so the command and key files reach them as they reach ML-KEM.
package hybrid

import (
	"bytes"
	"crypto"
	"crypto/ecdh"
	"crypto/rand"
	"crypto/sha3"
	"fmt"

	"github.com/pqkem/pqkem/internal/derand"
	"github.com/pqkem/pqkem/internal/mlkemlevel"
	"github.com/pqkem/pqkem/internal/secret"
)

// Derandomized encapsulation is package hybridtest's (and, through
// package kem's adapter, kemtest's), through internal/derand: random is
// ek.KEM().EncapsulationSeedSize() bytes long (the test packages check).
func init() {
	derand.Register("hybrid.Encapsulate", (*EncapsulationKey).encapsulateDerand)
}

// HPKE KEM identifiers (draft-ietf-hpke-pq, draft-connolly-cfrg-xwing-kem).
const (
	HPKEMLKEM512      uint16 = 0x0040
	HPKEMLKEM768      uint16 = 0x0041
	HPKEMLKEM1024     uint16 = 0x0042
	HPKEMLKEM768P256  uint16 = 0x0050
	HPKEMLKEM1024P384 uint16 = 0x0051
	HPKEXWing         uint16 = 0x647a // MLKEM768-X25519
)

// TLS supported-group codepoints (draft-ietf-tls-ecdhe-mlkem).
const (
	TLSSecP256r1MLKEM768  uint16 = 0x11EB
	TLSX25519MLKEM768     uint16 = 0x11EC
	TLSSecP384r1MLKEM1024 uint16 = 0x11ED
)

// Names of the schemes, as package kem registers them.
const (
	nameXWing              = "X-Wing"
	nameMLKEM768P256       = "MLKEM768-P256"
	nameMLKEM1024P384      = "MLKEM1024-P384"
	nameX25519MLKEM768     = "X25519MLKEM768"
	nameSecP256r1MLKEM768  = "SecP256r1MLKEM768"
	nameSecP384r1MLKEM1024 = "SecP384r1MLKEM1024"
)

const (
	// expandedSeedSize is the size of the seed of X-Wing and the HPKE
	// hybrids, which SHAKE-256 expands into the component keys.
	expandedSeedSize = 32
	// sha3SecretSize is the size of a shared secret of the SHA3-256
	// combiner.
	sha3SecretSize = 32
)

// combiner says how a KEM derives its shared secret from its parts'.
type combiner int

const (
	// mlkemOnly: the ML-KEM shared secret.
	mlkemOnly combiner = iota
	// combineSHA3: SHA3-256(ss_PQ || ss_T || ct_T || ek_T || label), as
	// X-Wing and draft-ietf-hpke-pq define it.
	combineSHA3
	// combineConcat: the two shared secrets in key-share order, as
	// draft-ietf-tls-ecdhe-mlkem defines it.
	combineConcat
)

// KEM is one scheme. Its methods are safe for concurrent use.
type KEM struct {
	name, spec string
	hpkeID     uint16 // 0: none
	tlsGroup   uint16 // 0: none
	pq         *mlkemlevel.Level
	ec         *ecPart // nil for ML-KEM alone
	ecFirst    bool    // the elliptic-curve part comes first on the wire
	expandSeed bool    // the seed is expanded with SHAKE-256
	combiner   combiner
	label      string // for combineSHA3
	// ekWhat names the encapsulation key in errors ("key share" for the
	// TLS groups).
	ekWhat string
}

// xWingLabel is X-Wing's label, the bytes 5c 2e 2f 2f 5e 5c.
const xWingLabel = `\.//^\`

var (
	xWing = &KEM{name: nameXWing, spec: "draft-connolly-cfrg-xwing-kem", hpkeID: HPKEXWing,
		pq: mlkemlevel.MLKEM768(), ec: x25519, expandSeed: true, combiner: combineSHA3, label: xWingLabel}
	mlkem768P256 = &KEM{name: nameMLKEM768P256, spec: "draft-ietf-hpke-pq", hpkeID: HPKEMLKEM768P256,
		pq: mlkemlevel.MLKEM768(), ec: p256, expandSeed: true, combiner: combineSHA3, label: nameMLKEM768P256}
	mlkem1024P384 = &KEM{name: nameMLKEM1024P384, spec: "draft-ietf-hpke-pq", hpkeID: HPKEMLKEM1024P384,
		pq: mlkemlevel.MLKEM1024(), ec: p384, expandSeed: true, combiner: combineSHA3, label: nameMLKEM1024P384}

	x25519MLKEM768 = &KEM{name: nameX25519MLKEM768, spec: "draft-ietf-tls-ecdhe-mlkem", tlsGroup: TLSX25519MLKEM768,
		pq: mlkemlevel.MLKEM768(), ec: x25519, combiner: combineConcat, ekWhat: "key share"}
	secP256r1MLKEM768 = &KEM{name: nameSecP256r1MLKEM768, spec: "draft-ietf-tls-ecdhe-mlkem", tlsGroup: TLSSecP256r1MLKEM768,
		pq: mlkemlevel.MLKEM768(), ec: p256, ecFirst: true, combiner: combineConcat, ekWhat: "key share"}
	secP384r1MLKEM1024 = &KEM{name: nameSecP384r1MLKEM1024, spec: "draft-ietf-tls-ecdhe-mlkem", tlsGroup: TLSSecP384r1MLKEM1024,
		pq: mlkemlevel.MLKEM1024(), ec: p384, ecFirst: true, combiner: combineConcat, ekWhat: "key share"}

	hpkeMLKEM512  = &KEM{name: "ML-KEM-512", spec: "draft-ietf-hpke-pq", hpkeID: HPKEMLKEM512, pq: mlkemlevel.MLKEM512(), combiner: mlkemOnly}
	hpkeMLKEM768  = &KEM{name: "ML-KEM-768", spec: "draft-ietf-hpke-pq", hpkeID: HPKEMLKEM768, pq: mlkemlevel.MLKEM768(), combiner: mlkemOnly}
	hpkeMLKEM1024 = &KEM{name: "ML-KEM-1024", spec: "draft-ietf-hpke-pq", hpkeID: HPKEMLKEM1024, pq: mlkemlevel.MLKEM1024(), combiner: mlkemOnly}
)

// MLKEM768X25519 returns HPKE's MLKEM768-X25519 (draft-ietf-hpke-pq), also
// known as X-Wing (draft-connolly-cfrg-xwing-kem), registered in package
// kem as "X-Wing".
func MLKEM768X25519() *KEM { return xWing }

// MLKEM768P256 returns HPKE's MLKEM768-P256 (draft-ietf-hpke-pq).
func MLKEM768P256() *KEM { return mlkem768P256 }

// MLKEM1024P384 returns HPKE's MLKEM1024-P384 (draft-ietf-hpke-pq).
func MLKEM1024P384() *KEM { return mlkem1024P384 }

// X25519MLKEM768 returns the TLS group X25519MLKEM768.
func X25519MLKEM768() *KEM { return x25519MLKEM768 }

// SecP256r1MLKEM768 returns the TLS group SecP256r1MLKEM768.
func SecP256r1MLKEM768() *KEM { return secP256r1MLKEM768 }

// SecP384r1MLKEM1024 returns the TLS group SecP384r1MLKEM1024.
func SecP384r1MLKEM1024() *KEM { return secP384r1MLKEM1024 }

// MLKEM512 returns ML-KEM-512 as draft-ietf-hpke-pq defines it for HPKE
// (KEM id 0x0040): the keys of package mlkem, plus the draft's
// [KEM.DeriveKeyPair]. Package kem does not register it under its name,
// which belongs to the plain ML-KEM-512 scheme (the same keys, without
// HPKE's id or DeriveKeyPair).
func MLKEM512() *KEM { return hpkeMLKEM512 }

// MLKEM768 returns ML-KEM-768 as draft-ietf-hpke-pq defines it for HPKE
// (KEM id 0x0041), as [MLKEM512] does for ML-KEM-512.
func MLKEM768() *KEM { return hpkeMLKEM768 }

// MLKEM1024 returns ML-KEM-1024 as draft-ietf-hpke-pq defines it for HPKE
// (KEM id 0x0042), as [MLKEM512] does for ML-KEM-512.
func MLKEM1024() *KEM { return hpkeMLKEM1024 }

// All returns the six hybrids, in the order package kem registers them:
// [MLKEM768X25519], [MLKEM768P256], [MLKEM1024P384], [X25519MLKEM768],
// [SecP256r1MLKEM768], [SecP384r1MLKEM1024].
func All() []*KEM {
	return []*KEM{xWing, mlkem768P256, mlkem1024P384, x25519MLKEM768, secP256r1MLKEM768, secP384r1MLKEM1024}
}

// ByHPKEID returns the KEM with the given HPKE KEM id, if this package has
// it: the three HPKE hybrids and [MLKEM512], [MLKEM768], [MLKEM1024].
func ByHPKEID(id uint16) (*KEM, bool) {
	for _, k := range append(All(), hpkeMLKEM512, hpkeMLKEM768, hpkeMLKEM1024) {
		if k.hpkeID == id && id != 0 {
			return k, true
		}
	}
	return nil, false
}

// ByTLSGroup returns the KEM of the given TLS supported-group codepoint, if
// this package has it.
func ByTLSGroup(codepoint uint16) (*KEM, bool) {
	for _, k := range All() {
		if k.tlsGroup == codepoint && codepoint != 0 {
			return k, true
		}
	}
	return nil, false
}

// Name returns the scheme's name, for example "X25519MLKEM768".
func (k *KEM) Name() string { return k.name }

// Specification names the document that specifies the scheme.
func (k *KEM) Specification() string { return k.spec }

// HPKEID returns the scheme's HPKE KEM identifier, and false if HPKE has
// none for it (the TLS groups).
func (k *KEM) HPKEID() (id uint16, ok bool) { return k.hpkeID, k.hpkeID != 0 }

// TLSGroup returns the scheme's TLS supported-group codepoint, and false if
// it is not a TLS group.
func (k *KEM) TLSGroup() (codepoint uint16, ok bool) { return k.tlsGroup, k.tlsGroup != 0 }

// EncapsulationKeySize is the size of an encapsulation key (for the TLS
// groups, the client's key share).
func (k *KEM) EncapsulationKeySize() int { return k.pq.EncapsulationKeySize() + k.ec.size() }

// CiphertextSize is the size of a ciphertext (for the TLS groups, the
// server's key share).
func (k *KEM) CiphertextSize() int { return k.pq.CiphertextSize() + k.ec.size() }

// SharedKeySize is the size of a shared key.
func (k *KEM) SharedKeySize() int {
	switch k.combiner {
	case combineSHA3:
		return sha3SecretSize
	case combineConcat:
		return mlkemlevel.SharedKeySize + k.ec.secretSize
	}
	return mlkemlevel.SharedKeySize
}

// SeedSize is the size of the seed [KEM.NewDecapsulationKey] takes, which
// is what [DecapsulationKey.Bytes] returns: 32 bytes for X-Wing and the
// HPKE hybrids, the ML-KEM seed and the scalar for the TLS groups (96, 96
// and 112 bytes), and 64 for ML-KEM alone.
func (k *KEM) SeedSize() int {
	if k.expandSeed {
		return expandedSeedSize
	}
	return mlkemlevel.SeedSize + k.ec.scalarLen()
}

// EncapsulationSeedSize is the size of the randomness of one derandomized
// encapsulation: ML-KEM's 32-byte m, then the randomness of the ephemeral
// elliptic-curve key (32 bytes for X25519, 96 for P-256, 48 for P-384), in
// that order for every scheme.
func (k *KEM) EncapsulationSeedSize() int { return mlkemlevel.MessageSize + k.ec.randomLen() }

func (k *KEM) errorf(format string, args ...any) error {
	return fmt.Errorf("hybrid: "+k.name+": "+format, args...)
}

func (k *KEM) ekName() string {
	if k.ekWhat != "" {
		return k.ekWhat
	}
	return "encapsulation key"
}

// split cuts b, which is len(pq part) + len(ec part) long, into its parts.
func (k *KEM) split(b []byte, pqLen int) (pq, ec []byte) {
	if k.ecFirst {
		ecLen := len(b) - pqLen
		return b[ecLen:], b[:ecLen]
	}
	return b[:pqLen], b[pqLen:]
}

// join concatenates the parts in the scheme's order.
func (k *KEM) join(pq, ec []byte) []byte {
	out := make([]byte, 0, len(pq)+len(ec))
	if k.ecFirst {
		return append(append(out, ec...), pq...)
	}
	return append(append(out, pq...), ec...)
}

// GenerateKey generates a decapsulation key from crypto/rand.
func (k *KEM) GenerateKey() (dk *DecapsulationKey, err error) {
	secret.Do(func() { dk, err = k.generateKey() })
	return dk, err
}

func (k *KEM) generateKey() (*DecapsulationKey, error) {
	if k.expandSeed || k.ec == nil {
		return k.NewDecapsulationKey(randomBytes(k.SeedSize()))
	}
	sk, err := k.ec.curve.GenerateKey(rand.Reader)
	if err != nil {
		return nil, k.errorf("%w", err)
	}
	return k.newDecapsulationKey(k.join(randomBytes(mlkemlevel.SeedSize), sk.Bytes()), sk)
}

// NewDecapsulationKey makes the decapsulation key of a seed of
// [KEM.SeedSize] bytes (what [DecapsulationKey.Bytes] returns). For the TLS groups the seed
// is the ML-KEM seed d || z and the elliptic-curve private key in
// key-share order, and a scalar that is not a valid private key (zero, or
// not less than the group order) is an error.
func (k *KEM) NewDecapsulationKey(seed []byte) (dk *DecapsulationKey, err error) {
	secret.Do(func() { dk, err = k.newDecapsulationKey(seed, nil) })
	return dk, err
}

// newDecapsulationKey is NewDecapsulationKey; ecKey, if not nil, is the
// elliptic-curve key the seed holds, already made (by GenerateKey, so that
// its public point is not computed twice).
func (k *KEM) newDecapsulationKey(seed []byte, ecKey *ecdh.PrivateKey) (*DecapsulationKey, error) {
	if len(seed) != k.SeedSize() {
		return nil, k.errorf("invalid decapsulation key length %d, want %d", len(seed), k.SeedSize())
	}
	var pqSeed []byte
	if k.expandSeed {
		xof := sha3.NewSHAKE256()
		xof.Write(seed)
		pqSeed = make([]byte, mlkemlevel.SeedSize)
		xof.Read(pqSeed)
		ecKey = k.ec.keyFromStream(xof)
	} else {
		var ecSeed []byte
		pqSeed, ecSeed = k.split(seed, mlkemlevel.SeedSize)
		if k.ec != nil && ecKey == nil {
			var err error
			if ecKey, err = k.ec.curve.NewPrivateKey(ecSeed); err != nil {
				return nil, k.errorf("invalid %s private key: %w", k.ec.name, err)
			}
		}
	}
	pq, err := k.pq.NewDecapsulationKey(pqSeed)
	if err != nil {
		return nil, k.errorf("%w", err)
	}
	dk := &DecapsulationKey{k: k, seed: bytes.Clone(seed), pq: pq, ec: ecKey}
	dk.ek = &EncapsulationKey{k: k, pq: pq.EncapsulationKey()}
	if ecKey != nil {
		dk.ek.ec = ecKey.PublicKey()
		dk.ek.setBytes(k.join(dk.ek.pq.Bytes(), dk.ek.ec.Bytes()))
	} else {
		dk.ek.setBytes(dk.ek.pq.Bytes())
	}
	return dk, nil
}

// DeriveKeyPair is HPKE's DeriveKeyPair (RFC 9180, section 7.1.3), as
// draft-ietf-hpke-pq defines it for this KEM and the standard library's
// crypto/hpke KEM.DeriveKeyPair computes it: ikm is input keying material
// of any length (at least [KEM.SeedSize] bytes of entropy), the seed is
// LabeledDerive(ikm, "DeriveKeyPair", "") with SHAKE-256, and the key is
// made from the seed as [KEM.NewDecapsulationKey] makes it. It is not
// NewDecapsulationKey: DeriveKeyPair(seed) and NewDecapsulationKey(seed)
// are different keys. It is an error for the TLS groups, which HPKE does
// not define.
func (k *KEM) DeriveKeyPair(ikm []byte) (dk *DecapsulationKey, err error) {
	secret.Do(func() { dk, err = k.deriveKeyPair(ikm) })
	return dk, err
}

func (k *KEM) deriveKeyPair(ikm []byte) (*DecapsulationKey, error) {
	if k.hpkeID == 0 {
		return nil, k.errorf("not an HPKE KEM, so it has no DeriveKeyPair")
	}
	n := k.SeedSize()
	h := sha3.NewSHAKE256()
	h.Write(ikm)
	h.Write([]byte("HPKE-v1"))
	h.Write([]byte{'K', 'E', 'M', byte(k.hpkeID >> 8), byte(k.hpkeID)})
	label := "DeriveKeyPair"
	h.Write([]byte{0, byte(len(label))})
	h.Write([]byte(label))
	h.Write([]byte{byte(n >> 8), byte(n)}) // and an empty context
	seed := make([]byte, n)
	h.Read(seed)
	return k.newDecapsulationKey(seed, nil)
}

// NewEncapsulationKey parses an encapsulation key (for the TLS groups, a
// client key share), checking its length, the ML-KEM part as FIPS 203
// section 7.2 asks, and that the elliptic-curve point is a valid point that
// is not the identity and, for X25519, not of small order.
func (k *KEM) NewEncapsulationKey(b []byte) (*EncapsulationKey, error) {
	if len(b) != k.EncapsulationKeySize() {
		return nil, k.errorf("invalid %s length %d, want %d", k.ekName(), len(b), k.EncapsulationKeySize())
	}
	pqBytes, ecBytes := k.split(b, k.pq.EncapsulationKeySize())
	pq, err := k.pq.NewEncapsulationKey(pqBytes)
	if err != nil {
		return nil, k.errorf("invalid %s in %s: %w", k.pq.Name(), k.ekName(), err)
	}
	ek := &EncapsulationKey{k: k, pq: pq}
	ek.setBytes(bytes.Clone(b))
	if k.ec != nil {
		if ek.ec, err = k.ec.newPeerKey(ecBytes); err != nil {
			return nil, k.errorf("invalid %s point in %s: %w", k.ec.name, k.ekName(), err)
		}
	}
	return ek, nil
}

// combine computes the shared key from the parts' shared secrets, the
// elliptic-curve part of the ciphertext and the recipient's
// elliptic-curve public key.
func (k *KEM) combine(ssPQ, ssT, ctT, ekT []byte) []byte {
	switch k.combiner {
	case combineSHA3:
		h := sha3.New256()
		h.Write(ssPQ)
		h.Write(ssT)
		h.Write(ctT)
		h.Write(ekT)
		h.Write([]byte(k.label))
		return h.Sum(nil)
	case combineConcat:
		return k.join(ssPQ, ssT)
	}
	return ssPQ
}

// DecapsulationKey is a private key of a [KEM].
type DecapsulationKey struct {
	k    *KEM
	seed []byte
	pq   mlkemlevel.DecapsulationKey
	ec   *ecdh.PrivateKey // nil for ML-KEM alone
	ek   *EncapsulationKey
}

// KEM returns the key's scheme.
func (dk *DecapsulationKey) KEM() *KEM { return dk.k }

// Bytes returns the seed the key was made from, of [KEM.SeedSize] bytes,
// in the form [KEM.NewDecapsulationKey] takes. It is secret.
func (dk *DecapsulationKey) Bytes() []byte { return bytes.Clone(dk.seed) }

// EncapsulationKey returns the public key that goes with dk.
func (dk *DecapsulationKey) EncapsulationKey() *EncapsulationKey { return dk.ek }

// Encapsulator returns the public key that goes with dk, as a
// [crypto.Encapsulator].
func (dk *DecapsulationKey) Encapsulator() crypto.Encapsulator { return dk.ek }

// Decapsulate returns the shared key encapsulated in ciphertext. A
// ciphertext of the wrong length, an invalid elliptic-curve point or an
// all-zero X25519 output is an error; a well-formed ciphertext that was not
// made for this key is not (ML-KEM's implicit rejection gives an unrelated
// key).
func (dk *DecapsulationKey) Decapsulate(ciphertext []byte) (sharedKey []byte, err error) {
	secret.Do(func() { sharedKey, err = dk.decapsulate(ciphertext) })
	return sharedKey, err
}

func (dk *DecapsulationKey) decapsulate(ciphertext []byte) (sharedKey []byte, err error) {
	k := dk.k
	if len(ciphertext) != k.CiphertextSize() {
		return nil, k.errorf("invalid ciphertext length %d, want %d", len(ciphertext), k.CiphertextSize())
	}
	ctPQ, ctT := k.split(ciphertext, k.pq.CiphertextSize())
	ssPQ, err := dk.pq.Decapsulate(ctPQ)
	if err != nil {
		return nil, k.errorf("%w", err)
	}
	if dk.ec == nil {
		return ssPQ, nil
	}
	peer, err := k.ec.newPublicKey(ctT)
	if err != nil {
		return nil, k.errorf("invalid %s point in ciphertext: %w", k.ec.name, err)
	}
	ssT, err := dk.ec.ECDH(peer)
	if err != nil {
		return nil, k.errorf("%s exchange with the ciphertext's point failed: %w", k.ec.name, err)
	}
	return k.combine(ssPQ, ssT, ctT, dk.ek.ecBytes), nil
}

// EncapsulationKey is a public key of a [KEM].
type EncapsulationKey struct {
	k     *KEM
	pq    mlkemlevel.EncapsulationKey
	ec    *ecdh.PublicKey // nil for ML-KEM alone
	bytes []byte
	// ecBytes is ec's encoding, the elliptic-curve part of bytes (for
	// the combiner, without a copy per operation).
	ecBytes []byte
}

// setBytes sets the key's encoding b, and ecBytes from it.
func (ek *EncapsulationKey) setBytes(b []byte) {
	ek.bytes = b
	if ek.k.ec != nil {
		_, ek.ecBytes = ek.k.split(b, ek.k.pq.EncapsulationKeySize())
	}
}

// KEM returns the key's scheme.
func (ek *EncapsulationKey) KEM() *KEM { return ek.k }

// Bytes returns the encoded key (for the TLS groups, the key share).
func (ek *EncapsulationKey) Bytes() []byte { return bytes.Clone(ek.bytes) }

// Encapsulate generates a shared key and the ciphertext that carries it,
// with randomness from crypto/rand.
func (ek *EncapsulationKey) Encapsulate() (sharedKey, ciphertext []byte) {
	secret.Do(func() { sharedKey, ciphertext = ek.encapsulate() })
	return sharedKey, ciphertext
}

func (ek *EncapsulationKey) encapsulate() (sharedKey, ciphertext []byte) {
	ssPQ, ctPQ := ek.pq.Encapsulate()
	if ek.ec == nil {
		return ssPQ, ctPQ
	}
	eph, err := ek.k.ec.curve.GenerateKey(rand.Reader)
	if err != nil {
		panic("hybrid: " + err.Error())
	}
	sharedKey, ciphertext, err = ek.finish(ssPQ, ctPQ, eph)
	if err != nil {
		// The peer's point was checked when the key was parsed.
		panic("hybrid: internal error: " + err.Error())
	}
	return sharedKey, ciphertext
}

// encapsulateDerand encapsulates with random as the randomness, of
// KEM().EncapsulationSeedSize() bytes: ML-KEM's 32-byte m, then the
// ephemeral elliptic-curve key's randomness. It is package hybridtest's
// Encapsulate, for known-answer tests.
func (ek *EncapsulationKey) encapsulateDerand(random []byte) (sharedKey, ciphertext []byte, err error) {
	k := ek.k
	ssPQ, ctPQ := ek.pq.EncapsulateInternal((*[mlkemlevel.MessageSize]byte)(random[:mlkemlevel.MessageSize]))
	if ek.ec == nil {
		return ssPQ, ctPQ, nil
	}
	eph, err := k.ec.keyFromCandidates(random[mlkemlevel.MessageSize:])
	if err != nil {
		return nil, nil, k.errorf("%w", err)
	}
	return ek.finish(ssPQ, ctPQ, eph)
}

// finish completes an encapsulation with the ephemeral key eph.
func (ek *EncapsulationKey) finish(ssPQ, ctPQ []byte, eph *ecdh.PrivateKey) (sharedKey, ciphertext []byte, err error) {
	k := ek.k
	ssT, err := eph.ECDH(ek.ec)
	if err != nil {
		return nil, nil, k.errorf("%s exchange failed: %w", k.ec.name, err)
	}
	ctT := eph.PublicKey().Bytes()
	return k.combine(ssPQ, ssT, ctT, ek.ecBytes), k.join(ctPQ, ctT), nil
}
