package mlkem_test

import (
	"bytes"
	"crypto/hpke"
	"fmt"
	"log"

	"github.com/pqkem/pqkem/mlkem"
)

// A key exchange with ML-KEM-768: Alice generates a key pair, Bob
// encapsulates a shared key to her encapsulation key, and Alice
// decapsulates his ciphertext to get the same key.
func Example() {
	// Alice generates a key pair and sends the encapsulation key to Bob.
	dk, err := mlkem.GenerateKey768()
	if err != nil {
		log.Fatal(err)
	}
	encapsulationKey := dk.EncapsulationKey().Bytes()

	// Bob parses it, encapsulates a fresh shared key, and sends the
	// ciphertext back to Alice.
	ek, err := mlkem.NewEncapsulationKey768(encapsulationKey)
	if err != nil {
		log.Fatal(err)
	}
	bobKey, ciphertext := ek.Encapsulate()

	// Alice decapsulates the ciphertext and gets the same shared key.
	aliceKey, err := dk.Decapsulate(ciphertext)
	if err != nil {
		log.Fatal(err)
	}

	fmt.Println(len(encapsulationKey), len(ciphertext), bytes.Equal(aliceKey, bobKey))
	// Output: 1184 1088 true
}

// Sealing to a pqkem ML-KEM-768 key with the standard library's
// crypto/hpke: the sender parses the encapsulation key's bytes with
// hpke.MLKEM768().NewPublicKey, and the recipient its seed (Bytes) with
// hpke.MLKEM768().NewPrivateKey. (hpke.NewMLKEMPublicKey and
// hpke.NewMLKEMPrivateKey accept crypto/mlkem's types only.)
func Example_hpke() {
	dk, err := mlkem.GenerateKey768()
	if err != nil {
		log.Fatal(err)
	}
	kdf, aead, info := hpke.HKDFSHA256(), hpke.AES256GCM(), []byte("example")

	// The sender has the encapsulation key's bytes.
	pk, err := hpke.MLKEM768().NewPublicKey(dk.EncapsulationKey().Bytes())
	if err != nil {
		log.Fatal(err)
	}
	sealed, err := hpke.Seal(pk, kdf, aead, info, []byte("hello"))
	if err != nil {
		log.Fatal(err)
	}

	// The recipient opens it with the same key's 64-byte seed.
	sk, err := hpke.MLKEM768().NewPrivateKey(dk.Bytes())
	if err != nil {
		log.Fatal(err)
	}
	plaintext, err := hpke.Open(sk, kdf, aead, info, sealed)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%s\n", plaintext)
	// Output: hello
}

// The other way: a key pair made by crypto/hpke becomes a pqkem key with
// the bytes of its private key (the seed), for example to store it with
// package keyfile or use it with package kem; its public key is the same.
func Example_hpkeKey() {
	sk, err := hpke.MLKEM1024().GenerateKey()
	if err != nil {
		log.Fatal(err)
	}
	seed, err := sk.Bytes()
	if err != nil {
		log.Fatal(err)
	}
	dk, err := mlkem.NewDecapsulationKey1024(seed)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(bytes.Equal(dk.EncapsulationKey().Bytes(), sk.PublicKey().Bytes()))

	// Sealed to the pqkem public key, opened with the crypto/hpke key.
	pk, err := hpke.MLKEM1024().NewPublicKey(dk.EncapsulationKey().Bytes())
	if err != nil {
		log.Fatal(err)
	}
	sealed, err := hpke.Seal(pk, hpke.HKDFSHA384(), hpke.ChaCha20Poly1305(), nil, []byte("hello"))
	if err != nil {
		log.Fatal(err)
	}
	plaintext, err := hpke.Open(sk, hpke.HKDFSHA384(), hpke.ChaCha20Poly1305(), nil, sealed)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%s\n", plaintext)
	// Output:
	// true
	// hello
}
