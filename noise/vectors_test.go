package noise_test

import (
	"bytes"
	"crypto/ecdh"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/pqkem/pqkem/internal/vectors"
	"github.com/pqkem/pqkem/kem"
	"github.com/pqkem/pqkem/noise"
	"github.com/pqkem/pqkem/noise/noisetest"
)

// vectorFiles are the known-answer tests of testdata/pqnoise (see its
// README): made with katzenpost/nyquist, and Clatter's two PQ vectors in
// the same JSON shape.
var vectorFiles = []string{
	"pqnoise/pqNN_MLKEM768_ChaChaPoly_SHA256.json",
	"pqnoise/pqNN_MLKEM1024_AESGCM_BLAKE2b.json",
	"pqnoise/pqNK_MLKEM768_ChaChaPoly_BLAKE2b.json",
	"pqnoise/pqNK_MLKEM1024_AESGCM_SHA256.json",
	"pqnoise/pqIK_MLKEM768_ChaChaPoly_SHA256.json",
	"pqnoise/pqIK_MLKEM1024_AESGCM_BLAKE2b.json",
	"pqnoise/pqXX_MLKEM768_ChaChaPoly_BLAKE2b.json",
	"pqnoise/pqXX_MLKEM768_AESGCM_SHA256.json",
	"pqnoise/pqXX_MLKEM1024_ChaChaPoly_SHA256.json",
	"pqnoise/pqKK_MLKEM768_AESGCM_BLAKE2b.json",
	"pqnoise/pqNX_MLKEM768_ChaChaPoly_SHA256.json",
	"pqnoise/clatter/pqXX_MLKEM768_ChaChaPoly_SHA256.json",
	"pqnoise/clatter/pqIK_MLKEM768_AESGCM_SHA512.json",
	// Clatter 2.2's extensions (spec section 12): PSK patterns, split
	// KEMs, hybrid patterns; made with go-clatter, but for the two hybrid
	// rewrites of Rust Clatter's vectors.
	"pqnoise/clatter/pqNNpsk0_MLKEM1024_AESGCM_SHA256.json",
	"pqnoise/clatter/pqNNpsk2_MLKEM768_ChaChaPoly_SHA256.json",
	"pqnoise/clatter/pqNKpsk2_MLKEM1024_AESGCM_BLAKE2b.json",
	"pqnoise/clatter/pqNXpsk2_MLKEM768_ChaChaPoly_SHA512.json",
	"pqnoise/clatter/pqKKpsk2_MLKEM768_ChaChaPoly_BLAKE2b.json",
	"pqnoise/clatter/pqXKpsk3_MLKEM1024_AESGCM_SHA256.json",
	"pqnoise/clatter/pqXXpsk3_MLKEM768_AESGCM_SHA512.json",
	"pqnoise/clatter/pqINpsk2_MLKEM768_AESGCM_BLAKE2s.json",
	"pqnoise/clatter/pqIKpsk1_MLKEM768_ChaChaPoly_BLAKE2s.json",
	"pqnoise/clatter/pqIKpsk2_MLKEM1024_ChaChaPoly_SHA256.json",
	"pqnoise/clatter/pqNK_MLKEM768+MLKEM1024_ChaChaPoly_SHA256.json",
	"pqnoise/clatter/pqNK_MLKEM1024+MLKEM768_AESGCM_BLAKE2b.json",
	"pqnoise/clatter/pqXX_MLKEM768+MLKEM1024_AESGCM_SHA256.json",
	"pqnoise/clatter/pqXX_MLKEM1024+MLKEM768_ChaChaPoly_BLAKE2s.json",
	"pqnoise/clatter/pqIK_MLKEM768+MLKEM1024_ChaChaPoly_SHA512.json",
	"pqnoise/clatter/pqIK_MLKEM1024+MLKEM768_AESGCM_SHA256.json",
	"pqnoise/clatter/pqKK_MLKEM768+MLKEM1024_AESGCM_BLAKE2b.json",
	"pqnoise/clatter/pqKK_MLKEM1024+MLKEM768_ChaChaPoly_SHA256.json",
	"pqnoise/clatter/pqXXpsk3_MLKEM768+MLKEM1024_ChaChaPoly_BLAKE2b.json",
	"pqnoise/clatter/hybridNN_25519+MLKEM768_ChaChaPoly_SHA256.json",
	"pqnoise/clatter/hybridNK_25519+MLKEM1024_AESGCM_SHA256.json",
	"pqnoise/clatter/hybridKN_25519+MLKEM768_AESGCM_SHA256.json",
	"pqnoise/clatter/hybridKK_25519+MLKEM1024_ChaChaPoly_BLAKE2s.json",
	"pqnoise/clatter/hybridXX_25519+MLKEM768_AESGCM_BLAKE2b.json",
	"pqnoise/clatter/hybridIK_25519+MLKEM768_ChaChaPoly_SHA512.json",
	"pqnoise/clatter/hybridIK_25519+MLKEM768+MLKEM1024_AESGCM_SHA256.json",
	"pqnoise/clatter/hybridNNpsk0_25519+MLKEM1024_ChaChaPoly_SHA512.json",
	"pqnoise/clatter/hybridXXpsk3_25519+MLKEM768_ChaChaPoly_SHA256.json",
	"pqnoise/clatter/hybridXX_25519+MLKEM768_ChaChaPoly_SHA256.json",
	"pqnoise/clatter/hybridIK_25519+MLKEM768_AESGCM_SHA512.json",
}

