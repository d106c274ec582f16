package hybrid_test

import (
	"bytes"
	"crypto/ecdh"
	"crypto/hpke"
	"crypto/rand"
	"testing"

	"github.com/pqkem/pqkem/hybrid"
	"github.com/pqkem/pqkem/mlkem"
)

// hpkeRoundTrip seals to pk with several KDF and AEAD pairs and opens with
// sk.
func hpkeRoundTrip(t *testing.T, pk hpke.PublicKey, sk hpke.PrivateKey) {
	t.Helper()
	msg := []byte("pqkem and crypto/hpke")
	for _, s := range []struct {
		kdf  hpke.KDF
		aead hpke.AEAD
	}{
		{hpke.HKDFSHA256(), hpke.AES128GCM()},
		{hpke.HKDFSHA512(), hpke.AES256GCM()},
		{hpke.SHAKE256(), hpke.ChaCha20Poly1305()},
	} {
		info := []byte{byte(s.kdf.ID()), byte(s.aead.ID())}
		sealed, err := hpke.Seal(pk, s.kdf, s.aead, info, msg)
		if err != nil {
			t.Fatalf("KDF %#04x AEAD %#04x: Seal: %v", s.kdf.ID(), s.aead.ID(), err)
		}
		got, err := hpke.Open(sk, s.kdf, s.aead, info, sealed)
		if err != nil || !bytes.Equal(got, msg) {
			t.Fatalf("KDF %#04x AEAD %#04x: Open: %q, %v", s.kdf.ID(), s.aead.ID(), got, err)
		}
		if _, err := hpke.Open(sk, s.kdf, s.aead, nil, sealed); err == nil {
			t.Fatalf("KDF %#04x AEAD %#04x: Open with another info succeeded", s.kdf.ID(), s.aead.ID())
		}
	}
}

// TestHPKE checks the route the package documentation gives for using
// this package's keys with crypto/hpke, for every KEM both have, in both
// directions: a pqkem key through hpke's KEM.NewPublicKey and
// KEM.NewPrivateKey, and a crypto/hpke key parsed by pqkem from its
// private key's bytes.
func TestHPKE(t *testing.T) {
	for _, k := range []*hybrid.KEM{hybrid.MLKEM768X25519(), hybrid.MLKEM768P256(), hybrid.MLKEM1024P384(), hybrid.MLKEM768(), hybrid.MLKEM1024()} {
		t.Run(k.Name(), func(t *testing.T) {
			id, ok := k.HPKEID()
			if !ok {
				t.Fatal("no HPKE KEM id")
			}
			std, err := hpke.NewKEM(id)
			if err != nil {
				t.Fatal(err)
			}

			// A pqkem key, sealed to and opened with crypto/hpke.
			dk, err := k.GenerateKey()
			if err != nil {
				t.Fatal(err)
			}
			ek := dk.EncapsulationKey().Bytes()
			pk, err := std.NewPublicKey(ek)
			if err != nil {
				t.Fatal(err)
			}
			sk, err := std.NewPrivateKey(dk.Bytes())
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(sk.PublicKey().Bytes(), ek) {
				t.Fatal("crypto/hpke derives another public key from pqkem's seed")
			}
			hpkeRoundTrip(t, pk, sk)

			// A crypto/hpke key, parsed by pqkem.
			sk, err = std.GenerateKey()
			if err != nil {
				t.Fatal(err)
			}
			seed, err := sk.Bytes()
			if err != nil {
				t.Fatal(err)
			}
			dk, err = k.NewDecapsulationKey(seed)
			if err != nil {
				t.Fatal(err)
			}
			ek = dk.EncapsulationKey().Bytes()
			if !bytes.Equal(ek, sk.PublicKey().Bytes()) {
				t.Fatal("pqkem derives another public key from crypto/hpke's private key")
			}
			if pk, err = std.NewPublicKey(ek); err != nil {
				t.Fatal(err)
			}
			hpkeRoundTrip(t, pk, sk)

			// And pqkem's own KEM operations agree with it: a pqkem
			// encapsulation to crypto/hpke's public key decapsulates with
			// pqkem's copy of its private key.
			ss, ct := dk.EncapsulationKey().Encapsulate()
			if got, err := dk.Decapsulate(ct); err != nil || !bytes.Equal(got, ss) {
				t.Fatalf("decapsulation: %v", err)
			}
		})
	}
}

// TestHPKEForeignKeyTypes records why the documented route goes through
// bytes: crypto/hpke's NewMLKEMPrivateKey, NewMLKEMPublicKey and
// NewHybridPublicKey accept crypto/mlkem's key types only. If a Go release
// starts accepting other implementations, this test fails, and the
// documentation can say so.
func TestHPKEForeignKeyTypes(t *testing.T) {
	dk, err := hybrid.MLKEM768().GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := hpke.NewMLKEMPrivateKey(dk); err == nil {
		t.Error("hpke.NewMLKEMPrivateKey accepts a hybrid.MLKEM768 key")
	}
	if _, err := hpke.NewMLKEMPublicKey(dk.Encapsulator()); err == nil {
		t.Error("hpke.NewMLKEMPublicKey accepts a hybrid.MLKEM768 key")
	}
	mk, _ := mlkem.GenerateKey768()
	x, err := ecdh.X25519().GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := hpke.NewHybridPublicKey(mk.EncapsulationKey(), x.PublicKey()); err == nil {
		t.Error("hpke.NewHybridPublicKey accepts an mlkem key")
	}
	if _, err := hpke.NewHybridPrivateKey(mk, x); err == nil {
		t.Error("hpke.NewHybridPrivateKey accepts an mlkem key")
	}
}
