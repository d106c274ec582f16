package mlkem_test

import (
	"bytes"
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
