package keyfile

import (
	"bytes"
	"crypto/subtle"
	"crypto/x509/pkix"
	"encoding/asn1"
	"errors"
	"fmt"

	"github.com/pqkem/pqkem/internal/mlkemlevel"
	"github.com/pqkem/pqkem/kem"
)

// keyKind is how a scheme with an OID stores its private key in PKCS#8.
type keyKind int

const (
	// kindMLKEM is RFC 9935's CHOICE of seed, expandedKey and both.
	kindMLKEM keyKind = iota
	// kindRawSeed is the scheme's Bytes(), a seed, directly in the
	// privateKey OCTET STRING (X-Wing).
	kindRawSeed
)

// algorithm is a scheme with an object identifier.
type algorithm struct {
	name string // the scheme's name in package kem
	oid  asn1.ObjectIdentifier
	kind keyKind
	// level is the ML-KEM level, for kindMLKEM.
	level *mlkemlevel.Level
}

// algorithms lists the schemes with an assigned OID. A scheme not
// registered in package kem is simply not available; its entry takes
// effect once it is.
var algorithms = []algorithm{
	{name: "ML-KEM-512", oid: asn1.ObjectIdentifier{2, 16, 840, 1, 101, 3, 4, 4, 1}, kind: kindMLKEM, level: mlkemlevel.MLKEM512()},
	{name: "ML-KEM-768", oid: asn1.ObjectIdentifier{2, 16, 840, 1, 101, 3, 4, 4, 2}, kind: kindMLKEM, level: mlkemlevel.MLKEM768()},
	{name: "ML-KEM-1024", oid: asn1.ObjectIdentifier{2, 16, 840, 1, 101, 3, 4, 4, 3}, kind: kindMLKEM, level: mlkemlevel.MLKEM1024()},
	// draft-connolly-cfrg-xwing-kem, "Use in X.509 and PKCS#8".
	{name: "X-Wing", oid: asn1.ObjectIdentifier{1, 3, 6, 1, 4, 1, 62253, 25722}, kind: kindRawSeed},
}

func lookupName(name string) (*algorithm, bool) {
	for i := range algorithms {
		if algorithms[i].name == name {
			return &algorithms[i], true
		}
	}
	return nil, false
}

func lookupOID(oid asn1.ObjectIdentifier) (*algorithm, bool) {
	for i := range algorithms {
		if algorithms[i].oid.Equal(oid) {
			return &algorithms[i], true
		}
	}
	return nil, false
}

// OID returns the object identifier of the scheme, and false if it has
// none (it then uses pqkem's PEM format).
func OID(s kem.Scheme) (asn1.ObjectIdentifier, bool) {
	a, ok := lookupName(s.Name())
	if !ok {
		return nil, false
	}
	return append(asn1.ObjectIdentifier(nil), a.oid...), true
}

// schemeOf returns the scheme of an algorithm identifier, checking that
// the parameters are absent and that the scheme is registered and the one
// opts asks for.
func schemeOf(what string, id pkix.AlgorithmIdentifier, opts *Options) (*algorithm, kem.Scheme, error) {
	a, ok := lookupOID(id.Algorithm)
	if !ok {
		return nil, nil, fmt.Errorf("keyfile: %s: unknown algorithm OID %v", what, id.Algorithm)
	}
	if len(id.Parameters.FullBytes) != 0 {
		return nil, nil, fmt.Errorf("keyfile: %s %s: algorithm parameters present, want absent", a.name, what)
	}
	s, err := kem.ByName(a.name)
	if err != nil {
		return nil, nil, fmt.Errorf("keyfile: %s: OID %v is %s, which is not available in this build", what, id.Algorithm, a.name)
	}
	if err := checkScheme(s, opts); err != nil {
		return nil, nil, err
	}
	return a, s, nil
}

// algorithmFor returns the entry of the scheme of a key being encoded.
func algorithmFor(s kem.Scheme) (*algorithm, error) {
	if err := storable(s); err != nil {
		return nil, err
	}
	a, ok := lookupName(s.Name())
	if !ok {
		return nil, fmt.Errorf("keyfile: %s has no DER encoding: %w (use PEM, pqkem's format, or raw)", s.Name(), ErrNoOID)
	}
	return a, nil
}

type subjectPublicKeyInfo struct {
	Algorithm pkix.AlgorithmIdentifier
	PublicKey asn1.BitString
}

