package frodo_test

import (
	"bytes"
	"fmt"

	"github.com/pqkem/pqkem/frodo"
)

// A key exchange with FrodoKEM-640-AES: Alice sends her encapsulation key
// (the specification's pk), Bob sends back a ciphertext, and both end up
// with the same 16-byte shared key.
func Example() {
	p := frodo.FrodoKEM640AES()

	dk, err := p.GenerateKey()
	if err != nil {
		panic(err)
	}
	pk := dk.EncapsulationKey().Bytes()

	ek, err := p.NewEncapsulationKey(pk)
	if err != nil {
		panic(err)
	}
	bobKey, ciphertext := ek.Encapsulate()

	aliceKey, err := dk.Decapsulate(ciphertext)
	if err != nil {
		panic(err)
	}
	fmt.Println(p.Name(), len(pk), len(ciphertext), len(aliceKey), bytes.Equal(aliceKey, bobKey))
	// Output: FrodoKEM-640-AES 9616 9752 16 true
}

// A server's long-term key decapsulates many ciphertexts: Precompute
// keeps its matrix A (800 KiB at 640) so that each decapsulation, and each
// encapsulation to its public key, skips generating A again.
func ExampleDecapsulationKey_Precompute() {
	p := frodo.FrodoKEM640SHAKE()
	dk, err := p.GenerateKey()
	if err != nil {
		panic(err)
	}
	dk.Precompute()

	ok := true
	for range 3 {
		key, ciphertext := dk.EncapsulationKey().Encapsulate()
		got, err := dk.Decapsulate(ciphertext)
		ok = ok && err == nil && bytes.Equal(got, key)
	}
	fmt.Println(ok)
	// Output: true
}
