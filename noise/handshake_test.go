package noise_test

import (
	"bytes"
	"crypto/ecdh"
	"crypto/rand"
	"errors"
	"flag"
	"fmt"
	"math"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/pqkem/pqkem/kem"
	"github.com/pqkem/pqkem/noise"
)

var full = flag.Bool("noise.full", false, "run every pattern with every scheme, cipher and hash (slow)")

var (
	ciphers = []noise.Cipher{noise.ChaChaPoly, noise.AESGCM}
	hashes  = []noise.Hash{noise.SHA256, noise.SHA512, noise.BLAKE2s, noise.BLAKE2b}
)

// staticKeys caches one static key pair per scheme.
var staticKeys = map[string][2]kem.DecapsulationKey{}

func keysOf(t testing.TB, s kem.Scheme) (initiator, responder kem.DecapsulationKey) {
	if k, ok := staticKeys[s.Name()]; ok {
		return k[0], k[1]
	}
	var k [2]kem.DecapsulationKey
	for i := range k {
		var err error
		if k[i], err = s.GenerateKey(); err != nil {
			t.Fatal(err)
		}
	}
	staticKeys[s.Name()] = k
	return k[0], k[1]
}

// hybridKeys caches one hybrid static key pair per scheme.
var hybridKeys = map[string][2]kem.DecapsulationKey{}

// protocolKeys returns the static key pairs of the protocol's parties:
// of its KEM, or hybrid keys in a hybrid pattern.
func protocolKeys(t testing.TB, p noise.Protocol) (initiator, responder kem.DecapsulationKey) {
	if !p.Pattern.Hybrid() {
		return keysOf(t, p.KEM)
	}
	if k, ok := hybridKeys[p.KEM.Name()]; ok {
		return k[0], k[1]
	}
	si, sr := keysOf(t, p.KEM)
	var k [2]kem.DecapsulationKey
	for i, dk := range []kem.DecapsulationKey{si, sr} {
		dh, err := ecdh.X25519().GenerateKey(rand.Reader)
		if err != nil {
			t.Fatal(err)
		}
		if k[i], err = noise.NewHybridDecapsulationKey(dh, dk); err != nil {
			t.Fatal(err)
		}
	}
	hybridKeys[p.KEM.Name()] = k
	return k[0], k[1]
}

// testPSKs returns the PSKs of the pattern for tests: 32 bytes each, the
// n-th of bytes n+1.
func testPSKs(p noise.Pattern) [][]byte {
	var psks [][]byte
	for i := range p.PSKs() {
		psks = append(psks, bytes.Repeat([]byte{byte(i + 1)}, noise.PSKSize))
	}
	return psks
}

// configs returns both parties' HandshakeConfigs for p, with the keys and
// PSKs the pattern needs.
func configs(t testing.TB, p noise.Protocol, prologue []byte) (init, resp *noise.HandshakeConfig) {
	si, sr := protocolKeys(t, p)
	init = &noise.HandshakeConfig{Protocol: p, Initiator: true, Prologue: prologue, PSKs: testPSKs(p.Pattern)}
	resp = &noise.HandshakeConfig{Protocol: p, Prologue: prologue, PSKs: testPSKs(p.Pattern)}
	if p.Pattern.NeedsStaticKey(true) {
		init.StaticKey = si
	}
	if p.Pattern.NeedsStaticKey(false) {
		resp.StaticKey = sr
	}
	if p.Pattern.NeedsPeerStaticKey(true) {
		init.PeerStaticKey = sr.EncapsulationKey()
	}
	if p.Pattern.NeedsPeerStaticKey(false) {
		resp.PeerStaticKey = si.EncapsulationKey()
	}
	return init, resp
}

func newPair(t testing.TB, p noise.Protocol) (init, resp *noise.HandshakeState) {
	ic, rc := configs(t, p, []byte("prologue"))
	init, err := noise.NewHandshakeState(ic)
	if err != nil {
		t.Fatal(err)
	}
	resp, err = noise.NewHandshakeState(rc)
	if err != nil {
		t.Fatal(err)
	}
	return init, resp
}