// MarshalPKIXPublicKey encodes ek as a DER SubjectPublicKeyInfo. It fails,
// wrapping [ErrNoOID], for a scheme without an object identifier.
func MarshalPKIXPublicKey(ek kem.EncapsulationKey) ([]byte, error) {
	a, err := algorithmFor(ek.Scheme())
	if err != nil {
		return nil, err
	}
	b := ek.Bytes()
	return asn1.Marshal(subjectPublicKeyInfo{
		Algorithm: pkix.AlgorithmIdentifier{Algorithm: a.oid},
		PublicKey: asn1.BitString{Bytes: b, BitLength: 8 * len(b)},
	})
}

// ParsePKIXPublicKey parses a DER SubjectPublicKeyInfo and the public key
// in it, with the scheme's input checks (for ML-KEM, FIPS 203 section
// 7.2). opts may be nil; only [Options].Scheme is used.
func ParsePKIXPublicKey(der []byte, opts *Options) (*PublicKey, error) {
	if opts == nil {
		opts = new(Options)
	}
	var spki subjectPublicKeyInfo
	rest, err := asn1.Unmarshal(der, &spki)
	if err != nil {
		return nil, fmt.Errorf("keyfile: malformed SubjectPublicKeyInfo: %w", err)
	}
	if len(rest) != 0 {
		return nil, fmt.Errorf("keyfile: %d bytes of trailing data after the SubjectPublicKeyInfo", len(rest))
	}
	_, s, err := schemeOf("SubjectPublicKeyInfo", spki.Algorithm, opts)
	if err != nil {
		return nil, err
	}
	if spki.PublicKey.BitLength != 8*len(spki.PublicKey.Bytes) {
		return nil, fmt.Errorf("keyfile: %s subjectPublicKey: BIT STRING has unused bits, want whole bytes", s.Name())
	}
	// encoding/asn1 ignores extra elements at the end of a SEQUENCE;
	// re-encoding catches them, and anything else that is not DER.
	if again, err := asn1.Marshal(spki); err != nil || !bytes.Equal(again, der) {
		return nil, fmt.Errorf("keyfile: %s SubjectPublicKeyInfo is not in canonical DER (extra fields?)", s.Name())
	}
	ek, err := parsePublicBytes(s, spki.PublicKey.Bytes)
	if err != nil {
		return nil, err
	}
	return &PublicKey{Key: ek, Format: DER}, nil
}

type oneAsymmetricKey struct {
	Version    int
	Algorithm  pkix.AlgorithmIdentifier
	PrivateKey []byte
}

type mlkemBoth struct {
	Seed     []byte
	Expanded []byte
}

// MarshalPKCS8PrivateKey encodes dk as a DER PKCS#8 OneAsymmetricKey
// (version 0, no attributes, no public key). An ML-KEM key is written in
// RFC 9935's seed form, or in the expandedKey form if it has no seed (it
// was read from an expanded key). It fails, wrapping [ErrNoOID], for a
// scheme without an object identifier. The result is secret.
func MarshalPKCS8PrivateKey(dk kem.DecapsulationKey) ([]byte, error) {
	return MarshalPKCS8PrivateKeyForm(dk, 0)
}

// MarshalPKCS8PrivateKeyForm is [MarshalPKCS8PrivateKey] with the ML-KEM
// private key form chosen: [FormSeed], [FormExpanded] or [FormBoth]
// (FormSeed and FormBoth need a key with a seed), or 0 for the default.
// Other schemes take 0 or FormSeed.
func MarshalPKCS8PrivateKeyForm(dk kem.DecapsulationKey, form Form) ([]byte, error) {
	s := dk.Scheme()
	a, err := algorithmFor(s)
	if err != nil {
		return nil, err
	}
	var inner []byte
	switch a.kind {
	case kindRawSeed:
		if form != 0 && form != FormSeed {
			return nil, fmt.Errorf("keyfile: %s private keys have no %v form", s.Name(), form)
		}
		inner = dk.Bytes()
	case kindMLKEM:
		seed, expanded, err := a.mlkemParts(dk)
		if err != nil {
			return nil, err
		}
		if form == 0 {
			form = FormSeed
			if seed == nil {
				form = FormExpanded
			}
		}
		if seed == nil && (form == FormSeed || form == FormBoth) {
			return nil, fmt.Errorf("keyfile: %s private key has no seed (it was read from an expandedKey), so it has no %v form", s.Name(), form)
		}
		switch form {
		case FormSeed:
			inner, err = asn1.Marshal(asn1.RawValue{Class: asn1.ClassContextSpecific, Tag: 0, Bytes: seed})
		case FormExpanded:
			inner, err = asn1.Marshal(expanded)
		case FormBoth:
			inner, err = asn1.Marshal(mlkemBoth{seed, expanded})
		default:
			return nil, fmt.Errorf("keyfile: %s private keys have no %v form", s.Name(), form)
		}
		if err != nil {
			return nil, err
		}
	}
	return asn1.Marshal(oneAsymmetricKey{
		Algorithm:  pkix.AlgorithmIdentifier{Algorithm: a.oid},
		PrivateKey: inner,
	})
}

