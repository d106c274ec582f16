// Package keyfile reads and writes the keys of every scheme in package
// [github.com/pqkem/pqkem/kem] as files, in PEM, DER or raw form.
//
// # Encodings
//
// Schemes with an assigned object identifier use the standard containers:
// a private key is a PKCS#8 OneAsymmetricKey (RFC 5958, PEM type
// "PRIVATE KEY") and a public key a SubjectPublicKeyInfo (RFC 5280, PEM
// type "PUBLIC KEY"), with the algorithm identifier's parameters absent.
//
//   - ML-KEM-512, ML-KEM-768 and ML-KEM-1024 follow RFC 9935, with the NIST
//     OIDs 2.16.840.1.101.3.4.4.1, .2 and .3. The public key is the raw
//     encapsulation key in the BIT STRING. The PKCS#8 privateKey holds the
//     CHOICE seed [0] IMPLICIT OCTET STRING (64 bytes, d || z),
//     expandedKey OCTET STRING (the FIPS 203 decapsulation key) or both
//     SEQUENCE { seed, expandedKey }. The writer uses the seed form (86
//     bytes of DER at every level) unless asked for another; the reader
//     takes all three, choosing by the DER tag (0x80, 0x04, 0x30), never by
//     the length. An expanded key must pass the FIPS 203 section 7.3 hash
//     check and a pairwise consistency check (an encapsulation to the key's
//     own encapsulation key must decapsulate to the same shared key); in
//     the both form, the expanded key must be the one the seed derives.
//     The pre-RFC encodings, privateKey holding the bare 64-byte seed or
//     the bare expanded key with no tag of their own (OpenSSL 3.5's
//     bare-seed and bare-priv; the seed also wrapped in an OCTET STRING),
//     are read only with [Options].Lenient; no RFC 9935 encoding has their
//     lengths, so they cannot be mistaken for one.
//   - X-Wing (draft-connolly-cfrg-xwing-kem) has the OID
//     1.3.6.1.4.1.62253.25722; its public key is the raw 1216-byte
//     encapsulation key and its PKCS#8 privateKey the raw 32-byte seed,
//     with no inner ASN.1. It works as soon as a scheme named "X-Wing" is
//     registered in package [kem].
//
// Schemes without an assigned OID (FrodoKEM, the TLS hybrids such as
// X25519MLKEM768, and any scheme registered from elsewhere) never get a
// made-up OID. They use pqkem's own PEM format, which works for every
// scheme by name:
//
//	-----BEGIN PQKEM PRIVATE KEY-----
//	Scheme: FrodoKEM-640-AES
//
//	<base64 of DecapsulationKey.Bytes()>
//	-----END PQKEM PRIVATE KEY-----
//
// and the same with "PQKEM PUBLIC KEY" and [kem.EncapsulationKey]'s Bytes
// for public keys. The Scheme header, the only header allowed, holds the
// name [kem.ByName] takes; the body is the scheme's own encoding of the key,
// [kem.DecapsulationKey]'s Bytes (for every scheme of this module the
// seed, or the expanded form for a FrodoKEM key read from one).
// These schemes have no DER form. The reader takes the pqkem format for
// schemes with an OID too, but the writer never produces it for them.
//
// The raw format is the scheme's own encoding without any container (the
// key's Bytes); reading it needs the scheme from elsewhere
// ([Options].Scheme).
//
// A single-use scheme ([kem.SingleUse]: the CCS 2016 Frodo key exchange,
// whose keys serve one exchange) has no key files: every function here
// refuses its keys with an error wrapping [ErrSingleUse].
//
// Every private key read is checked: keys from a seed are derived from it;
// keys read in any other form go through the pairwise consistency check.
// Errors start with "keyfile: " and name the scheme, the field and what
// was wrong.
package keyfile

import (
	"bytes"
	"crypto/sha256"
	"crypto/subtle"
	"crypto/x509"
	"encoding/asn1"
	"encoding/hex"
	"encoding/pem"
	"errors"
	"fmt"
	"strings"

	"github.com/pqkem/pqkem/kem"
)

// PEM block types.
const (
	// PEMPrivateKey is the PEM type of a PKCS#8 private key.
	PEMPrivateKey = "PRIVATE KEY"
	// PEMPublicKey is the PEM type of a SubjectPublicKeyInfo.
	PEMPublicKey = "PUBLIC KEY"
	// PEMCertificate is the PEM type of an X.509 certificate, from which
	// DecodePublicKey takes the subject's public key.
	PEMCertificate = "CERTIFICATE"
	// PEMProjectPrivateKey is the PEM type of a private key in pqkem's
	// format, for schemes without an OID.
	PEMProjectPrivateKey = "PQKEM PRIVATE KEY"
	// PEMProjectPublicKey is the PEM type of a public key in pqkem's
	// format, for schemes without an OID.
	PEMProjectPublicKey = "PQKEM PUBLIC KEY"
	// SchemeHeader is the PEM header that names the scheme in pqkem's
	// format.
	SchemeHeader = "Scheme"
)