// handshake runs the handshake between init and resp, with each message's
// payload from payload (nil: empty), passing every message through edit,
// and returns the first error.
func handshake(init, resp *noise.HandshakeState, payload func(i int) []byte, edit func(i int, msg []byte) []byte) error {
	for i := 0; !init.Complete() || !resp.Complete(); i++ {
		from, to := init, resp
		if i%2 == 1 {
			from, to = resp, init
		}
		var pl []byte
		if payload != nil {
			pl = payload(i)
		}
		msg, err := from.WriteMessage(nil, pl)
		if err != nil {
			return err
		}
		if edit != nil {
			msg = edit(i, msg)
		}
		got, err := to.ReadMessage(nil, msg)
		if err != nil {
			return err
		}
		if !bytes.Equal(got, pl) {
			return fmt.Errorf("message %d: payload %q, want %q", i, got, pl)
		}
	}
	return nil
}

// roundTrip runs a complete handshake of p and a few transport messages,
// checking everything both sides should agree on.
func roundTrip(t *testing.T, p noise.Protocol) {
	init, resp := newPair(t, p)
	if err := handshake(init, resp, func(i int) []byte { return fmt.Appendf(nil, "payload %d", i) }, nil); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(init.HandshakeHash(), resp.HandshakeHash()) || len(init.HandshakeHash()) != p.Hash.Size() {
		t.Fatal("handshake hashes differ")
	}
	si, sr := protocolKeys(t, p)
	if p.Pattern.NeedsStaticKey(false) != (init.PeerStaticKey() != nil) ||
		(init.PeerStaticKey() != nil && !bytes.Equal(init.PeerStaticKey().Bytes(), sr.EncapsulationKey().Bytes())) {
		t.Error("the initiator's PeerStaticKey is wrong")
	}
	if p.Pattern.NeedsStaticKey(true) != (resp.PeerStaticKey() != nil) ||
		(resp.PeerStaticKey() != nil && !bytes.Equal(resp.PeerStaticKey().Bytes(), si.EncapsulationKey().Bytes())) {
		t.Error("the responder's PeerStaticKey is wrong")
	}
	is, ir, err := init.Split()
	if err != nil {
		t.Fatal(err)
	}
	rs, rr, err := resp.Split()
	if err != nil {
		t.Fatal(err)
	}
	for k := range 3 {
		for _, d := range [][2]*noise.CipherState{{is, rr}, {rs, ir}} {
			msg := fmt.Appendf(nil, "transport %d", k)
			ct, err := d[0].Encrypt(nil, nil, msg)
			if err != nil {
				t.Fatal(err)
			}
			pt, err := d[1].Decrypt(nil, nil, ct)
			if err != nil || !bytes.Equal(pt, msg) {
				t.Fatalf("transport message %d: %q, %v", k, pt, err)
			}
		}
	}
}

// TestRoundTrip runs every pattern with every scheme of kem.All; the
// ciphers and hashes take turns (ML-KEM-768 runs all eight), or with
// -noise.full all of them run with every scheme. eFrodoKEM runs only
// pqNN, the one pattern without static keys.
func TestRoundTrip(t *testing.T) {
	n := 0
	for _, s := range kem.All() {
		for _, pat := range noise.Patterns() {
			if kem.EphemeralOnly(s) && pat != noise.PQNN {
				continue
			}
			if testing.Short() && slowInShort(s) && pat != noise.PQNK && pat != noise.PQXX {
				// With -short (the emulated and 32-bit runs), the larger
				// FrodoKEM sets run two patterns; FrodoKEM-640 runs all.
				continue
			}
			for ci, c := range ciphers {
				for hi, h := range hashes {
					if !*full && s.Name() != "ML-KEM-768" && (n+ci*len(hashes)+hi)%8 != 0 {
						continue
					}
					p := noise.Protocol{Pattern: pat, KEM: s, Cipher: c, Hash: h}
					t.Run(p.String(), func(t *testing.T) { roundTrip(t, p) })
				}
			}
			n++
		}
	}
}

