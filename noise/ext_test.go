package noise_test

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"testing"

	"github.com/pqkem/pqkem/internal/leaktest"
	"github.com/pqkem/pqkem/internal/vectors"
	"github.com/pqkem/pqkem/kem"
	"github.com/pqkem/pqkem/noise"
	"github.com/pqkem/pqkem/noise/noisetest"
)

// negativeFile is Clatter's refusal cases: psk0 patterns that Clatter
// 2.2 refuses (CVE-2026-24785).
const negativeFile = "pqnoise/clatter/psk_validity_negative.json"

type negativeCase struct {
	ProtocolName       string           `json:"protocol_name"`
	Pattern            string           `json:"pattern"`
	PatternText        []string         `json:"pattern_text"`
	DH                 string           `json:"dh"`
	KEM                string           `json:"kem"`
	Cipher             string           `json:"cipher"`
	Hash               string           `json:"hash"`
	InitPrologue       vectors.HexBytes `json:"init_prologue"`
	InitStaticSeed     vectors.HexBytes `json:"init_static_seed"`
	InitRemoteStatic   vectors.HexBytes `json:"init_remote_static"`
	InitRemoteStaticDH vectors.HexBytes `json:"init_remote_static_dh"`
	PSKs               []struct {
		Position int              `json:"position"`
		Bytes    vectors.HexBytes `json:"bytes"`
	} `json:"psks"`
	Payload vectors.HexBytes `json:"payload"`
	Expect  struct {
		Party   string `json:"party"`
		Message int    `json:"message"`
		Token   string `json:"token"`
		Outcome string `json:"outcome"`
	} `json:"expect"`
	Why string `json:"why"`
}

// TestPSKNegative refuses every case of Clatter's refusal file: the
// name parses, but the initiator's handshake state is refused with
// ErrPSKInvalid, before any message, output or random draw (Clatter
// 2.2's Rust code refuses the pattern when it is built; go-clatter at
// the skem, before output or draws).
func TestPSKNegative(t *testing.T) {
	vectors.Require(t, negativeFile)
	var file struct {
		Format string         `json:"format"`
		Origin string         `json:"origin"`
		About  string         `json:"about"`
		Cases  []negativeCase `json:"cases"`
	}
	vectors.ReadJSON(t, negativeFile, &file)
	if file.Format != "pqnoise-negative-v1" || len(file.Cases) == 0 {
		t.Fatalf("format %q, %d cases", file.Format, len(file.Cases))
	}
	for _, c := range file.Cases {
		t.Run(c.Pattern, func(t *testing.T) {
			p, err := noise.ParseProtocol(c.ProtocolName)
			if err != nil {
				t.Fatal(err)
			}
			if p.String() != c.ProtocolName || c.Expect.Outcome != "reject" || c.Expect.Party != "initiator" || c.Expect.Message != 0 {
				t.Fatalf("case %+v", c.Expect)
			}
			var psks [][]byte
			for _, k := range c.PSKs {
				psks = append(psks, k.Bytes)
			}
			hc := &noise.HandshakeConfig{Protocol: p, Initiator: true, Prologue: c.InitPrologue, PSKs: psks}
			if c.InitRemoteStatic != nil {
				b := c.InitRemoteStatic
				s := p.KEM
				if p.Pattern.Hybrid() {
					b, s = append(bytes.Clone(c.InitRemoteStaticDH), b...), noise.HybridScheme(p.KEM)
				}
				if hc.PeerStaticKey, err = s.NewEncapsulationKey(b); err != nil {
					t.Fatal(err)
				}
			}
			if c.InitStaticSeed != nil {
				if hc.StaticKey, err = p.KEM.NewDecapsulationKey(c.InitStaticSeed); err != nil {
					t.Fatal(err)
				}
			}
			hs, err := noisetest.NewHandshakeState(hc, &draws{t, "initiator", nil})
			if !errors.Is(err, noise.ErrPSKInvalid) || hs != nil {
				t.Fatalf("NewHandshakeState: %v, want ErrPSKInvalid", err)
			}
			if !strings.Contains(err.Error(), c.Expect.Token) {
				t.Errorf("error %q does not name the %s", err, c.Expect.Token)
			}
			// The Conn layer refuses it before dialling.
			if _, err := noise.Dial("tcp", "127.0.0.1:1", &noise.Config{Protocol: p, PeerStaticKey: hc.PeerStaticKey, StaticKey: hc.StaticKey, PSKs: psks}); !errors.Is(err, noise.ErrPSKInvalid) {
				t.Errorf("Dial: %v, want ErrPSKInvalid", err)
			}
		})
	}
}

