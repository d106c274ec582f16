package noisetest_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/pqkem/pqkem/kem"
	"github.com/pqkem/pqkem/noise"
	"github.com/pqkem/pqkem/noise/noisetest"
)

// TestDeterministic checks that the same random bytes give the same
// messages, and that running out of them fails the message that needed
// them.
func TestDeterministic(t *testing.T) {
	s, err := kem.ByName("X-Wing")
	if err != nil {
		t.Fatal(err)
	}
	p := noise.Protocol{Pattern: noise.PQNN, KEM: s, Cipher: noise.AESGCM, Hash: noise.SHA256}
	cfg := &noise.HandshakeConfig{Protocol: p, Initiator: true}
	seed := bytes.Repeat([]byte{7}, s.DecapsulationKeySize())
	var msgs [2][]byte
	for i := range msgs {
		hs, err := noisetest.NewHandshakeState(cfg, bytes.NewReader(seed))
		if err != nil {
			t.Fatal(err)
		}
		if msgs[i], err = hs.WriteMessage(nil, nil); err != nil {
			t.Fatal(err)
		}
	}
	if !bytes.Equal(msgs[0], msgs[1]) {
		t.Error("the same randomness gave different messages")
	}
	hs, err := noisetest.NewHandshakeState(cfg, bytes.NewReader(seed[1:]))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := hs.WriteMessage(nil, nil); err == nil || !strings.Contains(err.Error(), "noisetest: reading an ephemeral key seed") {
		t.Errorf("short randomness: %v", err)
	}
	p.Pattern = noise.PQNK
	if _, err := noisetest.NewHandshakeState(&noise.HandshakeConfig{Protocol: p, Initiator: true}, bytes.NewReader(seed)); err == nil || !strings.HasPrefix(err.Error(), "noise: ") {
		t.Errorf("a config without the server's key: %v", err)
	}
}

// Every scheme runs pqNN deterministically, the single-use ones too, whose
// ephemeral keys come from kemtest.GenerateKey: the same randomness gives
// the same messages and handshake hash, and the two sides agree.
func TestDeterministicAllSchemes(t *testing.T) {
	for _, s := range kem.All() {
		p := noise.Protocol{Pattern: noise.PQNN, KEM: s, Cipher: noise.ChaChaPoly, Hash: noise.SHA256}
		var hashes [2][]byte
		var first [2][]byte
		for run := range 2 {
			random := bytes.NewReader(bytes.Repeat([]byte{7}, 1<<12))
			hi, err := noisetest.NewHandshakeState(&noise.HandshakeConfig{Protocol: p, Initiator: true}, random)
			if err != nil {
				t.Fatal(err)
			}
			hr, err := noisetest.NewHandshakeState(&noise.HandshakeConfig{Protocol: p}, random)
			if err != nil {
				t.Fatal(err)
			}
			for i := 0; !hi.Complete(); i++ {
				from, to := hi, hr
				if i%2 == 1 {
					from, to = hr, hi
				}
				msg, err := from.WriteMessage(nil, nil)
				if err != nil {
					t.Fatalf("%s: message %d: %v", s.Name(), i, err)
				}
				if i == 0 {
					first[run] = msg
				}
				if _, err := to.ReadMessage(nil, msg); err != nil {
					t.Fatalf("%s: message %d: %v", s.Name(), i, err)
				}
			}
			if !hr.Complete() || !bytes.Equal(hi.HandshakeHash(), hr.HandshakeHash()) {
				t.Fatalf("%s: the two sides do not agree", s.Name())
			}
			hashes[run] = hi.HandshakeHash()
		}
		if !bytes.Equal(first[0], first[1]) || !bytes.Equal(hashes[0], hashes[1]) {
			t.Errorf("%s: the same randomness gave different handshakes", s.Name())
		}
	}
}