// slowInShort reports whether s is one of the FrodoKEM sets that
// TestRoundTrip runs with two patterns only under -short: 976 and 1344.
func slowInShort(s kem.Scheme) bool {
	name := s.Name()
	return strings.HasPrefix(name, "FrodoKEM-") && !strings.Contains(name, "-640-")
}

// TestFit checks that every message of every protocol fits 65,535 bytes
// with an empty payload (the largest, FrodoKEM-1344's pqKX and pqIX
// second message, leaves 575 bytes of payload), and that the limit is
// enforced on payloads: the largest one fits, one byte more is refused
// without harming the handshake.
func TestFit(t *testing.T) {
	for _, s := range kem.All() {
		for _, pat := range noise.Patterns() {
			p := noise.Protocol{Pattern: pat, KEM: s, Cipher: noise.ChaChaPoly, Hash: noise.SHA256}
			for i, n := range p.MessageSizes() {
				if n > noise.MaxMessageSize {
					t.Errorf("%v: message %d is %d bytes", p, i, n)
				}
			}
		}
	}
	for _, name := range []string{"FrodoKEM-1344-SHAKE", "ML-KEM-512"} {
		s, err := kem.ByName(name)
		if err != nil {
			t.Fatal(err)
		}
		p := noise.Protocol{Pattern: noise.PQIX, KEM: s, Cipher: noise.AESGCM, Hash: noise.BLAKE2b}
		sizes := p.MessageSizes()
		init, resp := newPair(t, p)
		err = handshake(init, resp, func(i int) []byte {
			if i == 1 {
				_, err := resp.WriteMessage(nil, make([]byte, noise.MaxMessageSize-sizes[i]+1))
				if !errors.Is(err, noise.ErrMessageTooLarge) || !strings.HasPrefix(err.Error(), "noise: ") {
					t.Errorf("%v: a payload one byte too large: %v", p, err)
				}
			}
			return make([]byte, noise.MaxMessageSize-sizes[i])
		}, func(i int, msg []byte) []byte {
			if len(msg) != noise.MaxMessageSize {
				t.Errorf("%v: message %d is %d bytes, want %d", p, i, len(msg), noise.MaxMessageSize)
			}
			return msg
		})
		if err != nil {
			t.Fatalf("%v: %v", p, err)
		}
	}
	if s, _ := kem.ByName("FrodoKEM-1344-AES"); noise.MaxMessageSize-(noise.Protocol{Pattern: noise.PQKX, KEM: s}).MessageSizes()[1] != 575 {
		t.Error("FrodoKEM-1344 pqKX message 1 does not leave 575 bytes of payload")
	}
}

// bigScheme is a scheme too large for some patterns; only its sizes and
// name are used.
type bigScheme struct{ kem.Scheme }

func (bigScheme) Name() string              { return "BIG" }
func (bigScheme) EncapsulationKeySize() int { return 20000 }
func (bigScheme) CiphertextSize() int       { return 20000 }

// TestTooLarge checks that a protocol whose messages cannot fit is
// refused, naming the message.
func TestTooLarge(t *testing.T) {
	for _, pat := range noise.Patterns() {
		p := noise.Protocol{Pattern: pat, KEM: bigScheme{}, Cipher: noise.ChaChaPoly, Hash: noise.SHA256}
		fits := true
		for _, n := range p.MessageSizes() {
			fits = fits && n <= noise.MaxMessageSize
		}
		_, err := noise.NewHandshakeState(&noise.HandshakeConfig{Protocol: p, Initiator: true})
		if fits {
			continue // refused for its missing keys, not its size
		}
		if err == nil || !strings.Contains(err.Error(), "does not fit") || !strings.HasPrefix(err.Error(), "noise: ") {
			t.Errorf("%v: %v", p, err)
		}
	}
}