// TestPSK0Rule checks Clatter's rule on every psk0 pattern: refused
// exactly where the first message starts with skem (pqNK, pqKK, pqXK,
// pqIK and their hybrid forms), and the names Clatter 2.2 predefines
// are all accepted.
func TestPSK0Rule(t *testing.T) {
	mlkem768, _ := kem.ByName("ML-KEM-768")
	for _, base := range append(noise.Patterns(), noise.HybridPatterns()...) {
		p := noise.Protocol{Pattern: base.WithPSK(0), KEM: mlkem768, Cipher: noise.AESGCM, Hash: noise.SHA256}
		err := checkProtocol(p)
		second := base.Base().String()[3]
		first := base.Base().String()[2]
		wantRefused := second == 'K' && first != 'N' || base.Base() == noise.PQNK
		if wantRefused != errors.Is(err, noise.ErrPSKInvalid) {
			t.Errorf("%v: %v", p.Pattern, err)
		}
	}
	for _, name := range []string{"pqNNpsk2", "pqNKpsk2", "pqNXpsk2", "pqXNpsk3", "pqXKpsk3", "pqXXpsk3", "pqKNpsk2",
		"pqKKpsk2", "pqKXpsk2", "pqINpsk1", "pqINpsk2", "pqIKpsk1", "pqIKpsk2", "pqIXpsk2",
		"hybridNNpsk0", "hybridNNpsk2", "hybridNKpsk2", "hybridNXpsk2", "hybridKNpsk0", "hybridKNpsk2", "hybridKKpsk2",
		"hybridKXpsk2", "hybridXNpsk3", "hybridXKpsk3", "hybridXXpsk3", "hybridINpsk1", "hybridINpsk2", "hybridIKpsk1",
		"hybridIKpsk2", "hybridIXpsk2"} {
		kems := "MLKEM768"
		if strings.HasPrefix(name, "hybrid") {
			kems = "25519+MLKEM768"
		}
		p, err := noise.ParseProtocol("Noise_" + name + "_" + kems + "_AESGCM_SHA256")
		if err != nil {
			t.Fatal(err)
		}
		if err := checkProtocol(p); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// checkProtocol returns the protocol's own error (not one of missing
// keys), through NewHandshakeState with a responder that has keys.
func checkProtocol(p noise.Protocol) error {
	_, err := noise.NewHandshakeState(&noise.HandshakeConfig{Protocol: p, PSKs: testPSKs(p.Pattern)})
	if err != nil && (strings.Contains(err.Error(), "needs a") || strings.Contains(err.Error(), "but one was given")) {
		return nil
	}
	return err
}

// TestExtSizes checks MessageSizes against the tables of spec section
// 12 (ML-KEM-768, split ML-KEM-768 and ML-KEM-1024, hybrid X25519 and
// ML-KEM-768) and against the bytes written.
func TestExtSizes(t *testing.T) {
	mlkem768, _ := kem.ByName("ML-KEM-768")
	mlkem1024, _ := kem.ByName("ML-KEM-1024")
	for _, c := range []struct {
		name  string
		sizes string
	}{
		{"pqNNpsk2_MLKEM768", "1200/1104"}, {"pqNKpsk2_MLKEM768", "2288/1104"}, {"pqNXpsk2_MLKEM768", "1200/2304/1120"},
		{"pqKNpsk2_MLKEM768", "1200/2208"}, {"pqKKpsk2_MLKEM768", "2288/2208"}, {"pqKXpsk2_MLKEM768", "1200/3408/1120"},
		{"pqXNpsk3_MLKEM768", "1200/1104/1216/1120"}, {"pqXKpsk3_MLKEM768", "2288/1104/1216/1120"},
		{"pqXXpsk3_MLKEM768", "1200/2304/2320/1120"}, {"pqINpsk1_MLKEM768", "2400/2208"}, {"pqINpsk2_MLKEM768", "2400/2208"},
		{"pqIKpsk1_MLKEM768", "3488/2208"}, {"pqIKpsk2_MLKEM768", "3488/2208"}, {"pqIXpsk2_MLKEM768", "2400/3408/1120"},
		{"pqNN_MLKEM768+MLKEM1024", "1184/1104"}, {"pqNK_MLKEM768+MLKEM1024", "2768/1104"},
		{"pqNX_MLKEM768+MLKEM1024", "1184/2688/1600"}, {"pqKN_MLKEM768+MLKEM1024", "1184/2688"},
		{"pqKK_MLKEM768+MLKEM1024", "2768/2688"}, {"pqKX_MLKEM768+MLKEM1024", "1184/4272/1600"},
		{"pqXN_MLKEM768+MLKEM1024", "1184/1104/1600/1600"}, {"pqXK_MLKEM768+MLKEM1024", "2768/1104/1600/1600"},
		{"pqXX_MLKEM768+MLKEM1024", "1184/2688/3184/1600"}, {"pqIN_MLKEM768+MLKEM1024", "2752/2688"},
		{"pqIK_MLKEM768+MLKEM1024", "4352/2688"}, {"pqIX_MLKEM768+MLKEM1024", "2752/4272/1600"},
		{"pqNX_MLKEM1024+MLKEM768", "1568/2784/1120"}, {"pqIK_MLKEM1024+MLKEM768", "3872/2688"},
		{"hybridNN_25519+MLKEM768", "1216/2320"}, {"hybridNK_25519+MLKEM768", "2320/2320"},
		{"hybridNX_25519+MLKEM768", "1216/3568/1120"}, {"hybridKN_25519+MLKEM768", "1216/3424"},
		{"hybridKK_25519+MLKEM768", "2320/3424"}, {"hybridKX_25519+MLKEM768", "1216/4672/1120"},
		{"hybridXN_25519+MLKEM768", "1216/2320/1264/1120"}, {"hybridXK_25519+MLKEM768", "2320/2320/1264/1120"},
		{"hybridXX_25519+MLKEM768", "1216/3568/2368/1120"}, {"hybridIN_25519+MLKEM768", "2432/3424"},
		{"hybridIK_25519+MLKEM768", "3568/3424"}, {"hybridIX_25519+MLKEM768", "2432/4672/1120"},
		{"hybridKX_25519+MLKEM1024", "1600/6400/1600"},
		{"hybridNNpsk0_25519+MLKEM768", "1232/2320"}, {"hybridNNpsk2_25519+MLKEM768", "1232/2320"},
		{"hybridNKpsk2_25519+MLKEM768", "2320/2320"}, {"hybridNXpsk2_25519+MLKEM768", "1232/3568/1120"},
		{"hybridKNpsk0_25519+MLKEM768", "1232/3424"}, {"hybridKNpsk2_25519+MLKEM768", "1232/3424"},
		{"hybridKKpsk2_25519+MLKEM768", "2320/3424"}, {"hybridKXpsk2_25519+MLKEM768", "1232/4672/1120"},
		{"hybridXNpsk3_25519+MLKEM768", "1232/2320/1264/1120"}, {"hybridXKpsk3_25519+MLKEM768", "2320/2320/1264/1120"},
		{"hybridXXpsk3_25519+MLKEM768", "1232/3568/2368/1120"}, {"hybridINpsk1_25519+MLKEM768", "2480/3424"},
		{"hybridINpsk2_25519+MLKEM768", "2480/3424"}, {"hybridIKpsk1_25519+MLKEM768", "3568/3424"},
		{"hybridIKpsk2_25519+MLKEM768", "3568/3424"}, {"hybridIXpsk2_25519+MLKEM768", "2480/4672/1120"},
	} {
		p, err := noise.ParseProtocol("Noise_" + c.name + "_ChaChaPoly_SHA256")
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, n := range p.MessageSizes() {
			got = append(got, strconv.Itoa(n))
		}
		if g := strings.Join(got, "/"); g != c.sizes {
			t.Errorf("%s: sizes %s, want %s", c.name, g, c.sizes)
		}
	}
	_, _ = mlkem768, mlkem1024
}

// extPatterns returns every base pattern, PQ and hybrid, with no PSK,
// with each single PSK position that Clatter's rule allows, and with two
// positions at once.
func extPatterns() []noise.Pattern {
	mlkem768, _ := kem.ByName("ML-KEM-768")
	var pats []noise.Pattern
	for _, base := range append(noise.Patterns(), noise.HybridPatterns()...) {
		pats = append(pats, base)
		var ok []int
		for n := 0; n <= base.Messages(); n++ {
			p := noise.Protocol{Pattern: base.WithPSK(n), KEM: mlkem768, Cipher: noise.AESGCM, Hash: noise.SHA256}
			if checkProtocol(p) == nil {
				pats = append(pats, p.Pattern)
				ok = append(ok, n)
			}
		}
		if len(ok) >= 2 {
			pats = append(pats, base.WithPSK(ok[0], ok[len(ok)-1]))
		}
	}
	return pats
}

// TestExtRoundTrip runs every pattern (PQ and hybrid) with every allowed
// PSK position and a pair of them, with every KEM pair (ML-KEM-768 alone,
// ML-KEM-768 ephemeral with ML-KEM-1024 static, the reverse; with -short
// one pair a pattern, in turn), and every cipher and hash; and
// FrodoKEM-640-AES static keys with an ML-KEM-768 ephemeral key, and
// eFrodoKEM-640-AES as the ephemeral KEM, in a few patterns.
func TestExtRoundTrip(t *testing.T) {
	mlkem768, _ := kem.ByName("ML-KEM-768")
	mlkem1024, _ := kem.ByName("ML-KEM-1024")
	frodo, _ := kem.ByName("FrodoKEM-640-AES")
	efrodo, _ := kem.ByName("eFrodoKEM-640-AES")
	pairs := [][2]kem.Scheme{{nil, mlkem768}, {mlkem768, mlkem1024}, {mlkem1024, mlkem768}}
	n := 0
	for i, pat := range extPatterns() {
		for j, pair := range pairs {
			if testing.Short() && j != i%len(pairs) {
				continue
			}
			for _, c := range ciphers {
				for _, h := range hashes {
					p := noise.Protocol{Pattern: pat, KEM: pair[1], EphemeralKEM: pair[0], Cipher: c, Hash: h}
					q, err := noise.ParseProtocol(p.String())
					if err != nil || q != p {
						t.Fatalf("ParseProtocol(%q) = %v, %v", p, q, err)
					}
					t.Run(p.String(), func(t *testing.T) { roundTrip(t, p) })
					n++
				}
			}
		}
	}
	for _, p := range []noise.Protocol{
		{Pattern: noise.PQNK, EphemeralKEM: mlkem768, KEM: frodo, Cipher: noise.AESGCM, Hash: noise.SHA256},
		{Pattern: noise.PQXX.WithPSK(3), EphemeralKEM: mlkem768, KEM: frodo, Cipher: noise.ChaChaPoly, Hash: noise.BLAKE2b},
		{Pattern: noise.HybridIK, EphemeralKEM: mlkem768, KEM: frodo, Cipher: noise.AESGCM, Hash: noise.SHA512},
		{Pattern: noise.PQNN, EphemeralKEM: efrodo, KEM: mlkem768, Cipher: noise.AESGCM, Hash: noise.SHA256},
		{Pattern: noise.PQNK, EphemeralKEM: efrodo, KEM: mlkem768, Cipher: noise.ChaChaPoly, Hash: noise.BLAKE2s},
	} {
		if q, err := noise.ParseProtocol(p.String()); err != nil || q != p {
			t.Fatalf("ParseProtocol(%q) = %v, %v", p, q, err)
		}
		t.Run(p.String(), func(t *testing.T) { roundTrip(t, p) })
		n++
	}
	t.Logf("%d handshakes", n)
}

// TestExtErrors: a wrong PSK fails authentication; a missing PSK, one
// too many, one for a pattern without psk tokens, or one of the wrong
// length is refused; so is an ephemeral-only static KEM, a non-hybrid key
// in a hybrid pattern, and a peer running another KEM pair.
func TestExtErrors(t *testing.T) {
	mlkem768, _ := kem.ByName("ML-KEM-768")
	mlkem1024, _ := kem.ByName("ML-KEM-1024")
	efrodo, _ := kem.ByName("eFrodoKEM-640-AES")
	frodo1344, _ := kem.ByName("FrodoKEM-1344-AES")
	xx3 := noise.Protocol{Pattern: noise.PQXX.WithPSK(3), KEM: mlkem768, Cipher: noise.AESGCM, Hash: noise.SHA256}
	nn2 := noise.Protocol{Pattern: noise.PQNN.WithPSK(2), KEM: mlkem768, Cipher: noise.AESGCM, Hash: noise.SHA256}

	// A wrong PSK: the first message authenticated with it fails.
	for _, p := range []noise.Protocol{xx3, nn2} {
		ic, rc := configs(t, p, nil)
		rc.PSKs = [][]byte{bytes.Repeat([]byte{9}, 32)}
		init, err := noise.NewHandshakeState(ic)
		if err != nil {
			t.Fatal(err)
		}
		resp, err := noise.NewHandshakeState(rc)
		if err != nil {
			t.Fatal(err)
		}
		if err := handshake(init, resp, nil, nil); !errors.Is(err, noise.ErrAuthentication) {
			t.Errorf("%v with a wrong PSK: %v", p, err)
		}
	}
	pq := noise.Protocol{Pattern: noise.PQNN, KEM: mlkem768, Cipher: noise.AESGCM, Hash: noise.SHA256}
	si, _ := protocolKeys(t, pq)
	for _, c := range []struct {
		name string
		cfg  noise.HandshakeConfig
		want string
	}{
		{"missing PSK", noise.HandshakeConfig{Protocol: nn2, Initiator: true}, "needs 1 PSKs, got 0"},
		{"two PSKs", noise.HandshakeConfig{Protocol: nn2, Initiator: true, PSKs: [][]byte{make([]byte, 32), make([]byte, 32)}}, "needs 1 PSKs, got 2"},
		{"PSK without psk", noise.HandshakeConfig{Protocol: pq, Initiator: true, PSKs: [][]byte{make([]byte, 32)}}, "has no psk token"},
		{"short PSK", noise.HandshakeConfig{Protocol: nn2, Initiator: true, PSKs: [][]byte{make([]byte, 31)}}, "PSK 0 is 31 bytes, want 32"},
		{"bad psk position", noise.HandshakeConfig{Protocol: noise.Protocol{Pattern: noise.PQNN.WithPSK(3), KEM: mlkem768, Cipher: noise.AESGCM, Hash: noise.SHA256}}, "unknown pattern"},
		{"ephemeral-only static", noise.HandshakeConfig{Protocol: noise.Protocol{Pattern: noise.PQNK, KEM: efrodo, EphemeralKEM: mlkem768, Cipher: noise.AESGCM, Hash: noise.SHA256}}, "not safe as a static key"},
		{"hybrid needs hybrid key", noise.HandshakeConfig{Protocol: noise.Protocol{Pattern: noise.HybridXX, KEM: mlkem768, Cipher: noise.AESGCM, Hash: noise.SHA256}, Initiator: true, StaticKey: si}, "want X25519+ML-KEM-768"},
		{"hybrid too large", noise.HandshakeConfig{Protocol: noise.Protocol{Pattern: noise.HybridKX, KEM: frodo1344, Cipher: noise.AESGCM, Hash: noise.SHA256}}, "does not fit"},
		{"split static key", noise.HandshakeConfig{Protocol: noise.Protocol{Pattern: noise.PQXX, KEM: mlkem1024, EphemeralKEM: mlkem768, Cipher: noise.AESGCM, Hash: noise.SHA256}, Initiator: true, StaticKey: si}, "is of ML-KEM-768, want ML-KEM-1024"},
	} {
		_, err := noise.NewHandshakeState(&c.cfg)
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), "noise: ") || len(err.Error()) > 130 {
			t.Errorf("%s: %v, want a short error with %q", c.name, err, c.want)
		}
	}

	// A PSK in another place (pqXXpsk3 against pqXXpsk2): the names
	// differ, so the first authenticated message fails.
	{
		ic, _ := configs(t, xx3, nil)
		xx2 := xx3
		xx2.Pattern = noise.PQXX.WithPSK(2)
		_, rc := configs(t, xx2, nil)
		init, err := noise.NewHandshakeState(ic)
		if err != nil {
			t.Fatal(err)
		}
		resp, err := noise.NewHandshakeState(rc)
		if err != nil {
			t.Fatal(err)
		}
		if err := handshake(init, resp, nil, nil); err == nil {
			t.Error("pqXXpsk3 against pqXXpsk2 succeeded")
		}
	}

	// Peers on different KEM pairs: the reader sees a message of another
	// size or fails authentication, never a panic; a Conn reports the
	// size.
	a := noise.Protocol{Pattern: noise.PQXX, KEM: mlkem1024, EphemeralKEM: mlkem768, Cipher: noise.AESGCM, Hash: noise.SHA256}
	b := noise.Protocol{Pattern: noise.PQXX, KEM: mlkem768, Cipher: noise.AESGCM, Hash: noise.SHA256}
	ic, _ := configs(t, a, nil)
	_, rc := configs(t, b, nil)
	init, err := noise.NewHandshakeState(ic)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := noise.NewHandshakeState(rc)
	if err != nil {
		t.Fatal(err)
	}
	if err := handshake(init, resp, nil, nil); err == nil {
		t.Error("a handshake between different KEM pairs succeeded")
	}
	ccfg, _ := connConfigs(t, noise.Protocol{Pattern: noise.PQNK, KEM: mlkem1024, EphemeralKEM: mlkem768, Cipher: noise.AESGCM, Hash: noise.SHA256})
	_, scfg := connConfigs(t, noise.Protocol{Pattern: noise.PQNK, KEM: mlkem1024, Cipher: noise.AESGCM, Hash: noise.SHA256})
	x, y := pipe(t)
	serr := serve(func() error { return noise.Server(y, scfg).Handshake() })
	cerr := serve(noise.Client(x, ccfg).Handshake)
	err = <-serr
	var se *noise.MessageSizeError
	if !errors.As(err, &se) || se.Message != 0 {
		t.Errorf("server with another ephemeral KEM: %v, want a MessageSizeError", err)
	}
	y.Close()
	if err := <-cerr; err == nil {
		t.Error("the client's handshake succeeded")
	}
}

