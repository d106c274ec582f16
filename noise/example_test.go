package noise_test

import (
	"fmt"
	"io"
	"log"

	"github.com/pqkem/pqkem/kem"
	"github.com/pqkem/pqkem/noise"
)

// A server with a static ML-KEM-768 key, and a client that knows the
// server's public key, over TCP, with the defaults of a zero Config:
// pqNK, the key's KEM, AESGCM and SHA256, as `pqkem serve` runs.
func Example() {
	scheme, err := kem.ByName("ML-KEM-768")
	if err != nil {
		log.Fatal(err)
	}
	serverKey, err := scheme.GenerateKey()
	if err != nil {
		log.Fatal(err)
	}
	l, err := noise.Listen("tcp", "127.0.0.1:0", &noise.Config{StaticKey: serverKey})
	if err != nil {
		log.Fatal(err)
	}
	defer l.Close()
	go func() {
		c, err := l.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		io.Copy(c, c) // echo; the handshake runs on the first Read
	}()

	c, err := noise.Dial("tcp", l.Addr().String(), &noise.Config{PeerStaticKey: serverKey.EncapsulationKey()})
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()
	fmt.Fprint(c, "hello")
	reply := make([]byte, 5)
	if _, err := io.ReadFull(c, reply); err != nil {
		log.Fatal(err)
	}
	fmt.Println(c.ConnectionState().Protocol, string(reply))
	// Output: Noise_pqNK_MLKEM768_AESGCM_SHA256 hello
}

// The message-level API, for a transport of the application's own: a
// pqXX handshake, where each side sends its static key, then transport
// messages.
func ExampleHandshakeState() {
	p, err := noise.ParseProtocol("Noise_pqXX_MLKEM1024_AESGCM_BLAKE2b")
	if err != nil {
		log.Fatal(err)
	}
	aliceKey, _ := p.KEM.GenerateKey()
	bobKey, _ := p.KEM.GenerateKey()
	alice, err := noise.NewHandshakeState(&noise.HandshakeConfig{Protocol: p, Initiator: true, StaticKey: aliceKey})
	if err != nil {
		log.Fatal(err)
	}
	bob, err := noise.NewHandshakeState(&noise.HandshakeConfig{Protocol: p, StaticKey: bobKey})
	if err != nil {
		log.Fatal(err)
	}
	for from, to := alice, bob; !alice.Complete(); from, to = to, from {
		msg, err := from.WriteMessage(nil, nil)
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println("handshake message", len(msg), "bytes")
		if _, err := to.ReadMessage(nil, msg); err != nil {
			log.Fatal(err)
		}
	}
	aliceSend, _, err := alice.Split()
	if err != nil {
		log.Fatal(err)
	}
	_, bobReceive, err := bob.Split()
	if err != nil {
		log.Fatal(err)
	}
	msg, _ := aliceSend.Encrypt(nil, nil, []byte("hi Bob"))
	plaintext, err := bobReceive.Decrypt(nil, nil, msg)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%s\n", plaintext)
	// Output:
	// handshake message 1568 bytes
	// handshake message 3168 bytes
	// handshake message 3184 bytes
	// handshake message 1600 bytes
	// hi Bob
}
