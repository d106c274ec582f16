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