// TestExtConn runs PSK, split-KEM and hybrid protocols through the Conn
// layer, over net.Pipe and TCP loopback, and a wrong PSK there.
func TestExtConn(t *testing.T) {
	leaktest.Check(t)
	mlkem768, _ := kem.ByName("ML-KEM-768")
	mlkem1024, _ := kem.ByName("ML-KEM-1024")
	frodo, _ := kem.ByName("FrodoKEM-640-AES")
	for i, p := range []noise.Protocol{
		{Pattern: noise.PQXX.WithPSK(3), KEM: mlkem768, Cipher: noise.ChaChaPoly, Hash: noise.SHA256},
		{Pattern: noise.PQNK.WithPSK(2), KEM: mlkem1024, EphemeralKEM: mlkem768, Cipher: noise.AESGCM, Hash: noise.BLAKE2b},
		{Pattern: noise.PQNK, KEM: frodo, EphemeralKEM: mlkem768, Cipher: noise.AESGCM, Hash: noise.SHA256},
		{Pattern: noise.HybridXX, KEM: mlkem768, Cipher: noise.AESGCM, Hash: noise.SHA256},
		{Pattern: noise.HybridIK.WithPSK(2), KEM: mlkem1024, EphemeralKEM: mlkem768, Cipher: noise.ChaChaPoly, Hash: noise.SHA512},
		{Pattern: noise.HybridNN.WithPSK(0), KEM: mlkem768, Cipher: noise.ChaChaPoly, Hash: noise.BLAKE2s},
	} {
		t.Run(p.String(), func(t *testing.T) {
			ccfg, scfg := connConfigs(t, p)
			var a, b net.Conn
			if i%2 == 0 {
				a, b = pipe(t)
			} else {
				l, err := net.Listen("tcp", "127.0.0.1:0")
				if err != nil {
					t.Fatal(err)
				}
				defer l.Close()
				accepted := serve(func() error {
					var err error
					b, err = l.Accept()
					return err
				})
				if a, err = net.Dial("tcp", l.Addr().String()); err != nil {
					t.Fatal(err)
				}
				if err := <-accepted; err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { a.Close(); b.Close() })
			}
			client, server := noise.Client(a, ccfg), noise.Server(b, scfg)
			echoed := serve(func() error {
				defer server.Close()
				_, err := io.Copy(server, server)
				return err
			})
			msg := []byte(fmt.Sprintf("hello over %v", p))
			sent := serve(func() error {
				if _, err := client.Write(msg); err != nil {
					return err
				}
				return client.CloseWrite()
			})
			got, err := io.ReadAll(client)
			if err != nil || !bytes.Equal(got, msg) {
				t.Fatalf("echo: %q, %v", got, err)
			}
			if err := <-sent; err != nil {
				t.Fatal(err)
			}
			if err := <-echoed; err != nil {
				t.Fatal(err)
			}
			cs := client.ConnectionState()
			if cs.Protocol != p || (cs.PeerStaticKey != nil) != p.Pattern.NeedsStaticKey(false) {
				t.Errorf("connection state %+v", cs)
			}
			if _, hybrid := cs.PeerStaticKey.(*noise.HybridEncapsulationKey); cs.PeerStaticKey != nil && hybrid != p.Pattern.Hybrid() {
				t.Errorf("peer static key %T", cs.PeerStaticKey)
			}
			client.Close()
		})
	}
	t.Run("Listen and Dial", func(t *testing.T) {
		p := noise.Protocol{Pattern: noise.HybridXX.WithPSK(3), KEM: mlkem1024, EphemeralKEM: mlkem768, Cipher: noise.AESGCM, Hash: noise.BLAKE2s}
		client, server := dialPair(t, p)
		go client.Write([]byte("ping"))
		buf := make([]byte, 4)
		if _, err := io.ReadFull(server, buf); err != nil || string(buf) != "ping" {
			t.Fatalf("%q, %v", buf, err)
		}
		ss := server.ConnectionState()
		if ss.Protocol != p || !bytes.Equal(ss.HandshakeHash, client.ConnectionState().HandshakeHash) {
			t.Errorf("server state %+v", ss)
		}
		if k, ok := ss.PeerStaticKey.(*noise.HybridEncapsulationKey); !ok || k.KEM().Scheme().Name() != "ML-KEM-1024" || k.DH() == nil {
			t.Errorf("server's peer key %T", ss.PeerStaticKey)
		}
	})
	t.Run("wrong PSK", func(t *testing.T) {
		p := noise.Protocol{Pattern: noise.PQNK.WithPSK(2), KEM: mlkem768, Cipher: noise.AESGCM, Hash: noise.SHA256}
		ccfg, scfg := connConfigs(t, p)
		scfg.PSKs = [][]byte{bytes.Repeat([]byte{7}, 32)}
		a, b := pipe(t)
		serr := serve(func() error { return noise.Server(b, scfg).Handshake() })
		if err := noise.Client(a, ccfg).Handshake(); !errors.Is(err, noise.ErrAuthentication) {
			t.Errorf("client: %v, want ErrAuthentication", err)
		}
		a.Close()
		if err := <-serr; err == nil {
			t.Error("the server's handshake succeeded")
		}
	})
}