// Format is the outer form of a key file.
type Format int

const (
	// Auto, for reading only: PEM if the input has a PEM block, DER
	// otherwise.
	Auto Format = iota
	// PEM is a PEM block: PKCS#8 or SubjectPublicKeyInfo for schemes with
	// an OID, pqkem's format for the others.
	PEM
	// DER is PKCS#8 or SubjectPublicKeyInfo DER, for schemes with an OID.
	DER
	// Raw is the scheme's own encoding of the key, with no container.
	Raw
)

var formatNames = []string{Auto: "auto", PEM: "pem", DER: "der", Raw: "raw"}

func (f Format) String() string {
	if f >= 0 && int(f) < len(formatNames) {
		return formatNames[f]
	}
	return fmt.Sprintf("Format(%d)", int(f))
}

// ParseFormat parses the name of a format: "auto", "pem", "der" or "raw",
// in any case.
func ParseFormat(s string) (Format, error) {
	for f, name := range formatNames {
		if strings.EqualFold(s, name) {
			return Format(f), nil
		}
	}
	return 0, fmt.Errorf("keyfile: unknown format %q, want pem, der or raw", s)
}

// Form is how a private key is stored.
type Form int

const (
	// FormSeed is a seed the key is derived from: RFC 9935's seed [0]
	// for ML-KEM (d || z), the 32-byte seed for X-Wing.
	FormSeed Form = iota + 1
	// FormExpanded is RFC 9935's expandedKey: the FIPS 203 decapsulation
	// key.
	FormExpanded
	// FormBoth is RFC 9935's both: the seed and the expanded key.
	FormBoth
	// FormBareSeed is a pre-RFC 9935 ML-KEM encoding: the 64-byte seed
	// with no tag of its own in the privateKey OCTET STRING (OpenSSL 3.5's
	// bare-seed), or in an OCTET STRING in it. Read only with
	// Options.Lenient.
	FormBareSeed
	// FormBareExpanded is a pre-RFC 9935 ML-KEM encoding: the expanded
	// key with no tag of its own in the privateKey OCTET STRING (OpenSSL
	// 3.5's bare-priv). Read only with Options.Lenient.
	FormBareExpanded
	// FormBytes is the scheme's own encoding of the key
	// (DecapsulationKey.Bytes), as pqkem's PEM format and the raw format
	// hold it.
	FormBytes
)

func (f Form) String() string {
	switch f {
	case FormSeed:
		return "seed"
	case FormExpanded:
		return "expandedKey"
	case FormBoth:
		return "both"
	case FormBareSeed:
		return "bare seed (pre-RFC 9935)"
	case FormBareExpanded:
		return "bare expanded key (pre-RFC 9935)"
	case FormBytes:
		return "scheme encoding"
	}
	return fmt.Sprintf("Form(%d)", int(f))
}

// Options say how to read a key. The zero value (or a nil *Options)
// detects PEM or DER, takes every scheme and is strict.
type Options struct {
	// Format is the expected format; Auto detects PEM or DER. Raw needs
	// Scheme.
	Format Format
	// Scheme, if not nil, is the scheme the key must have; it is needed
	// to read a raw key.
	Scheme kem.Scheme
	// Lenient accepts the pre-RFC 9935 ML-KEM private key encodings: the
	// bare 64-byte seed or the bare expanded key in the PKCS#8 privateKey
	// (FormBareSeed, FormBareExpanded).
	Lenient bool
}

// PrivateKey is a private key read from a file.
type PrivateKey struct {
	Key    kem.DecapsulationKey
	Form   Form   // how the key was stored
	Format Format // PEM, DER or Raw
	// PEMType is the type of the PEM block the key was read from, if
	// Format is PEM.
	PEMType string
}

// PublicKey is a public key read from a file.
type PublicKey struct {
	Key    kem.EncapsulationKey
	Format Format // PEM, DER or Raw
	// PEMType is the type of the PEM block the key was read from, if
	// Format is PEM: PUBLIC KEY, PQKEM PUBLIC KEY or CERTIFICATE.
	PEMType string
}

// ErrNoOID is returned (wrapped) when a DER encoding is asked for a scheme
// that has no object identifier.
var ErrNoOID = errors.New("no object identifier assigned")