// mlkemParts returns the seed (nil if the key has none) and the expanded
// encoding of an ML-KEM key.
func (a *algorithm) mlkemParts(dk kem.DecapsulationKey) (seed, expanded []byte, err error) {
	// The kem adapter's Bytes is the seed, or the expanded key for a key
	// read from one.
	b := dk.Bytes()
	switch len(b) {
	case mlkemlevel.SeedSize:
		expanded, err := a.expand(b)
		if err != nil {
			return nil, nil, fmt.Errorf("keyfile: %s: %w", a.name, err)
		}
		return b, expanded, nil
	case a.level.DecapsulationKeyExpandedSize():
		return nil, b, nil
	}
	return nil, nil, fmt.Errorf("keyfile: %s private key encoding is %d bytes, want %d (seed) or %d (expanded)",
		a.name, len(b), mlkemlevel.SeedSize, a.level.DecapsulationKeyExpandedSize())
}

// expand returns the expanded form of the ML-KEM key of seed.
func (a *algorithm) expand(seed []byte) ([]byte, error) {
	dk, err := a.level.NewDecapsulationKey(seed)
	if err != nil {
		return nil, err
	}
	return dk.ExpandedBytes(), nil
}

// derKind returns the universal tag of the first element inside der, if
// der is one SEQUENCE: INTEGER for a OneAsymmetricKey, SEQUENCE for a
// SubjectPublicKeyInfo. It returns -1 for anything else.
func derKind(der []byte) int {
	outer, rest, err := element(der)
	if err != nil || len(rest) != 0 || !isUniversal(outer, asn1.TagSequence, true) || len(outer.Bytes) == 0 {
		return -1
	}
	switch outer.Bytes[0] {
	case asn1.TagInteger:
		return asn1.TagInteger
	case 0x20 | asn1.TagSequence:
		return asn1.TagSequence
	}
	return -1
}

// element reads one DER element from b and returns it and what follows.
func element(b []byte) (asn1.RawValue, []byte, error) {
	var v asn1.RawValue
	rest, err := asn1.Unmarshal(b, &v)
	return v, rest, err
}

func isUniversal(v asn1.RawValue, tag int, compound bool) bool {
	return v.Class == asn1.ClassUniversal && v.Tag == tag && v.IsCompound == compound
}