type draw struct {
	Message     int              `json:"message"`
	Token       string           `json:"token"`
	Use         string           `json:"use"`
	Length      int              `json:"length"`
	Bytes       vectors.HexBytes `json:"bytes"`
	Description string           `json:"description"`
}

type vector struct {
	Format          string `json:"format"`
	Origin          string `json:"origin"`
	CustomPattern   bool   `json:"custom_pattern"`
	DH              string `json:"dh"`
	EKEM            string `json:"ekem"`
	EKEMFIPS203Name string `json:"ekem_fips203_name"`
	SKEM            string `json:"skem"`
	SKEMFIPS203Name string `json:"skem_fips203_name"`
	PSKs            []struct {
		Position int              `json:"position"`
		Bytes    vectors.HexBytes `json:"bytes"`
	} `json:"psks"`
	InitStaticDHPrivate vectors.HexBytes `json:"init_static_dh_private"`
	InitStaticDHPublic  vectors.HexBytes `json:"init_static_dh_public"`
	RespStaticDHPrivate vectors.HexBytes `json:"resp_static_dh_private"`
	RespStaticDHPublic  vectors.HexBytes `json:"resp_static_dh_public"`
	InitRemoteStaticDH  vectors.HexBytes `json:"init_remote_static_dh"`
	RespRemoteStaticDH  vectors.HexBytes `json:"resp_remote_static_dh"`
	ProtocolName        string           `json:"protocol_name"`
	Pattern             string           `json:"pattern"`
	PatternText         []string         `json:"pattern_text"`
	KEM                 string           `json:"kem"`
	KEMFIPS203Name      string           `json:"kem_fips203_name"`
	Cipher              string           `json:"cipher"`
	Hash                string           `json:"hash"`
	InitPrologue        vectors.HexBytes `json:"init_prologue"`
	RespPrologue        vectors.HexBytes `json:"resp_prologue"`
	InitStaticSeed      vectors.HexBytes `json:"init_static_seed"`
	InitStaticPublic    vectors.HexBytes `json:"init_static_public"`
	RespStaticSeed      vectors.HexBytes `json:"resp_static_seed"`
	RespStaticPublic    vectors.HexBytes `json:"resp_static_public"`
	InitRemoteStatic    vectors.HexBytes `json:"init_remote_static"`
	RespRemoteStatic    vectors.HexBytes `json:"resp_remote_static"`
	InitRandom          []draw           `json:"init_random"`
	RespRandom          []draw           `json:"resp_random"`
	Messages            []struct {
		Sender             string           `json:"sender"`
		Tokens             string           `json:"tokens"`
		Payload            vectors.HexBytes `json:"payload"`
		Ciphertext         vectors.HexBytes `json:"ciphertext"`
		HandshakeHashAfter vectors.HexBytes `json:"handshake_hash_after"`
	} `json:"messages"`
	HandshakeHash     vectors.HexBytes `json:"handshake_hash"`
	TransportMessages []struct {
		Sender     string           `json:"sender"`
		Nonce      uint64           `json:"nonce"`
		Payload    vectors.HexBytes `json:"payload"`
		Ciphertext vectors.HexBytes `json:"ciphertext"`
	} `json:"transport_messages"`
}