// ErrSingleUse is returned (wrapped) for a key of a single-use scheme
// ([kem.SingleUse]: the CCS 2016 Frodo key exchange), in any format, to
// write or to read: such a key serves one exchange and is never stored.
var ErrSingleUse = errors.New("single-use keys have no key files")

// storable returns an error wrapping [ErrSingleUse] for a single-use scheme.
func storable(s kem.Scheme) error {
	if kem.SingleUse(s) {
		return fmt.Errorf("keyfile: %s keys serve one exchange and are never stored: %w", s.Name(), ErrSingleUse)
	}
	return nil
}

// EncodePrivateKey encodes dk in format f ([PEM], [DER] or [Raw]). PEM and DER
// are PKCS#8, with the seed form for ML-KEM, for schemes with an OID; PEM
// is pqkem's format for the others, which have no DER form. The result is
// secret.
func EncodePrivateKey(dk kem.DecapsulationKey, f Format) ([]byte, error) {
	s := dk.Scheme()
	if err := storable(s); err != nil {
		return nil, err
	}
	switch f {
	case PEM:
		if _, ok := lookupName(s.Name()); !ok {
			return encodeProjectPEM(PEMProjectPrivateKey, s, dk.Bytes()), nil
		}
		der, err := MarshalPKCS8PrivateKey(dk)
		if err != nil {
			return nil, err
		}
		return pem.EncodeToMemory(&pem.Block{Type: PEMPrivateKey, Bytes: der}), nil
	case DER:
		return MarshalPKCS8PrivateKey(dk)
	case Raw:
		return dk.Bytes(), nil
	}
	return nil, fmt.Errorf("keyfile: cannot encode %s private keys in format %v", s.Name(), f)
}

// EncodePublicKey encodes ek in format f ([PEM], [DER] or [Raw]):
// SubjectPublicKeyInfo for schemes with an OID, pqkem's PEM format for the
// others, which have no DER form.
func EncodePublicKey(ek kem.EncapsulationKey, f Format) ([]byte, error) {
	s := ek.Scheme()
	if err := storable(s); err != nil {
		return nil, err
	}
	switch f {
	case PEM:
		if _, ok := lookupName(s.Name()); !ok {
			return encodeProjectPEM(PEMProjectPublicKey, s, ek.Bytes()), nil
		}
		der, err := MarshalPKIXPublicKey(ek)
		if err != nil {
			return nil, err
		}
		return pem.EncodeToMemory(&pem.Block{Type: PEMPublicKey, Bytes: der}), nil
	case DER:
		return MarshalPKIXPublicKey(ek)
	case Raw:
		return ek.Bytes(), nil
	}
	return nil, fmt.Errorf("keyfile: cannot encode %s public keys in format %v", s.Name(), f)
}

func encodeProjectPEM(typ string, s kem.Scheme, body []byte) []byte {
	return pem.EncodeToMemory(&pem.Block{Type: typ, Headers: map[string]string{SchemeHeader: s.Name()}, Bytes: body})
}

// DecodePrivateKey reads a private key in any format opts allows: PEM
// (PKCS#8 or pqkem's format), DER (PKCS#8) or, with [Options].Format [Raw]
// and [Options].Scheme set, the scheme's raw encoding.
func DecodePrivateKey(data []byte, opts *Options) (*PrivateKey, error) {
	priv, pub, err := decode(data, opts, wantPrivate)
	if err != nil {
		return nil, err
	}
	if pub != nil {
		return nil, errors.New("keyfile: this is a public key, want a private key")
	}
	return priv, nil
}

// DecodePublicKey reads a public key in any format opts allows: PEM
// (SubjectPublicKeyInfo, pqkem's format, or an X.509 certificate, whose
// subject public key it returns without verifying the certificate), DER
// (SubjectPublicKeyInfo) or, with [Options].Format [Raw] and
// [Options].Scheme set, the scheme's raw encoding.
func DecodePublicKey(data []byte, opts *Options) (*PublicKey, error) {
	priv, pub, err := decode(data, opts, wantPublic)
	if err != nil {
		return nil, err
	}
	if priv != nil {
		return nil, errors.New("keyfile: this is a private key, want a public key")
	}
	return pub, nil
}

// Decode reads a private or a public key, whichever data holds, and
// returns it in priv or pub. A raw key ([Options].Format [Raw]) is taken for a
// public key if it has the size of the scheme's encapsulation keys, and
// for a private key otherwise.
func Decode(data []byte, opts *Options) (priv *PrivateKey, pub *PublicKey, err error) {
	return decode(data, opts, wantEither)
}