// ParsePKCS8PrivateKey parses a DER PKCS#8 OneAsymmetricKey (version 0 or
// 1) and the private key in it, with every check the package comment
// lists. If the optional publicKey [1] is present, it must be the key's
// public key. opts may be nil.
func ParsePKCS8PrivateKey(der []byte, opts *Options) (*PrivateKey, error) {
	if opts == nil {
		opts = new(Options)
	}
	outer, rest, err := element(der)
	if err != nil {
		return nil, fmt.Errorf("keyfile: malformed PKCS#8 private key: %w", err)
	}
	if len(rest) != 0 {
		return nil, fmt.Errorf("keyfile: %d bytes of trailing data after the PKCS#8 private key", len(rest))
	}
	if !isUniversal(outer, asn1.TagSequence, true) {
		return nil, errors.New("keyfile: malformed PKCS#8 private key: not a SEQUENCE")
	}
	body := outer.Bytes

	var version int
	if body, err = asn1.Unmarshal(body, &version); err != nil {
		return nil, fmt.Errorf("keyfile: PKCS#8 version: %w", err)
	}
	if version != 0 && version != 1 {
		return nil, fmt.Errorf("keyfile: PKCS#8 version is %d, want 0 or 1", version)
	}
	var id pkix.AlgorithmIdentifier
	idField, body, err := element(body)
	if err == nil {
		_, err = asn1.Unmarshal(idField.FullBytes, &id)
	}
	if err != nil {
		return nil, fmt.Errorf("keyfile: PKCS#8 privateKeyAlgorithm: %w", err)
	}
	if again, err := asn1.Marshal(id); err != nil || !bytes.Equal(again, idField.FullBytes) {
		return nil, errors.New("keyfile: PKCS#8 privateKeyAlgorithm is not in canonical DER (extra fields?)")
	}
	a, s, err := schemeOf("PKCS#8 private key", id, opts)
	if err != nil {
		return nil, err
	}
	name := s.Name()
	privField, body, err := element(body)
	if err != nil {
		return nil, fmt.Errorf("keyfile: %s PKCS#8 privateKey: %w", name, err)
	}
	if !isUniversal(privField, asn1.TagOctetString, false) {
		return nil, fmt.Errorf("keyfile: %s PKCS#8 privateKey: not an OCTET STRING", name)
	}

	var pubKey *asn1.RawValue
	for lastTag := -1; len(body) > 0; {
		var v asn1.RawValue
		if v, body, err = element(body); err != nil {
			return nil, fmt.Errorf("keyfile: %s PKCS#8 private key: after privateKey: %w", name, err)
		}
		if v.Class != asn1.ClassContextSpecific || v.Tag <= lastTag || v.Tag > 1 {
			return nil, fmt.Errorf("keyfile: %s PKCS#8 private key: unexpected field (class %d, tag %d) after privateKey", name, v.Class, v.Tag)
		}
		lastTag = v.Tag
		if v.Tag == 1 { // publicKey [1] IMPLICIT BIT STRING; [0] attributes are ignored
			pubKey = &v
		}
	}

	priv := &PrivateKey{Format: DER}
	switch a.kind {
	case kindRawSeed:
		if want := s.DecapsulationKeySize(); len(privField.Bytes) != want {
			return nil, fmt.Errorf("keyfile: %s PKCS#8 privateKey: seed is %d bytes, want %d", name, len(privField.Bytes), want)
		}
		if priv.Key, err = s.NewDecapsulationKey(privField.Bytes); err != nil {
			return nil, fmt.Errorf("keyfile: %s PKCS#8 privateKey: %w", name, err)
		}
		priv.Form = FormSeed
	case kindMLKEM:
		if priv.Key, priv.Form, err = a.parseMLKEM(s, privField.Bytes, opts); err != nil {
			return nil, err
		}
	}

	if pubKey != nil {
		if pubKey.IsCompound || len(pubKey.Bytes) < 1 || pubKey.Bytes[0] != 0 {
			return nil, fmt.Errorf("keyfile: %s PKCS#8 publicKey: malformed BIT STRING", name)
		}
		if subtle.ConstantTimeCompare(pubKey.Bytes[1:], priv.Key.EncapsulationKey().Bytes()) != 1 {
			return nil, fmt.Errorf("keyfile: %s PKCS#8 publicKey does not match the private key", name)
		}
	}
	return priv, nil
}

