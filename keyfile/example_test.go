package keyfile_test

import (
	"bytes"
	"fmt"

	"github.com/pqkem/pqkem/kem"
	"github.com/pqkem/pqkem/keyfile"
)

// Write a key pair as RFC 9935 PEM files and read them back.
func Example() {
	s, err := kem.ByName("ML-KEM-768")
	if err != nil {
		panic(err)
	}
	dk, err := s.GenerateKey()
	if err != nil {
		panic(err)
	}
	privPEM, err := keyfile.EncodePrivateKey(dk, keyfile.PEM) // secret: store with mode 0600
	if err != nil {
		panic(err)
	}
	pubPEM, err := keyfile.EncodePublicKey(dk.EncapsulationKey(), keyfile.PEM)
	if err != nil {
		panic(err)
	}

	// The other side reads the public key and encapsulates to it.
	pub, err := keyfile.DecodePublicKey(pubPEM, nil)
	if err != nil {
		panic(err)
	}
	sharedKey, ciphertext := pub.Key.Encapsulate()

	// The key's owner reads the private key, checked, and decapsulates.
	priv, err := keyfile.DecodePrivateKey(privPEM, &keyfile.Options{Scheme: s})
	if err != nil {
		panic(err)
	}
	got, err := priv.Key.Decapsulate(ciphertext)
	if err != nil {
		panic(err)
	}
	fmt.Println(priv.Key.Scheme().Name(), priv.Form, bytes.Equal(got, sharedKey))
	// Output: ML-KEM-768 seed true
}