type want int

const (
	wantEither want = iota
	wantPrivate
	wantPublic
)

func (w want) String() string {
	switch w {
	case wantPrivate:
		return "a private key"
	case wantPublic:
		return "a public key"
	}
	return "a key"
}

func decode(data []byte, opts *Options, w want) (*PrivateKey, *PublicKey, error) {
	if opts == nil {
		opts = new(Options)
	}
	if len(data) == 0 {
		return nil, nil, errors.New("keyfile: empty input, want " + w.String())
	}
	format := opts.Format
	if format == Auto {
		format = DER
		if looksLikePEM(data) {
			format = PEM
		}
	}
	switch format {
	case PEM:
		return decodePEM(data, opts, w)
	case DER:
		if looksLikePEM(data) {
			return nil, nil, errors.New("keyfile: input is PEM, want DER")
		}
		return decodeDER(data, opts, w)
	case Raw:
		return decodeRaw(data, opts, w)
	}
	return nil, nil, fmt.Errorf("keyfile: unknown format %v", opts.Format)
}

func looksLikePEM(data []byte) bool {
	return bytes.Contains(data, []byte("-----BEGIN "))
}

func decodePEM(data []byte, opts *Options, w want) (*PrivateKey, *PublicKey, error) {
	block, rest := pem.Decode(data)
	if block == nil {
		return nil, nil, errors.New("keyfile: malformed or truncated PEM block (no matching END line, or bad base64)")
	}
	if len(bytes.TrimSpace(rest)) != 0 {
		return nil, nil, fmt.Errorf("keyfile: trailing data after the %s PEM block", block.Type)
	}
	isPrivate := block.Type == PEMPrivateKey || block.Type == PEMProjectPrivateKey
	isPublic := block.Type == PEMPublicKey || block.Type == PEMProjectPublicKey || block.Type == PEMCertificate
	if !isPrivate && !isPublic || w == wantPrivate && !isPrivate || w == wantPublic && !isPublic {
		var types string
		switch w {
		case wantPrivate:
			types = `"PRIVATE KEY" or "PQKEM PRIVATE KEY"`
		case wantPublic:
			types = `"PUBLIC KEY", "PQKEM PUBLIC KEY" or "CERTIFICATE"`
		default:
			types = `"PRIVATE KEY", "PUBLIC KEY", "PQKEM PRIVATE KEY", "PQKEM PUBLIC KEY" or "CERTIFICATE"`
		}
		return nil, nil, fmt.Errorf("keyfile: PEM block type is %q, want %s", block.Type, types)
	}
	if block.Type != PEMProjectPrivateKey && block.Type != PEMProjectPublicKey && len(block.Headers) != 0 {
		return nil, nil, fmt.Errorf("keyfile: %s PEM block has headers, want none", block.Type)
	}
	switch block.Type {
	case PEMPrivateKey:
		priv, err := ParsePKCS8PrivateKey(block.Bytes, opts)
		if err != nil {
			return nil, nil, err
		}
		priv.Format, priv.PEMType = PEM, block.Type
		return priv, nil, nil
	case PEMPublicKey:
		pub, err := ParsePKIXPublicKey(block.Bytes, opts)
		if err != nil {
			return nil, nil, err
		}
		pub.Format, pub.PEMType = PEM, block.Type
		return nil, pub, nil
	case PEMCertificate:
		cert, err := x509.ParseCertificate(block.Bytes)
		if err != nil {
			return nil, nil, fmt.Errorf("keyfile: certificate: %w", err)
		}
		pub, err := ParsePKIXPublicKey(cert.RawSubjectPublicKeyInfo, opts)
		if err != nil {
			return nil, nil, err
		}
		pub.Format, pub.PEMType = PEM, block.Type
		return nil, pub, nil
	}

	// pqkem's format.
	name, ok := block.Headers[SchemeHeader]
	if !ok || len(block.Headers) != 1 {
		return nil, nil, fmt.Errorf("keyfile: %s PEM block must have exactly one header, %q, naming the scheme", block.Type, SchemeHeader)
	}
	s, err := kem.ByName(name)
	if err != nil {
		return nil, nil, fmt.Errorf("keyfile: %s PEM block: unknown scheme %q in its %s header", block.Type, name, SchemeHeader)
	}
	if err := checkScheme(s, opts); err != nil {
		return nil, nil, err
	}
	if err := storable(s); err != nil {
		return nil, nil, err
	}
	if block.Type == PEMProjectPublicKey {
		ek, err := parsePublicBytes(s, block.Bytes)
		if err != nil {
			return nil, nil, err
		}
		return nil, &PublicKey{Key: ek, Format: PEM, PEMType: block.Type}, nil
	}
	dk, err := parsePrivateBytes(s, block.Bytes)
	if err != nil {
		return nil, nil, err
	}
	return &PrivateKey{Key: dk, Form: FormBytes, Format: PEM, PEMType: block.Type}, nil, nil
}

