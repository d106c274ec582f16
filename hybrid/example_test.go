package hybrid_test

import (
	"bytes"
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