// TestZeroConfig: a Config with only keys runs pqNK (hybridNK with hybrid
// keys) with the keys' KEM, AESGCM and SHA256; a Config without keys or
// KEM is refused with a short error.
func TestZeroConfig(t *testing.T) {
	leaktest.Check(t)
	mlkem768, _ := kem.ByName("ML-KEM-768")
	for _, pat := range []noise.Pattern{noise.PQNK, noise.HybridNK} {
		p := noise.Protocol{Pattern: pat, KEM: mlkem768}
		_, sr := protocolKeys(t, p)
		want := "Noise_pqNK_MLKEM768_AESGCM_SHA256"
		if pat.Hybrid() {
			want = "Noise_hybridNK_25519+MLKEM768_AESGCM_SHA256"
		}
		a, b := pipe(t)
		server := noise.Server(b, &noise.Config{StaticKey: sr})
		serr := serve(server.Handshake)
		client := noise.Client(a, &noise.Config{PeerStaticKey: sr.EncapsulationKey()})
		if err := client.Handshake(); err != nil {
			t.Fatal(err)
		}
		if err := <-serr; err != nil {
			t.Fatal(err)
		}
		if got := client.ConnectionState().Protocol.String(); got != want {
			t.Errorf("protocol %s, want %s", got, want)
		}
		if got := server.ConnectionState().Protocol.String(); got != want {
			t.Errorf("server protocol %s, want %s", got, want)
		}
		a.Close() // not client.Close: nobody reads its end marker
		b.Close()
	}
	a, _ := pipe(t)
	if err := noise.Client(a, &noise.Config{}).Handshake(); err == nil || !strings.Contains(err.Error(), "has no KEM") {
		t.Errorf("zero Config: %v", err)
	}
}

