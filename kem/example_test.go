package kem_test

import (
	"bytes"
	"fmt"

	"github.com/pqkem/pqkem/kem"
)

// A key exchange with a scheme chosen by name at run time.
func Example() {
	scheme, err := kem.ByName("ML-KEM-768")
	if err != nil {
		panic(err)
	}

	// Alice generates a key and sends the encapsulation key to Bob.
	dk, err := scheme.GenerateKey()
	if err != nil {
		panic(err)
	}
	ekBytes := dk.EncapsulationKey().Bytes()

	// Bob parses it, and encapsulates a shared key to it.
	ek, err := scheme.NewEncapsulationKey(ekBytes)
	if err != nil {
		panic(err)
	}
	bobKey, ciphertext := ek.Encapsulate()

	// Alice decapsulates Bob's ciphertext.
	aliceKey, err := dk.Decapsulate(ciphertext)
	if err != nil {
		panic(err)
	}

	fmt.Println(scheme.Name(), len(ekBytes), len(ciphertext), bytes.Equal(aliceKey, bobKey))
	// Output: ML-KEM-768 1184 1088 true
}

func ExampleAll() {
	for _, s := range kem.All()[:3] {
		fmt.Println(s.Name(), s.EncapsulationKeySize(), s.CiphertextSize())
	}
	// Output:
	// ML-KEM-512 800 768
	// ML-KEM-768 1184 1088
	// ML-KEM-1024 1568 1568
}