// parseMLKEM parses RFC 9935's ML-KEM-PrivateKey CHOICE, chosen by the
// DER tag.
func (a *algorithm) parseMLKEM(s kem.Scheme, b []byte, opts *Options) (kem.DecapsulationKey, Form, error) {
	name := a.name
	if len(b) == 0 {
		return nil, 0, fmt.Errorf("keyfile: %s PKCS#8 privateKey is empty, want seed, expandedKey or both", name)
	}
	// The pre-RFC 9935 encodings put the raw seed or the raw expanded key
	// straight into the privateKey OCTET STRING, with no tag of their own
	// (OpenSSL 3.5 calls them bare-seed and bare-priv). No DER encoding
	// of the CHOICE has either length (the seed form is 66 bytes,
	// expandedKey 4 more than the key, both more still), so they cannot
	// be mistaken for one; they are read only when lenient.
	switch len(b) {
	case mlkemlevel.SeedSize, a.level.DecapsulationKeyExpandedSize():
		what := "seed"
		if len(b) == a.level.DecapsulationKeyExpandedSize() {
			what = "expanded key"
		}
		if !opts.Lenient {
			return nil, 0, fmt.Errorf("keyfile: %s privateKey is a bare %d-byte %s with no RFC 9935 tag (the pre-RFC encoding, read only when lenient)", name, len(b), what)
		}
		if len(b) == mlkemlevel.SeedSize {
			dk, err := a.fromSeed(s, "bare seed", b)
			return dk, FormBareSeed, err
		}
		dk, err := a.fromExpanded(s, "bare expanded key", b)
		return dk, FormBareExpanded, err
	}
	v, rest, err := element(b)
	if err != nil {
		return nil, 0, fmt.Errorf("keyfile: %s privateKey: malformed ML-KEM-PrivateKey: %w", name, err)
	}
	if len(rest) != 0 {
		return nil, 0, fmt.Errorf("keyfile: %s privateKey: %d bytes of trailing data after the ML-KEM-PrivateKey", name, len(rest))
	}
	switch {
	case v.Class == asn1.ClassContextSpecific && v.Tag == 0 && !v.IsCompound: // 0x80, seed [0] IMPLICIT OCTET STRING
		dk, err := a.fromSeed(s, "seed", v.Bytes)
		return dk, FormSeed, err

	case isUniversal(v, asn1.TagOctetString, false): // 0x04, expandedKey
		if len(v.Bytes) == mlkemlevel.SeedSize && opts.Lenient {
			dk, err := a.fromSeed(s, "bare seed", v.Bytes)
			return dk, FormBareSeed, err
		}
		if len(v.Bytes) != a.level.DecapsulationKeyExpandedSize() {
			msg := fmt.Sprintf("keyfile: %s privateKey: expandedKey is %d bytes, want %d", name, len(v.Bytes), a.level.DecapsulationKeyExpandedSize())
			if len(v.Bytes) == mlkemlevel.SeedSize {
				msg += " (a 64-byte OCTET STRING is the pre-RFC 9935 seed encoding, read only when lenient)"
			}
			return nil, 0, errors.New(msg)
		}
		dk, err := a.fromExpanded(s, "expandedKey", v.Bytes)
		return dk, FormExpanded, err

	case isUniversal(v, asn1.TagSequence, true): // 0x30, both
		var both mlkemBoth
		_, err := asn1.Unmarshal(v.FullBytes, &both)
		if again, merr := asn1.Marshal(both); err != nil || merr != nil || !bytes.Equal(again, v.FullBytes) {
			return nil, 0, fmt.Errorf("keyfile: %s privateKey: malformed both SEQUENCE { seed OCTET STRING, expandedKey OCTET STRING }", name)
		}
		if len(both.Expanded) != a.level.DecapsulationKeyExpandedSize() {
			return nil, 0, fmt.Errorf("keyfile: %s privateKey: both: expandedKey is %d bytes, want %d", name, len(both.Expanded), a.level.DecapsulationKeyExpandedSize())
		}
		dk, err := a.fromSeed(s, "both: seed", both.Seed)
		if err != nil {
			return nil, 0, err
		}
		derived, err := a.expand(both.Seed)
		if err != nil {
			return nil, 0, fmt.Errorf("keyfile: %s privateKey: both: seed: %w", name, err)
		}
		if subtle.ConstantTimeCompare(derived, both.Expanded) != 1 {
			return nil, 0, fmt.Errorf("keyfile: %s privateKey: both: seed and expandedKey do not match (the expandedKey is not the key the seed derives)", name)
		}
		return dk, FormBoth, nil
	}
	return nil, 0, fmt.Errorf("keyfile: %s privateKey: unknown ML-KEM-PrivateKey tag 0x%02x, want 0x80 (seed), 0x04 (expandedKey) or 0x30 (both)", name, b[0])
}

// fromExpanded parses an expanded key, with the FIPS 203 hash check, and
// runs the pairwise consistency check.
func (a *algorithm) fromExpanded(s kem.Scheme, field string, expanded []byte) (kem.DecapsulationKey, error) {
	dk, err := s.NewDecapsulationKey(expanded)
	if err != nil {
		return nil, fmt.Errorf("keyfile: %s privateKey: %s: %w", a.name, field, err)
	}
	if err := pairwiseCheck(dk); err != nil {
		return nil, err
	}
	return dk, nil
}

func (a *algorithm) fromSeed(s kem.Scheme, field string, seed []byte) (kem.DecapsulationKey, error) {
	if len(seed) != mlkemlevel.SeedSize {
		return nil, fmt.Errorf("keyfile: %s privateKey: %s is %d bytes, want %d", a.name, field, len(seed), mlkemlevel.SeedSize)
	}
	dk, err := s.NewDecapsulationKey(seed)
	if err != nil {
		return nil, fmt.Errorf("keyfile: %s privateKey: %s: %w", a.name, field, err)
	}
	return dk, nil
}
