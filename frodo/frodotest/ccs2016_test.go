package frodotest_test

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
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
		h := func(s string) []byte { return vectors.Hex(t, s) }
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

// The randomness of the derandomized steps must have its exact length.
func TestCCS2016WrongLengths(t *testing.T) {
	for _, s := range []*frodo.KeyExchangeSet{frodo.CCS2016Recommended(), frodo.CCS2016Paranoid()} {
		for _, n := range []int{0, 1, 79, 81, 96} {
			msg, st, err := frodotest.CCS2016Alice0(s, make([]byte, n))
			if err == nil || msg != nil || st != nil || !strings.HasPrefix(err.Error(), "frodo: invalid "+s.Name()+" randomness length") {
				t.Errorf("%s: CCS2016Alice0 with %d bytes of randomness: %v", s.Name(), n, err)
			}
		}
		msgA, _ := s.Alice0()
		for _, n := range []int{0, 1, 80, 95, 97} {
			if _, _, err := frodotest.CCS2016Bob(s, msgA, make([]byte, n)); err == nil || !strings.HasPrefix(err.Error(), "frodo: invalid randomness length") {
				t.Errorf("%s: CCS2016Bob with %d bytes of randomness: %v", s.Name(), n, err)
			}
		}
		if _, _, err := frodotest.CCS2016Bob(s, msgA[1:], make([]byte, 96)); err == nil || !strings.HasPrefix(err.Error(), "frodo: invalid "+s.Name()+" message from Alice") {
			t.Errorf("%s: CCS2016Bob with a short message from Alice: %v", s.Name(), err)
		}
	}
}

// Package frodo gives no way to make a state from chosen bytes: the only
// exported method that returns an AliceState is Alice0, which takes
// nothing and draws its randomness itself, and no exported method takes
// randomness. So a state cannot be made twice outside this package.
func TestCCS2016NoDerandomizedAlice0(t *testing.T) {
	state := reflect.TypeFor[*frodo.AliceState]()
	for _, typ := range []reflect.Type{reflect.TypeFor[*frodo.KeyExchangeSet](), state} {
		for i := range typ.NumMethod() {
			m := typ.Method(i)
			for j := range m.Type.NumOut() {
				if m.Type.Out(j) == state && (m.Name != "Alice0" || m.Type.NumIn() != 1) {
					t.Errorf("(%v).%s returns an AliceState: %v", typ, m.Name, m.Type)
				}
			}
			if strings.Contains(strings.ToLower(m.Name), "seed") {
				t.Errorf("(%v).%s is exported", typ, m.Name)
			}
		}
	}
}
