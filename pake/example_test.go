package pake_test

import (
	"bytes"
	"fmt"

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
