package hybrid_test

import (
	"bytes"
	"crypto/hpke"
	"fmt"

	"github.com/pqkem/pqkem/hybrid"
)

// A TLS-style exchange with X25519MLKEM768: the client's key share is the
// encapsulation key, the server's key share is the ciphertext.
func Example() {
	group := hybrid.X25519MLKEM768()

	client, err := group.GenerateKey()
	if err != nil {
		panic(err)
	}
	clientShare := client.EncapsulationKey().Bytes()

	ek, err := group.NewEncapsulationKey(clientShare)
	if err != nil {
		panic(err)
	}
	serverSecret, serverShare := ek.Encapsulate()

	clientSecret, err := client.Decapsulate(serverShare)
	if err != nil {
		panic(err)
	}
	fmt.Println(len(clientShare), len(serverShare), len(clientSecret), bytes.Equal(clientSecret, serverSecret))
	// Output: 1216 1120 64 true
}

// The HPKE KEM ids and TLS codepoints of the hybrids.
func ExampleKEM_TLSGroup() {
	for _, k := range hybrid.All() {
		hpkeID, isHPKE := k.HPKEID()
		group, isTLS := k.TLSGroup()
		switch {
		case isHPKE:
			fmt.Printf("%-18s HPKE KEM %#04x\n", k.Name(), hpkeID)
		case isTLS:
			fmt.Printf("%-18s TLS group %#04x\n", k.Name(), group)
		}
	}
	// Output:
	// X-Wing             HPKE KEM 0x647a
	// MLKEM768-P256      HPKE KEM 0x0050
	// MLKEM1024-P384     HPKE KEM 0x0051
	// X25519MLKEM768     TLS group 0x11ec
	// SecP256r1MLKEM768  TLS group 0x11eb
	// SecP384r1MLKEM1024 TLS group 0x11ed
}

// Sealing to a pqkem X-Wing key with the standard library's crypto/hpke,
// which calls it MLKEM768-X25519: the sender parses the encapsulation
// key's bytes, the recipient the decapsulation key's 32-byte seed.
func Example_hpke() {
	dk, err := hybrid.MLKEM768X25519().GenerateKey()
	if err != nil {
		panic(err)
	}
	kem := hpke.MLKEM768X25519()
	kdf, aead, info := hpke.HKDFSHA256(), hpke.ChaCha20Poly1305(), []byte("example")

	pk, err := kem.NewPublicKey(dk.EncapsulationKey().Bytes())
	if err != nil {
		panic(err)
	}
	sealed, err := hpke.Seal(pk, kdf, aead, info, []byte("hello"))
	if err != nil {
		panic(err)
	}

	sk, err := kem.NewPrivateKey(dk.Bytes())
	if err != nil {
		panic(err)
	}
	plaintext, err := hpke.Open(sk, kdf, aead, info, sealed)
	if err != nil {
		panic(err)
	}
	fmt.Printf("%s\n", plaintext)
	// Output: hello
}

// The other way, with MLKEM768-P256: a key pair made by crypto/hpke
// becomes a pqkem key through its private key's bytes, found by its HPKE
// KEM id; a seal to pqkem's copy of the public key opens with the
// crypto/hpke key.
func Example_hpkeKey() {
	kem := hpke.MLKEM768P256()
	sk, err := kem.GenerateKey()
	if err != nil {
		panic(err)
	}
	seed, err := sk.Bytes()
	if err != nil {
		panic(err)
	}
	k, ok := hybrid.ByHPKEID(kem.ID())
	if !ok {
		panic("no such KEM")
	}
	dk, err := k.NewDecapsulationKey(seed)
	if err != nil {
		panic(err)
	}
	fmt.Println(k.Name(), bytes.Equal(dk.EncapsulationKey().Bytes(), sk.PublicKey().Bytes()))

	pk, err := kem.NewPublicKey(dk.EncapsulationKey().Bytes())
	if err != nil {
		panic(err)
	}
	sealed, err := hpke.Seal(pk, hpke.HKDFSHA256(), hpke.AES128GCM(), nil, []byte("hello"))
	if err != nil {
		panic(err)
	}
	plaintext, err := hpke.Open(sk, hpke.HKDFSHA256(), hpke.AES128GCM(), nil, sealed)
	if err != nil {
		panic(err)
	}
	fmt.Printf("%s\n", plaintext)
	// Output:
	// MLKEM768-P256 true
	// hello
}