func decodeDER(data []byte, opts *Options, w want) (*PrivateKey, *PublicKey, error) {
	switch w {
	case wantPrivate:
		priv, err := ParsePKCS8PrivateKey(data, opts)
		return priv, nil, err
	case wantPublic:
		pub, err := ParsePKIXPublicKey(data, opts)
		return nil, pub, err
	}
	// OneAsymmetricKey starts with an INTEGER, SubjectPublicKeyInfo with
	// a SEQUENCE.
	switch derKind(data) {
	case asn1.TagInteger:
		priv, err := ParsePKCS8PrivateKey(data, opts)
		return priv, nil, err
	case asn1.TagSequence:
		pub, err := ParsePKIXPublicKey(data, opts)
		return nil, pub, err
	}
	return nil, nil, errors.New("keyfile: input is neither PEM nor DER (a PKCS#8 private key or a SubjectPublicKeyInfo)")
}

func decodeRaw(data []byte, opts *Options, w want) (*PrivateKey, *PublicKey, error) {
	s := opts.Scheme
	if s == nil {
		return nil, nil, errors.New("keyfile: a raw key does not name its scheme; the scheme must be given")
	}
	if err := storable(s); err != nil {
		return nil, nil, err
	}
	if w == wantPublic || w == wantEither && len(data) == s.EncapsulationKeySize() {
		ek, err := parsePublicBytes(s, data)
		if err != nil {
			return nil, nil, err
		}
		return nil, &PublicKey{Key: ek, Format: Raw}, nil
	}
	dk, err := parsePrivateBytes(s, data)
	if err != nil {
		return nil, nil, err
	}
	return &PrivateKey{Key: dk, Form: FormBytes, Format: Raw}, nil, nil
}

// checkScheme checks that s is the scheme opts asks for, if any.
func checkScheme(s kem.Scheme, opts *Options) error {
	if opts.Scheme != nil && opts.Scheme.Name() != s.Name() {
		return fmt.Errorf("keyfile: the key is %s, want %s", s.Name(), opts.Scheme.Name())
	}
	return nil
}

// parsePublicBytes parses the scheme's own encoding of a public key.
func parsePublicBytes(s kem.Scheme, b []byte) (kem.EncapsulationKey, error) {
	if want := s.EncapsulationKeySize(); len(b) != want {
		return nil, fmt.Errorf("keyfile: %s public key is %d bytes, want %d", s.Name(), len(b), want)
	}
	ek, err := s.NewEncapsulationKey(b)
	if err != nil {
		return nil, fmt.Errorf("keyfile: %s public key: %w", s.Name(), err)
	}
	return ek, nil
}

// parsePrivateBytes parses the scheme's own encoding of a private key and
// runs the pairwise consistency check.
func parsePrivateBytes(s kem.Scheme, b []byte) (kem.DecapsulationKey, error) {
	dk, err := s.NewDecapsulationKey(b)
	if err != nil {
		return nil, fmt.Errorf("keyfile: %s private key (%d bytes): %w", s.Name(), len(b), err)
	}
	if err := pairwiseCheck(dk); err != nil {
		return nil, err
	}
	return dk, nil
}

// pairwiseCheck encapsulates to dk's own encapsulation key and checks that
// dk decapsulates the ciphertext to the same shared key.
func pairwiseCheck(dk kem.DecapsulationKey) error {
	name := dk.Scheme().Name()
	want, ct := dk.EncapsulationKey().Encapsulate()
	got, err := dk.Decapsulate(ct)
	if err != nil {
		return fmt.Errorf("keyfile: %s private key fails the pairwise consistency check: %w", name, err)
	}
	if subtle.ConstantTimeCompare(got, want) != 1 {
		return fmt.Errorf("keyfile: %s private key fails the pairwise consistency check: it does not decapsulate what is encapsulated to its own public key", name)
	}
	return nil
}

// Fingerprint identifies a public key: "SHA256:" and the first 16 bytes
// of the SHA-256 of its encoding ([kem.EncapsulationKey]'s Bytes), in hex.
func Fingerprint(ek kem.EncapsulationKey) string {
	h := sha256.Sum256(ek.Bytes())
	return "SHA256:" + hex.EncodeToString(h[:16])
}