// draws serves a party's listed RNG draws in order and fails any other
// read: a read of another length, or past the end.
type draws struct {
	t     *testing.T
	party string
	list  []draw
}

func (d *draws) Read(p []byte) (int, error) {
	if len(d.list) == 0 {
		d.t.Errorf("%s read %d random bytes after its last listed draw", d.party, len(p))
		return 0, errors.New("no draw left")
	}
	next := d.list[0]
	if len(p) != len(next.Bytes) {
		d.t.Errorf("%s read %d random bytes, want the %d of message %d's %s (%s)", d.party, len(p), len(next.Bytes), next.Message, next.Token, next.Use)
		return 0, errors.New("wrong draw length")
	}
	d.list = d.list[1:]
	return copy(p, next.Bytes), nil
}

func TestVectors(t *testing.T) {
	vectors.Require(t, vectorFiles...)
	for _, f := range vectorFiles {
		t.Run(strings.TrimPrefix(f, "pqnoise/"), func(t *testing.T) {
			var v vector
			vectors.ReadJSON(t, f, &v)
			runVector(t, &v)
		})
	}
}

// party is one side of a replayed vector.
type party struct {
	name string
	hs   *noise.HandshakeState
	rng  *draws
}

func runVector(t *testing.T, v *vector) {
	if v.Format != "pqnoise-vector-v1" {
		t.Fatalf("format %q", v.Format)
	}
	p, err := noise.ParseProtocol(v.ProtocolName)
	if err != nil {
		t.Fatal(err)
	}
	skemName := v.KEMFIPS203Name
	if v.EKEM != "" {
		skemName = v.SKEMFIPS203Name
		if p.EphemeralKEM == nil || p.EphemeralKEM.Name() != v.EKEMFIPS203Name {
			t.Fatalf("ParseProtocol(%q): ephemeral KEM %v, want %s", v.ProtocolName, p.EphemeralKEM, v.EKEMFIPS203Name)
		}
	}
	if p.String() != v.ProtocolName || p.Pattern.String() != v.Pattern || p.Cipher.String() != v.Cipher ||
		p.Hash.String() != v.Hash || p.KEM.Name() != skemName || p.Pattern.Hybrid() != (v.DH == "25519") {
		t.Fatalf("ParseProtocol(%q) = %v (KEM %s)", v.ProtocolName, p, p.KEM.Name())
	}
	static := func(seed, public, dhPriv, dhPub []byte) kem.DecapsulationKey {
		if seed == nil {
			return nil
		}
		dk, err := p.KEM.NewDecapsulationKey(seed)
		if err != nil {
			t.Fatal(err)
		}
		if got := dk.EncapsulationKey().Bytes(); !bytes.Equal(got, public) {
			t.Fatalf("static public key from the seed = %x..., want %x...", got[:16], public[:16])
		}
		if !p.Pattern.Hybrid() {
			return dk
		}
		dh, err := ecdh.X25519().NewPrivateKey(dhPriv)
		if err != nil {
			t.Fatal(err)
		}
		if got := dh.PublicKey().Bytes(); !bytes.Equal(got, dhPub) {
			t.Fatalf("static X25519 public key = %x, want %x", got, dhPub)
		}
		h, err := noise.NewHybridDecapsulationKey(dh, dk)
		if err != nil {
			t.Fatal(err)
		}
		return h
	}
	remote := func(b, dhPub []byte) kem.EncapsulationKey {
		if b == nil {
			return nil
		}
		if p.Pattern.Hybrid() {
			ek, err := noise.HybridScheme(p.KEM).NewEncapsulationKey(append(bytes.Clone(dhPub), b...))
			if err != nil {
				t.Fatal(err)
			}
			return ek
		}
		ek, err := p.KEM.NewEncapsulationKey(b)
		if err != nil {
			t.Fatal(err)
		}
		return ek
	}
	var psks [][]byte
	for i, k := range v.PSKs {
		if pos := p.Pattern.PSKPositions(); i >= len(pos) || pos[i] != k.Position {
			t.Fatalf("PSK %d at position %d, pattern has %v", i, k.Position, pos)
		}
		psks = append(psks, k.Bytes)
	}
	newParty := func(name string, initiator bool, prologue []byte, static kem.DecapsulationKey, rs kem.EncapsulationKey, rng []draw) *party {
		d := &draws{t, name, rng}
		hs, err := noisetest.NewHandshakeState(&noise.HandshakeConfig{
			Protocol:        p,
			Initiator:       initiator,
			Prologue:        prologue,
			StaticKey:       static,
			RemoteStaticKey: rs,
			PSKs:            psks,
		}, d)
		if err != nil {
			t.Fatal(err)
		}
		return &party{name, hs, d}
	}
	init := newParty("initiator", true, v.InitPrologue, static(v.InitStaticSeed, v.InitStaticPublic, v.InitStaticDHPrivate, v.InitStaticDHPublic),
		remote(v.InitRemoteStatic, v.InitRemoteStaticDH), v.InitRandom)
	resp := newParty("responder", false, v.RespPrologue, static(v.RespStaticSeed, v.RespStaticPublic, v.RespStaticDHPrivate, v.RespStaticDHPublic),
		remote(v.RespRemoteStatic, v.RespRemoteStaticDH), v.RespRandom)

	if len(v.Messages) != p.Pattern.Messages() {
		t.Fatalf("%d messages, want %d", len(v.Messages), p.Pattern.Messages())
	}
	for i, m := range v.Messages {
		from, to := init, resp
		if i%2 == 1 {
			from, to = resp, init
		}
		if m.Sender != from.name {
			t.Fatalf("message %d: sender %q, want %q", i, m.Sender, from.name)
		}
		msg, err := from.hs.WriteMessage(nil, m.Payload)
		if err != nil {
			t.Fatalf("message %d: %v", i, err)
		}
		if !bytes.Equal(msg, m.Ciphertext) {
			t.Fatalf("message %d: wrote %d bytes %x..., want %d bytes %x...", i, len(msg), head(msg), len(m.Ciphertext), head(m.Ciphertext))
		}
		if want := p.MessageSizes()[i] + len(m.Payload); len(msg) != want {
			t.Errorf("message %d: %d bytes, MessageSizes says %d plus the payload", i, len(msg), want)
		}
		payload, err := to.hs.ReadMessage(nil, m.Ciphertext)
		if err != nil {
			t.Fatalf("message %d: %v", i, err)
		}
		if !bytes.Equal(payload, m.Payload) {
			t.Fatalf("message %d: read payload %q, want %q", i, payload, m.Payload)
		}
		for _, q := range []*party{init, resp} {
			if h := q.hs.HandshakeHash(); !bytes.Equal(h, m.HandshakeHashAfter) {
				t.Fatalf("message %d: %s's h = %x, want %x", i, q.name, h, m.HandshakeHashAfter)
			}
		}
	}
	var send, recv [2][]*noise.CipherState
	for j, q := range []*party{init, resp} {
		if !q.hs.Complete() {
			t.Fatalf("%s: handshake not complete", q.name)
		}
		if len(q.rng.list) != 0 {
			t.Errorf("%s left %d random draws unread", q.name, len(q.rng.list))
		}
		if h := q.hs.HandshakeHash(); !bytes.Equal(h, v.HandshakeHash) {
			t.Errorf("%s's handshake hash = %x, want %x", q.name, h, v.HandshakeHash)
		}
		c1, c2, err := q.hs.Split()
		if err != nil {
			t.Fatal(err)
		}
		send[j], recv[j] = []*noise.CipherState{c1}, []*noise.CipherState{c2}
	}
	// Peer static keys as learnt: each side ends up with the other's (if
	// the pattern gives it one).
	if v.RespStaticPublic != nil && p.Pattern.NeedsStaticKey(false) && !bytes.Equal(init.hs.PeerStaticKey().Bytes(), append(v.RespStaticDHPublic, v.RespStaticPublic...)) {
		t.Error("the initiator's PeerStaticKey is not the responder's static key")
	}
	if v.InitStaticPublic != nil && p.Pattern.NeedsStaticKey(true) && !bytes.Equal(resp.hs.PeerStaticKey().Bytes(), append(v.InitStaticDHPublic, v.InitStaticPublic...)) {
		t.Error("the responder's PeerStaticKey is not the initiator's static key")
	}
	if len(v.TransportMessages) == 0 {
		t.Fatal("no transport messages")
	}
	for k, m := range v.TransportMessages {
		j := 0
		if m.Sender == "responder" {
			j = 1
		}
		s, r := send[j][0], recv[1-j][0]
		if s.Nonce() != m.Nonce {
			t.Errorf("transport message %d: nonce %d, want %d", k, s.Nonce(), m.Nonce)
		}
		ct, err := s.Encrypt(nil, nil, m.Payload)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(ct, m.Ciphertext) {
			t.Fatalf("transport message %d: %x, want %x", k, ct, m.Ciphertext)
		}
		pt, err := r.Decrypt(nil, nil, ct)
		if err != nil {
			t.Fatalf("transport message %d: %v", k, err)
		}
		if !bytes.Equal(pt, m.Payload) {
			t.Fatalf("transport message %d: decrypted %q, want %q", k, pt, m.Payload)
		}
	}
}

