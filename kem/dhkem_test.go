package kem_test

import (
	"bytes"
	"crypto/hkdf"
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"testing"

	"github.com/pqkem/pqkem/internal/vectors"
	"github.com/pqkem/pqkem/kem"
	"github.com/pqkem/pqkem/kem/kemtest"
)

// deriveKeyPair is RFC 9180's DeriveKeyPair for DHKEM(X25519,
// HKDF-SHA256) (Section 7.1.3), which the vectors' private keys come from.
func deriveKeyPair(t *testing.T, ikm []byte) []byte {
	t.Helper()
	labeled := func(label string, b []byte) []byte {
		return append([]byte("HPKE-v1KEM\x00\x20"+label), b...)
	}
	prk, err := hkdf.Extract(sha256.New, labeled("dkp_prk", ikm), nil)
	if err != nil {
		t.Fatal(err)
	}
	sk, err := hkdf.Expand(sha256.New, prk, string(append([]byte{0, 32}, labeled("sk", nil)...)), 32)
	if err != nil {
		t.Fatal(err)
	}
	return sk
}

// dhkemVector is an entry of the Go distribution's
// crypto/hpke/testdata/hpke-pq.json, with the KEM's fields.
type dhkemVector struct {
	KEMID        uint16 `json:"kem_id"`
	IkmE         string `json:"ikmE"`
	IkmR         string `json:"ikmR"`
	SkRm         string `json:"skRm"`
	PkRm         string `json:"pkRm"`
	Enc          string `json:"enc"`
	SharedSecret string `json:"shared_secret"`
}

// TestDHKEMVectors checks the DHKEM(X25519, HKDF-SHA256) vectors of
// hpke-pq.json byte for byte: DeriveKeyPair's skRm and pkRm, the
// encapsulation from the ephemeral key DeriveKeyPair makes of ikmE, and
// decapsulation.
func TestDHKEMVectors(t *testing.T) {
	var tvs []dhkemVector
	vectors.ReadJSONLax(t, "hpke/hpke-pq.json", &tvs)
	s, err := kem.ByName("DHKEM-X25519-HKDF-SHA256")
	if err != nil {
		t.Fatal(err)
	}
	h := func(x string) []byte {
		b, err := hex.DecodeString(x)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	n := 0
	for _, tv := range tvs {
		if tv.KEMID != 0x0020 {
			continue
		}
		n++
		skR := deriveKeyPair(t, h(tv.IkmR))
		if !bytes.Equal(skR, h(tv.SkRm)) {
			t.Fatalf("DeriveKeyPair(ikmR) = %x, want %s", skR, tv.SkRm)
		}
		dk, err := s.NewDecapsulationKey(skR)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(dk.Bytes(), skR) {
			t.Errorf("Bytes = %x, want skRm", dk.Bytes())
		}
		if got := dk.EncapsulationKey().Bytes(); !bytes.Equal(got, h(tv.PkRm)) {
			t.Errorf("pkRm = %x, want %s", got, tv.PkRm)
		}
		ek, err := s.NewEncapsulationKey(h(tv.PkRm))
		if err != nil {
			t.Fatal(err)
		}
		ss, enc, err := kemtest.Encapsulate(ek, deriveKeyPair(t, h(tv.IkmE)))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(enc, h(tv.Enc)) {
			t.Errorf("enc = %x, want %s", enc, tv.Enc)
		}
		if !bytes.Equal(ss, h(tv.SharedSecret)) {
			t.Errorf("encapsulated shared_secret = %x, want %s", ss, tv.SharedSecret)
		}
		got, err := dk.Decapsulate(h(tv.Enc))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, h(tv.SharedSecret)) {
			t.Errorf("decapsulated shared_secret = %x, want %s", got, tv.SharedSecret)
		}
	}
	if n == 0 {
		t.Fatal("no DHKEM(X25519, HKDF-SHA256) vector in hpke-pq.json")
	}
}

func TestDHKEM(t *testing.T) {
	s, err := kem.ByName("dhkem-x25519-hkdf-sha256")
	if err != nil {
		t.Fatal(err)
	}
	sp, ok := s.(kem.Specifier)
	if !ok || !strings.Contains(sp.Specification(), "RFC 9180") || !strings.Contains(sp.Specification(), "not post-quantum") {
		t.Errorf("specification must name RFC 9180 and say the scheme is classical")
	}
	if id, ok := s.(kem.HPKEScheme).HPKEID(); !ok || id != 0x0020 {
		t.Errorf("HPKEID = %#x, %v", id, ok)
	}
	if kem.EphemeralOnly(s) {
		t.Error("DHKEM is IND-CCA secure as a static key")
	}
	dk, err := s.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	ss, ct := dk.EncapsulationKey().Encapsulate()
	got, err := dk.Decapsulate(ct)
	if err != nil || !bytes.Equal(got, ss) {
		t.Fatalf("round trip: %x, %v; want %x", got, err, ss)
	}
	dk2, err := s.NewDecapsulationKey(dk.Bytes())
	if err != nil || !bytes.Equal(dk2.EncapsulationKey().Bytes(), dk.EncapsulationKey().Bytes()) {
		t.Fatalf("key from Bytes differs: %v", err)
	}

	// Bad lengths, and the points of small order (RFC 7748's zero and one,
	// and a point of order 8), whose DH output is all zero.
	if _, err := s.NewDecapsulationKey(make([]byte, 31)); err == nil || !strings.HasPrefix(err.Error(), "kem: ") {
		t.Errorf("31-byte decapsulation key: %v", err)
	}
	if _, err := s.NewEncapsulationKey(make([]byte, 33)); err == nil || !strings.HasPrefix(err.Error(), "kem: ") {
		t.Errorf("33-byte encapsulation key: %v", err)
	}
	if _, err := dk.Decapsulate(make([]byte, 31)); err == nil || !strings.HasPrefix(err.Error(), "kem: ") {
		t.Errorf("31-byte ciphertext: %v", err)
	}
	one := make([]byte, 32)
	one[0] = 1
	order8, _ := hex.DecodeString("e0eb7a7c3b41b8ae1656e3faf19fc46ada098deb9c32b1fd866205165f49b800")
	for _, p := range [][]byte{make([]byte, 32), one, order8} {
		if _, err := s.NewEncapsulationKey(p); err == nil || !strings.HasPrefix(err.Error(), "kem: ") {
			t.Errorf("encapsulation key %x of small order: %v", p, err)
		}
		if _, err := dk.Decapsulate(p); err == nil || !strings.HasPrefix(err.Error(), "kem: ") {
			t.Errorf("ciphertext %x of small order: %v", p, err)
		}
	}
}
