package frodotest_test

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"testing"

	"github.com/pqkem/pqkem/frodo"
	"github.com/pqkem/pqkem/frodo/frodotest"
	"github.com/pqkem/pqkem/internal/vectors"
)

type ccsCase struct {
	Index    int    `json:"index"`
	AliceRNG string `json:"alice_rng"`
	BobRNG   string `json:"bob_rng"`
	MsgAlice string `json:"msg_alice"`
	MsgBob   string `json:"msg_bob"`
	HintC    string `json:"hint_c"`
	KeyBob   string `json:"key_bob"`
	KeyAlice string `json:"key_alice"`
	// Labels and the debugging values, not compared here.
	RNGLabel  string          `json:"rng_label"`
	SeedA     string          `json:"seed_a"`
	KeysEqual bool            `json:"keys_equal"`
	Debug     json.RawMessage `json:"debug"`
}

func TestCCS2016Vectors(t *testing.T) {
	for _, tc := range []struct {
		file string
		set  *frodo.KeyExchangeSet
	}{
		{"frodo-ccs2016/recommended.json", frodo.CCS2016Recommended()},
		{"frodo-ccs2016/paranoid.json", frodo.CCS2016Paranoid()},
	} {
		var v struct {
			Scheme          string          `json:"scheme"`
			ParameterSet    string          `json:"parameter_set"`
			Group           string          `json:"group"`
			MatrixGenerator string          `json:"matrix_generator"`
			Params          json.RawMessage `json:"params"`
			Cases           []ccsCase       `json:"cases"`
		}
		vectors.ReadJSON(t, tc.file, &v)
		if len(v.Cases) != 10 {
			t.Fatalf("%s: %d cases, want 10", tc.file, len(v.Cases))
		}
		h := func(s string) []byte {
			b, err := hex.DecodeString(s)
			if err != nil {
				t.Fatal(err)
			}
			return b
		}
		for _, c := range v.Cases {
			msgA, st, err := frodotest.CCS2016Alice0(tc.set, h(c.AliceRNG))
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(msgA, h(c.MsgAlice)) {
				t.Fatalf("%s case %d: Alice's message differs", tc.set.Name(), c.Index)
			}
			msgB, keyB, err := frodotest.CCS2016Bob(tc.set, msgA, h(c.BobRNG))
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(msgB, h(c.MsgBob)) {
				t.Fatalf("%s case %d: Bob's message differs", tc.set.Name(), c.Index)
			}
			if !bytes.Equal(msgB[len(msgB)-8:], h(c.HintC)) {
				t.Fatalf("%s case %d: hint differs", tc.set.Name(), c.Index)
			}
			if !bytes.Equal(keyB, h(c.KeyBob)) {
				t.Fatalf("%s case %d: Bob's key %x, want %s", tc.set.Name(), c.Index, keyB, c.KeyBob)
			}
			keyA, err := st.Alice1(msgB)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(keyA, h(c.KeyAlice)) {
				t.Fatalf("%s case %d: Alice's key %x, want %s", tc.set.Name(), c.Index, keyA, c.KeyAlice)
			}
			if _, err := st.Alice1(msgB); err == nil {
				t.Fatalf("%s: a state served twice", tc.set.Name())
			}
		}
	}
}
