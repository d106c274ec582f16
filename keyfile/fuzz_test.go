package keyfile_test

import (
	"bytes"
	"testing"

	"github.com/pqkem/pqkem/kem"
	"github.com/pqkem/pqkem/keyfile"
)

// FuzzDecode feeds arbitrary bytes to Decode: it must never panic, and a
// key it accepts must encode and decode again to the same key.
func FuzzDecode(f *testing.F) {
	for _, name := range []string{"ML-KEM-512", "ML-KEM-768", "ML-KEM-1024"} {
		s, err := kem.ByName(name)
		if err != nil {
			f.Fatal(err)
		}
		dk, _ := s.GenerateKey()
		for _, form := range []keyfile.Form{keyfile.FormSeed, keyfile.FormExpanded, keyfile.FormBoth} {
			der, _ := keyfile.MarshalPKCS8PrivateKeyForm(dk, form)
			f.Add(der, false)
		}
		for _, format := range []keyfile.Format{keyfile.PEM, keyfile.DER} {
			priv, _ := keyfile.EncodePrivateKey(dk, format)
			pub, _ := keyfile.EncodePublicKey(dk.EncapsulationKey(), format)
			f.Add(priv, true)
			f.Add(pub, false)
		}
	}
	if dk, err := testNoOID.GenerateKey(); err == nil {
		priv, _ := keyfile.EncodePrivateKey(dk, keyfile.PEM)
		f.Add(priv, false)
	}
	f.Fuzz(func(t *testing.T, data []byte, lenient bool) {
		priv, pub, err := keyfile.Decode(data, &keyfile.Options{Lenient: lenient})
		if err != nil {
			if priv != nil || pub != nil {
				t.Fatal("Decode returned a key and an error")
			}
			return
		}
		if (priv == nil) == (pub == nil) {
			t.Fatal("Decode returned not exactly one key")
		}
		if priv != nil {
			again, err := keyfile.EncodePrivateKey(priv.Key, keyfile.PEM)
			if err != nil {
				t.Fatal(err)
			}
			p, err := keyfile.DecodePrivateKey(again, nil)
			if err != nil || !bytes.Equal(p.Key.Bytes(), priv.Key.Bytes()) {
				t.Fatalf("an accepted private key does not round-trip: %v", err)
			}
			return
		}
		again, err := keyfile.EncodePublicKey(pub.Key, keyfile.PEM)
		if err != nil {
			t.Fatal(err)
		}
		p, err := keyfile.DecodePublicKey(again, nil)
		if err != nil || !bytes.Equal(p.Key.Bytes(), pub.Key.Bytes()) {
			t.Fatalf("an accepted public key does not round-trip: %v", err)
		}
	})
}
