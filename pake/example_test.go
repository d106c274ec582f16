package pake_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log"
	"net"
	"time"

	"github.com/pqkem/pqkem/pake"
)

// Two parties who share a password agree on a key. The initiator (here
// "alice") sends msg1; the responder ("printer") answers msg2; the
// initiator checks msg2, which proves that the responder knows the
// password, gets the key and sends msg3, which proves the same of the
// initiator; the responder checks msg3 and gets the key. Both derive
// their credentials from the password and the two identities, initiator
// first.
func Example() {
	s := pake.Default() // Tempo-C1-ML-KEM-768
	alice, err := pake.NewCredentials(s, []byte("correct horse battery staple"), "alice", "printer", nil)
	if err != nil {
		panic(err)
	}
	printer, err := pake.NewCredentials(s, []byte("correct horse battery staple"), "alice", "printer", nil)
	if err != nil {
		panic(err)
	}

	st, msg1, err := alice.Start() // alice -> printer
	if err != nil {
		panic(err)
	}
	resp, msg2, err := printer.Respond(msg1) // printer -> alice
	if err != nil {
		panic(err)
	}
	aliceKey, msg3, err := st.Finish(msg2) // alice -> printer
	if err != nil {
		panic(err) // pake.ErrPasswordMismatch with a wrong password
	}
	printerKey, err := resp.Finish(msg3)
	if err != nil {
		panic(err) // pake.ErrPasswordMismatch with a wrong password
	}
	fmt.Println(s.Name(), len(msg1), len(msg2), len(msg3), bytes.Equal(aliceKey, printerKey))
	// Output: Tempo-C1-ML-KEM-768 1216 1120 32 true
}

// The same exchange over a network connection: the printer listens and
// runs Server on the connection it accepts, alice dials and runs Client.
// Both get the session key, or an error that says whether the passwords
// differed (pake.ErrPasswordMismatch), the peer broke the protocol
// (pake.ErrProtocol) or the time ran out (pake.ErrTimeout).
func ExampleClient() {
	password := []byte("correct horse battery staple")
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		log.Fatal(err)
	}
	defer ln.Close()

	// The printer: one connection, then it stops listening.
	printerKey := make(chan []byte, 1)
	go func() {
		defer close(printerKey)
		creds, err := pake.NewCredentials(pake.Default(), password, "alice", "printer", nil)
		if err != nil {
			log.Fatal(err)
		}
		conn, err := ln.Accept()
		if err != nil {
			return
		}
		defer conn.Close()
		key, err := pake.Server(context.Background(), conn, &pake.Config{Credentials: creds, Timeout: time.Minute})
		if err != nil {
			log.Print(err)
			return
		}
		printerKey <- key
	}()

	// Alice.
	creds, err := pake.NewCredentials(pake.Default(), password, "alice", "printer", nil)
	if err != nil {
		log.Fatal(err)
	}
	conn, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		log.Fatal(err)
	}
	defer conn.Close()
	key, err := pake.Client(context.Background(), conn, &pake.Config{Credentials: creds, Timeout: time.Minute})
	if errors.Is(err, pake.ErrPasswordMismatch) {
		log.Fatal("wrong password")
	} else if err != nil {
		log.Fatal(err)
	}
	fmt.Println(len(key), bytes.Equal(key, <-printerKey))
	// Output: 32 true
}