// TestShortMessage checks that ReadMessage refuses a message shorter
// than the protocol's with a *noise.MessageSizeError.
func TestShortMessage(t *testing.T) {
	s, _ := kem.ByName("ML-KEM-768")
	p := noise.Protocol{Pattern: noise.PQNN, KEM: s, Cipher: noise.AESGCM, Hash: noise.SHA256}
	hs, err := noise.NewHandshakeState(&noise.HandshakeConfig{Protocol: p})
	if err != nil {
		t.Fatal(err)
	}
	want := p.MessageSizes()[0]
	_, err = hs.ReadMessage(nil, make([]byte, want-1))
	se, ok := errors.AsType[*noise.MessageSizeError](err)
	if !ok || se.Protocol != p || se.Message != 0 || se.Got != want-1 || se.Want != want || !se.AtLeast ||
		err.Error() != fmt.Sprintf("noise: handshake message 0 is %d bytes, want at least %d", want-1, want) {
		t.Errorf("ReadMessage of %d bytes: %v (%#v), want a *noise.MessageSizeError", want-1, err, se)
	}
}

func TestEphemeralOnlyRefused(t *testing.T) {
	for _, s := range kem.All() {
		if !kem.EphemeralOnly(s) {
			continue
		}
		for _, pat := range noise.Patterns() {
			p := noise.Protocol{Pattern: pat, KEM: s, Cipher: noise.ChaChaPoly, Hash: noise.SHA256}
			_, err := noise.NewHandshakeState(&noise.HandshakeConfig{Protocol: p, Initiator: true})
			if pat == noise.PQNN {
				if err != nil {
					t.Errorf("%v: %v", p, err)
				}
			} else if err == nil || !strings.Contains(err.Error(), "not safe as a static key") {
				t.Errorf("%v: %v", p, err)
			}
		}
	}
}

func TestConfigErrors(t *testing.T) {
	mlkem768, _ := kem.ByName("ML-KEM-768")
	mlkem512, _ := kem.ByName("ML-KEM-512")
	si, sr := keysOf(t, mlkem768)
	other, _ := keysOf(t, mlkem512)
	nk := noise.Protocol{Pattern: noise.PQNK, KEM: mlkem768, Cipher: noise.ChaChaPoly, Hash: noise.SHA256}
	for _, c := range []struct {
		name string
		cfg  noise.HandshakeConfig
		want string
	}{
		{"no remote key", noise.HandshakeConfig{Protocol: nk, Initiator: true}, "needs a peer static key"},
		{"no static key", noise.HandshakeConfig{Protocol: nk}, "needs a static key"},
		{"unused static key", noise.HandshakeConfig{Protocol: nk, Initiator: true, StaticKey: si, PeerStaticKey: sr.EncapsulationKey()}, "but one was given"},
		{"wrong scheme", noise.HandshakeConfig{Protocol: nk, StaticKey: other}, "is of ML-KEM-512, want ML-KEM-768"},
		{"no KEM", noise.HandshakeConfig{Protocol: noise.Protocol{Pattern: noise.PQNN, Cipher: noise.AESGCM, Hash: noise.SHA256}}, "has no KEM"},
		{"bad pattern", noise.HandshakeConfig{Protocol: noise.Protocol{Pattern: 99, KEM: mlkem768, Cipher: noise.AESGCM, Hash: noise.SHA256}}, "unknown pattern"},
		{"bad cipher", noise.HandshakeConfig{Protocol: noise.Protocol{Pattern: noise.PQNN, KEM: mlkem768, Hash: noise.SHA256}}, "unknown cipher"},
		{"bad hash", noise.HandshakeConfig{Protocol: noise.Protocol{Pattern: noise.PQNN, KEM: mlkem768, Cipher: noise.AESGCM}}, "unknown hash"},
	} {
		_, err := noise.NewHandshakeState(&c.cfg)
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), "noise: ") {
			t.Errorf("%s: %v, want an error with %q", c.name, err, c.want)
		}
	}
	for _, name := range []string{"Noise_pqXX_MLKEM768_ChaChaPoly", "Noise_XX_MLKEM768_ChaChaPoly_SHA256", "Noise_pqXX_ML-KEM-768_ChaChaPoly_SHA256",
		"Noise_pqXX_MLKEM768_AES_SHA256", "Noise_pqXX_MLKEM768_AESGCM_SHA3", "Nois_pqXX_MLKEM768_AESGCM_SHA256", "Noise_pqNNpsk5_MLKEM768_AESGCM_SHA256", "Noise_pqNNpsk2+psk2_MLKEM768_AESGCM_SHA256",
		"Noise_pqNN_MLKEM768+MLKEM768_AESGCM_SHA256", "Noise_hybridNN_MLKEM768_AESGCM_SHA256", "Noise_pqNN_25519+MLKEM768_AESGCM_SHA256"} {
		if _, err := noise.ParseProtocol(name); err == nil || !strings.HasPrefix(err.Error(), "noise: ") {
			t.Errorf("ParseProtocol(%q): %v", name, err)
		}
	}
}