// TestPatternNames checks every pattern's name and PSK helpers: names
// parse back, positions are ascending, and invalid positions make an
// invalid pattern.
func TestPatternNames(t *testing.T) {
	n := 0
	for _, base := range append(noise.Patterns(), noise.HybridPatterns()...) {
		if base.Base() != base&0x0f || base.PSKs() != 0 || base.Hybrid() != strings.HasPrefix(base.String(), "hybrid") {
			t.Errorf("%v: base %v, %d PSKs", base, base.Base(), base.PSKs())
		}
		for mask := range 32 {
			var pos []int
			for i := range 5 {
				if mask&(1<<i) != 0 {
					pos = append(pos, i)
				}
			}
			p := base.WithPSK(pos...)
			valid := len(pos) <= noise.MaxPSKs && (len(pos) == 0 || pos[len(pos)-1] <= base.Messages())
			if got := p.Messages() != 0; got != valid {
				t.Errorf("%v with psk %v: valid %v", base, pos, got)
			}
			if !valid {
				continue
			}
			n++
			if got := p.PSKPositions(); fmt.Sprint(got) != fmt.Sprint(pos) && len(pos) > 0 {
				t.Errorf("%v: positions %v, want %v", p, got, pos)
			}
			kems := "MLKEM768"
			if p.Hybrid() {
				kems = "25519+" + kems
			}
			name := "Noise_" + p.String() + "_" + kems + "_AESGCM_SHA256"
			q, err := noise.ParseProtocol(name)
			if err != nil || q.Pattern != p || q.String() != name {
				t.Errorf("ParseProtocol(%q) = %v, %v", name, q, err)
			}
		}
	}
	if p := noise.PQNN.WithPSK(5); p.Messages() != 0 || !strings.HasPrefix(p.String(), "Pattern(") {
		t.Errorf("psk5: %v", p)
	}
	t.Logf("%d patterns", n)
}