func head(b []byte) []byte { return b[:min(len(b), 16)] }

// TestClatterText runs Clatter's four Rust-made vectors as published
// (text, one counter RNG shared by both parties, static keys drawn
// first), not their JSON rewrites: two PQ and two hybrid.
func TestClatterText(t *testing.T) {
	files := []string{"pqnoise/clatter/pq_xx_mlkem768_chacha_sha256.txt", "pqnoise/clatter/pq_ik_mlkem768_aes_sha512.txt",
		"pqnoise/clatter/hybrid_xx_x25519_mlkem768_chacha_sha256.txt", "pqnoise/clatter/hybrid_ik_x25519_mlkem768_aes_sha512.txt"}
	vectors.Require(t, files...)
	payloads := []string{"Scream without a sound", "Flying off the handle", "Eugene gene the dance machine"}
	for _, f := range files {
		t.Run(strings.TrimPrefix(f, "pqnoise/clatter/"), func(t *testing.T) {
			fields := map[string]string{}
			var msgs, hashes, transport []string
			for _, line := range vectors.Lines(t, f) {
				if strings.HasPrefix(line, "#") || line == "---" {
					continue
				}
				k, val, ok := strings.Cut(line, ": ")
				if !ok {
					t.Fatalf("line %q", line)
				}
				switch {
				case strings.HasPrefix(k, "msg["):
					msgs = append(msgs, val)
				case strings.HasPrefix(k, "h["):
					hashes = append(hashes, val)
				case strings.HasPrefix(k, "transport["):
					transport = append(transport, val)
				default:
					fields[k] = val
				}
			}
			kems := "MLKEM768"
			if fields["dh"] != "" {
				kems = fields["dh"] + "+" + kems
			}
			name := fmt.Sprintf("Noise_%s_%s_%s_%s", fields["pattern"], kems, fields["cipher"], fields["hash"])
			p, err := noise.ParseProtocol(name)
			if err != nil {
				t.Fatal(err)
			}
			rng := &counterRNG{0xdeadbeef}
			seed := func() []byte {
				b := make([]byte, p.KEM.DecapsulationKeySize())
				rng.Read(b)
				return b
			}
			// Hybrid: both X25519 static keys are drawn first, then
			// both KEM seeds.
			var dh [2][]byte
			if p.Pattern.Hybrid() {
				for i := range dh {
					dh[i] = make([]byte, 32)
					rng.Read(dh[i])
				}
			}
			var si, sr kem.DecapsulationKey
			for i, k := range []*kem.DecapsulationKey{&si, &sr} {
				var err error
				if *k, err = p.KEM.NewDecapsulationKey(seed()); err != nil {
					t.Fatal(err)
				}
				if dh[i] == nil {
					continue
				}
				x, err := ecdh.X25519().NewPrivateKey(dh[i])
				if err != nil {
					t.Fatal(err)
				}
				if *k, err = noise.NewHybridDecapsulationKey(x, *k); err != nil {
					t.Fatal(err)
				}
			}
			prologue := vectors.Hex(t, fields["prologue_hex"])
			icfg := &noise.HandshakeConfig{Protocol: p, Initiator: true, Prologue: prologue, StaticKey: si}
			rcfg := &noise.HandshakeConfig{Protocol: p, Prologue: prologue, StaticKey: sr}
			if p.Pattern.NeedsRemoteStaticKey(true) {
				icfg.RemoteStaticKey = sr.EncapsulationKey()
			}
			hi, err := noisetest.NewHandshakeState(icfg, rng)
			if err != nil {
				t.Fatal(err)
			}
			hr, err := noisetest.NewHandshakeState(rcfg, rng)
			if err != nil {
				t.Fatal(err)
			}
			if len(msgs) != p.Pattern.Messages() || len(hashes) != len(msgs) {
				t.Fatalf("%d messages and %d hashes, want %d", len(msgs), len(hashes), p.Pattern.Messages())
			}
			for i := range msgs {
				from, to := hi, hr
				if i%2 == 1 {
					from, to = hr, hi
				}
				msg, err := from.WriteMessage(nil, nil)
				if err != nil {
					t.Fatal(err)
				}
				if got := hex.EncodeToString(msg); got != msgs[i] {
					t.Fatalf("message %d differs", i)
				}
				if _, err := to.ReadMessage(nil, msg); err != nil {
					t.Fatal(err)
				}
				if got := hex.EncodeToString(to.HandshakeHash()); got != hashes[i] {
					t.Fatalf("h after message %d = %s, want %s", i, got, hashes[i])
				}
			}
			if got := hex.EncodeToString(hi.HandshakeHash()); got != fields["handshake_hash"] {
				t.Fatalf("handshake hash %s, want %s", got, fields["handshake_hash"])
			}
			is, ir, err := hi.Split()
			if err != nil {
				t.Fatal(err)
			}
			rs, rr, err := hr.Split()
			if err != nil {
				t.Fatal(err)
			}
			if len(transport) != len(payloads) {
				t.Fatalf("%d transport messages, want %d", len(transport), len(payloads))
			}
			for k, want := range transport {
				s, r := is, rr
				if k%2 == 1 {
					s, r = rs, ir
				}
				ct, err := s.Encrypt(nil, nil, []byte(payloads[k]))
				if err != nil {
					t.Fatal(err)
				}
				if got := hex.EncodeToString(ct); got != want {
					t.Fatalf("transport message %d = %s, want %s", k, got, want)
				}
				if pt, err := r.Decrypt(nil, nil, ct); err != nil || string(pt) != payloads[k] {
					t.Fatalf("transport message %d: decrypted %q, %v", k, pt, err)
				}
			}
		})
	}
}

// counterRNG is Clatter's DummyRng: each byte is the counter modulo 256,
// then the counter increments.
type counterRNG struct{ n uint32 }

func (r *counterRNG) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = byte(r.n)
		r.n++
	}
	return len(p), nil
}