// TestNames checks that every scheme has a Noise name that parses back.
func TestNames(t *testing.T) {
	for _, s := range kem.All() {
		n, err := noise.KEMName(s)
		if err != nil {
			t.Fatal(err)
		}
		for _, pat := range noise.Patterns() {
			for _, c := range ciphers {
				for _, h := range hashes {
					p := noise.Protocol{Pattern: pat, KEM: s, Cipher: c, Hash: h}
					q, err := noise.ParseProtocol(p.String())
					if err != nil || q != p {
						t.Fatalf("ParseProtocol(%q) = %v, %v", p, q, err)
					}
				}
			}
		}
		if strings.HasPrefix(s.Name(), "ML-KEM-") && n != "MLKEM"+strings.TrimPrefix(s.Name(), "ML-KEM-") {
			t.Errorf("%s's Noise name is %s", s.Name(), n)
		}
	}
}

// TestParseCipherHash checks ParseCipher and ParseHash: each name given
// by String parses back, and other names are errors that list the valid
// ones.
func TestParseCipherHash(t *testing.T) {
	if got := noise.Ciphers(); !slices.Equal(got, ciphers) {
		t.Errorf("Ciphers() = %v, want %v", got, ciphers)
	}
	if got := noise.Hashes(); !slices.Equal(got, hashes) {
		t.Errorf("Hashes() = %v, want %v", got, hashes)
	}
	for _, c := range ciphers {
		if got, err := noise.ParseCipher(c.String()); got != c || err != nil {
			t.Errorf("ParseCipher(%q) = %v, %v", c.String(), got, err)
		}
	}
	for _, h := range hashes {
		if got, err := noise.ParseHash(h.String()); got != h || err != nil {
			t.Errorf("ParseHash(%q) = %v, %v", h.String(), got, err)
		}
	}
	for _, name := range []string{"", "AES", "aesgcm", "Cipher(1)", "SHA256"} {
		if got, err := noise.ParseCipher(name); got != 0 || err == nil || err.Error() != fmt.Sprintf("noise: unknown cipher %q, want ChaChaPoly or AESGCM", name) {
			t.Errorf("ParseCipher(%q) = %v, %v", name, got, err)
		}
	}
	for _, name := range []string{"", "SHA3", "sha256", "Hash(1)", "AESGCM"} {
		if got, err := noise.ParseHash(name); got != 0 || err == nil || err.Error() != fmt.Sprintf("noise: unknown hash %q, want SHA256, SHA512, BLAKE2s or BLAKE2b", name) {
			t.Errorf("ParseHash(%q) = %v, %v", name, got, err)
		}
	}
}

// TestTamper flips a byte at the start, in the middle and at the end of
// every handshake message of every pattern: the handshake must fail with
// an error, and no later than its last message.
func TestTamper(t *testing.T) {
	s, _ := kem.ByName("ML-KEM-768")
	for _, pat := range noise.Patterns() {
		p := noise.Protocol{Pattern: pat, KEM: s, Cipher: noise.ChaChaPoly, Hash: noise.BLAKE2s}
		for i := range pat.Messages() {
			for _, where := range []string{"start", "middle", "end"} {
				init, resp := newPair(t, p)
				err := handshake(init, resp, nil, func(j int, msg []byte) []byte {
					if j == i {
						k := map[string]int{"start": 0, "middle": len(msg) / 2, "end": len(msg) - 1}[where]
						msg[k] ^= 0x40
					}
					return msg
				})
				if err == nil || !strings.HasPrefix(err.Error(), "noise: ") {
					t.Errorf("%v: message %d altered at its %s: %v", p, i, where, err)
				}
				if init.Complete() && resp.Complete() {
					t.Errorf("%v: message %d altered at its %s: the handshake completed", p, i, where)
				}
			}
		}
	}
}

// TestWrongStaticKey runs the patterns where the initiator knows the
// responder's key beforehand with another key: the handshake fails with an
// authentication error.
func TestWrongStaticKey(t *testing.T) {
	s, _ := kem.ByName("ML-KEM-512")
	wrong, err := s.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	for _, pat := range noise.Patterns() {
		for _, side := range []bool{true, false} {
			if !pat.NeedsPeerStaticKey(side) {
				continue
			}
			p := noise.Protocol{Pattern: pat, KEM: s, Cipher: noise.AESGCM, Hash: noise.SHA512}
			ic, rc := configs(t, p, nil)
			if side {
				ic.PeerStaticKey = wrong.EncapsulationKey()
			} else {
				rc.PeerStaticKey = wrong.EncapsulationKey()
			}
			init, _ := noise.NewHandshakeState(ic)
			resp, _ := noise.NewHandshakeState(rc)
			if err := handshake(init, resp, nil, nil); !errors.Is(err, noise.ErrAuthentication) {
				t.Errorf("%v, wrong key for the %v: %v", p, map[bool]string{true: "initiator", false: "responder"}[side], err)
			}
		}
	}
	// A prologue mismatch fails the same way.
	p := noise.Protocol{Pattern: noise.PQNN, KEM: s, Cipher: noise.AESGCM, Hash: noise.SHA512}
	init, _ := noise.NewHandshakeState(&noise.HandshakeConfig{Protocol: p, Initiator: true, Prologue: []byte("a")})
	resp, _ := noise.NewHandshakeState(&noise.HandshakeConfig{Protocol: p, Prologue: []byte("b")})
	if err := handshake(init, resp, nil, nil); !errors.Is(err, noise.ErrAuthentication) {
		t.Errorf("prologue mismatch: %v", err)
	}
}

// TestOrder checks out-of-turn calls, a replayed, a truncated, an
// overlong and an out-of-order handshake message.
func TestOrder(t *testing.T) {
	s, _ := kem.ByName("ML-KEM-768")
	p := noise.Protocol{Pattern: noise.PQXX, KEM: s, Cipher: noise.ChaChaPoly, Hash: noise.SHA256}
	init, resp := newPair(t, p)
	if _, err := init.ReadMessage(nil, nil); err == nil || !strings.Contains(err.Error(), "out of turn") {
		t.Errorf("ReadMessage before WriteMessage: %v", err)
	}
	if _, err := resp.WriteMessage(nil, nil); err == nil || !strings.Contains(err.Error(), "out of turn") {
		t.Errorf("the responder's WriteMessage first: %v", err)
	}
	m0, err := init.WriteMessage(nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := resp.ReadMessage(nil, m0); err != nil {
		t.Fatal(err)
	}
	// Replayed: the responder has read message 0 and must write.
	if _, err := resp.ReadMessage(nil, m0); err == nil || !strings.Contains(err.Error(), "out of turn") {
		t.Errorf("message 0 replayed: %v", err)
	}
	m1, err := resp.WriteMessage(nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	// Out of order: message 0 where message 1 is due.
	init2, _ := newPair(t, p)
	if _, err := init2.WriteMessage(nil, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := init2.ReadMessage(nil, m0); err == nil || !strings.HasPrefix(err.Error(), "noise: ") {
		t.Errorf("message 0 read as message 1: %v", err)
	}
	if _, err := init2.ReadMessage(nil, m1); err == nil {
		t.Error("a failed handshake went on")
	}
	// Truncated and overlong.
	for _, bad := range [][]byte{m1[:len(m1)-1], m1[:100], nil, append(bytes.Clone(m1), 0), make([]byte, noise.MaxMessageSize+1)} {
		i, _ := newPair(t, p)
		if _, err := i.WriteMessage(nil, nil); err != nil {
			t.Fatal(err)
		}
		if _, err := i.ReadMessage(nil, bad); err == nil || !strings.HasPrefix(err.Error(), "noise: ") {
			t.Errorf("a %d-byte message 1: %v", len(bad), err)
		}
	}
	if _, err := init.ReadMessage(nil, m1); err != nil {
		t.Fatal(err)
	}
	if _, _, err := init.Split(); err == nil {
		t.Error("Split before the handshake is complete")
	}
}

// TestTransport checks the transport CipherStates: a replayed, reordered,
// truncated or altered message fails without moving the nonce, rekeying,
// the size limit and the last nonce.
func TestTransport(t *testing.T) {
	s, _ := kem.ByName("ML-KEM-512")
	for _, c := range ciphers {
		p := noise.Protocol{Pattern: noise.PQNN, KEM: s, Cipher: c, Hash: noise.SHA256}
		init, resp := newPair(t, p)
		if err := handshake(init, resp, nil, nil); err != nil {
			t.Fatal(err)
		}
		send, _, _ := init.Split()
		_, recv, _ := resp.Split()
		if _, _, err := init.Split(); err == nil {
			t.Error("Split twice")
		}
		m0, _ := send.Encrypt(nil, nil, []byte("zero"))
		m1, _ := send.Encrypt(nil, nil, []byte("one"))
		for _, bad := range [][]byte{m1, m0[:len(m0)-1], m0[:3], append(bytes.Clone(m0), 1), flip(m0, 0), flip(m0, len(m0)-1)} {
			if _, err := recv.Decrypt(nil, nil, bad); !errors.Is(err, noise.ErrAuthentication) || recv.Nonce() != 0 {
				t.Errorf("%v: a bad message: %v, nonce %d", c, err, recv.Nonce())
			}
		}
		if pt, err := recv.Decrypt(nil, nil, m0); err != nil || string(pt) != "zero" {
			t.Fatalf("%v: %q, %v", c, pt, err)
		}
		if _, err := recv.Decrypt(nil, nil, m0); !errors.Is(err, noise.ErrAuthentication) {
			t.Errorf("%v: a replayed message: %v", c, err)
		}
		if pt, err := recv.Decrypt(nil, nil, m1); err != nil || string(pt) != "one" {
			t.Fatalf("%v: %q, %v", c, pt, err)
		}
		// Rekey on both sides keeps them in step; on one side it does not.
		send.Rekey()
		recv.Rekey()
		m2, _ := send.Encrypt(nil, nil, []byte("two"))
		if pt, err := recv.Decrypt(nil, nil, m2); err != nil || string(pt) != "two" || send.Nonce() != 3 {
			t.Fatalf("%v: after Rekey: %q, %v", c, pt, err)
		}
		send.Rekey()
		m3, _ := send.Encrypt(nil, nil, []byte("three"))
		if _, err := recv.Decrypt(nil, nil, m3); !errors.Is(err, noise.ErrAuthentication) {
			t.Errorf("%v: Rekey on one side only: %v", c, err)
		}
		// Size limits.
		if m, err := send.Encrypt(nil, nil, make([]byte, noise.MaxPlaintextSize)); err != nil || len(m) != noise.MaxMessageSize {
			t.Errorf("%v: the largest plaintext: %d, %v", c, len(m), err)
		}
		if _, err := send.Encrypt(nil, nil, make([]byte, noise.MaxPlaintextSize+1)); !errors.Is(err, noise.ErrMessageTooLarge) {
			t.Errorf("%v: a too large plaintext: %v", c, err)
		}
		if _, err := recv.Decrypt(nil, nil, make([]byte, noise.MaxMessageSize+1)); !errors.Is(err, noise.ErrMessageTooLarge) {
			t.Errorf("%v: a too large message: %v", c, err)
		}
		// 2^64-1 is never used.
		send.SetNonce(math.MaxUint64 - 1)
		if _, err := send.Encrypt(nil, nil, nil); err != nil {
			t.Errorf("%v: nonce 2^64-2: %v", c, err)
		}
		if _, err := send.Encrypt(nil, nil, nil); !errors.Is(err, noise.ErrNonceExhausted) {
			t.Errorf("%v: nonce 2^64-1: %v", c, err)
		}
	}
}

func flip(b []byte, i int) []byte {
	b = bytes.Clone(b)
	b[i] ^= 1
	return b
}

// TestDocTable checks the table of KEMs in the package documentation
// against the registry and MessageSizes.
func TestDocTable(t *testing.T) {
	doc, err := os.ReadFile("doc.go")
	if err != nil {
		t.Fatal(err)
	}
	rows := map[string][]string{}
	for _, line := range strings.Split(string(doc), "\n") {
		f := strings.Split(strings.TrimPrefix(line, "//\t"), "|")
		if len(f) != 7 || strings.HasPrefix(strings.TrimSpace(f[1]), "-") {
			continue
		}
		for i := range f {
			f[i] = strings.TrimSpace(f[i])
		}
		rows[f[1]] = f[2:6]
	}
	for _, s := range kem.All() {
		row, ok := rows[s.Name()]
		if !ok {
			t.Errorf("%s is not in the table", s.Name())
			continue
		}
		name, _ := noise.KEMName(s)
		largest, where := 0, ""
		for _, pat := range noise.Patterns() {
			if kem.EphemeralOnly(s) && pat != noise.PQNN {
				continue
			}
			for i, n := range (noise.Protocol{Pattern: pat, KEM: s}).MessageSizes() {
				if n > largest {
					largest, where = n, fmt.Sprintf("%v, %d", pat, i)
				}
			}
		}
		want := []string{name, fmt.Sprint(s.EncapsulationKeySize()), fmt.Sprint(s.CiphertextSize())}
		if !slices.Equal(row[:3], want) || !strings.HasPrefix(row[3], fmt.Sprintf("%d (", largest)) ||
			(!kem.EphemeralOnly(s) && !strings.Contains(row[3], strings.Split(where, ",")[0])) {
			t.Errorf("%s: the table says %v, want %v and %d (%s)", s.Name(), row, want, largest, where)
		}
	}
	if len(rows) != len(kem.All())+1 { // the heading
		t.Errorf("the table has %d rows, want %d", len(rows)-1, len(kem.All()))
	}
}

// The CCS 2016 Frodo key exchange, passively secure and single-use, is
// refused as a static key (pqNK's responder key here) with an error that
// says why, and runs pqNN, the paper's own protocol as a Noise handshake.
func TestCCS2016(t *testing.T) {
	for _, name := range []string{"Frodo-CCS2016-Recommended", "Frodo-CCS2016-Paranoid"} {
		s, err := kem.ByName(name)
		if err != nil {
			t.Fatal(err)
		}
		dk, err := s.GenerateKey()
		if err != nil {
			t.Fatal(err)
		}
		nk := noise.Protocol{Pattern: noise.PQNK, KEM: s, Cipher: noise.ChaChaPoly, Hash: noise.SHA256}
		for _, cfg := range []noise.HandshakeConfig{
			{Protocol: nk, StaticKey: dk},
			{Protocol: nk, Initiator: true, PeerStaticKey: dk.EncapsulationKey()},
		} {
			_, err := noise.NewHandshakeState(&cfg)
			if err == nil || !strings.HasPrefix(err.Error(), "noise: "+name+" is not safe as a static key") {
				t.Errorf("%v, initiator %v: %v, want a static key refused", nk, cfg.Initiator, err)
			}
		}
		for _, c := range ciphers {
			roundTrip(t, noise.Protocol{Pattern: noise.PQNN, KEM: s, Cipher: c, Hash: noise.SHA256})
		}
	}
}
