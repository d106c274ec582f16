// crypto/ecdh reads the io.Reader it is given only with this setting, so
// that the client key shares of crypto/tls come from Config.Rand.

//go:debug cryptocustomrand=1

package hybrid_test

import (
	"bytes"
	"crypto"
	"crypto/ecdh"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/hkdf"
	stdmlkem "crypto/mlkem"
	"crypto/rand"
	"crypto/sha256"
	"crypto/sha512"
	"crypto/tls"
	"crypto/x509"
	"encoding/hex"
	"errors"
	"math/big"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pqkem/pqkem/hybrid"
)

// TestCrossCheckCryptoTLS runs TLS 1.3 handshakes between a crypto/tls
// client and server on each hybrid group, and checks the group against
// what crossed the wire:
//
//   - the client's private keys are found in the randomness it drew from
//     Config.Rand; made into one of our decapsulation keys, they must give
//     the client's key share byte for byte;
//   - our decapsulation of the server's key share must give the shared
//     secret from which the client derived its handshake traffic secret
//     (as Config.KeyLogWriter reports it), through the TLS 1.3 key
//     schedule computed here.
func TestCrossCheckCryptoTLS(t *testing.T) {
	cert := selfSignedCert(t)
	n := 20
	if testing.Short() {
		n = 5
	}
	for _, c := range []struct {
		k     *hybrid.KEM
		group tls.CurveID
		curve ecdh.Curve
	}{
		{hybrid.X25519MLKEM768(), tls.X25519MLKEM768, ecdh.X25519()},
		{hybrid.SecP256r1MLKEM768(), tls.SecP256r1MLKEM768, ecdh.P256()},
		{hybrid.SecP384r1MLKEM1024(), tls.SecP384r1MLKEM1024, ecdh.P384()},
	} {
		t.Run(c.k.Name(), func(t *testing.T) {
			if cp, _ := c.k.TLSGroup(); cp != uint16(c.group) {
				t.Fatalf("codepoint %#04x, crypto/tls says %#04x", cp, uint16(c.group))
			}
			for range n {
				h := handshake(t, cert, c.group)
				dk := recoverClientKey(t, c.k, c.curve, h.random, h.clientShare)
				ss, err := dk.Decapsulate(h.serverShare)
				if err != nil {
					t.Fatal(err)
				}
				if got := clientHandshakeSecret(h, ss); !bytes.Equal(got, h.clientHSSecret) {
					t.Fatal("our shared secret does not give crypto/tls's client handshake traffic secret")
				}
			}
		})
	}
}

// handshakeResult is what a test handshake left behind.
type handshakeResult struct {
	random                   []byte // everything the client read from Config.Rand
	clientHello, serverHello []byte // the handshake messages, with their headers
	clientShare, serverShare []byte // the hybrid group's key shares
	cipherSuite              uint16
	clientRandom             []byte
	clientHSSecret           []byte // from the key log
}

func handshake(t *testing.T, cert tls.Certificate, group tls.CurveID) *handshakeResult {
	t.Helper()
	rec := &recordingReader{}
	var keyLog bytes.Buffer
	clientEnd, serverEnd := net.Pipe()
	wire := &recordingConn{Conn: clientEnd}
	client := tls.Client(wire, &tls.Config{
		InsecureSkipVerify: true, MinVersion: tls.VersionTLS13,
		CurvePreferences: []tls.CurveID{group}, Rand: rec, KeyLogWriter: &keyLog,
	})
	server := tls.Server(serverEnd, &tls.Config{
		Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS13,
		CurvePreferences: []tls.CurveID{group}, SessionTicketsDisabled: true,
	})
	var wg sync.WaitGroup
	var serverErr error
	wg.Go(func() { serverErr = server.Handshake() })
	clientErr := client.Handshake()
	state := client.ConnectionState()
	wg.Wait()
	// Closing the pipe, not the TLS connections: a close_notify alert
	// would wait for a reader that never comes.
	clientEnd.Close()
	serverEnd.Close()
	if clientErr != nil || serverErr != nil {
		t.Fatalf("handshake: client %v, server %v", clientErr, serverErr)
	}
	if state.CurveID != group {
		t.Fatalf("the handshake used group %v, want %v", state.CurveID, group)
	}

	h := &handshakeResult{random: rec.bytes(), cipherSuite: state.CipherSuite}
	var err error
	if h.clientHello, err = firstHandshakeMessage(wire.written(), 1); err != nil {
		t.Fatalf("ClientHello: %v", err)
	}
	if h.serverHello, err = firstHandshakeMessage(wire.read(), 2); err != nil {
		t.Fatalf("ServerHello: %v", err)
	}
	if h.clientRandom, h.clientShare, err = helloKeyShare(h.clientHello, uint16(group), true); err != nil {
		t.Fatalf("ClientHello: %v", err)
	}
	if _, h.serverShare, err = helloKeyShare(h.serverHello, uint16(group), false); err != nil {
		t.Fatalf("ServerHello: %v", err)
	}
	for _, line := range strings.Split(keyLog.String(), "\n") {
		f := strings.Fields(line)
		if len(f) == 3 && f[0] == "CLIENT_HANDSHAKE_TRAFFIC_SECRET" && f[1] == hex.EncodeToString(h.clientRandom) {
			h.clientHSSecret, _ = hex.DecodeString(f[2])
		}
	}
	if h.clientHSSecret == nil {
		t.Fatalf("no CLIENT_HANDSHAKE_TRAFFIC_SECRET in the key log:\n%s", keyLog.String())
	}
	return h
}

// recoverClientKey finds the client's elliptic-curve private key and
// ML-KEM seed in the randomness it drew (crypto/ecdh reads the scalar as
// is for X25519, and flips bits 0x42 of its second byte for the NIST
// curves), and returns our decapsulation key made of them, which must have
// the client's key share as its encapsulation key.
func recoverClientKey(t *testing.T, k *hybrid.KEM, curve ecdh.Curve, random, share []byte) *hybrid.DecapsulationKey {
	t.Helper()
	scalarLen, pointLen := 32, 32
	switch curve {
	case ecdh.P256():
		pointLen = 65
	case ecdh.P384():
		scalarLen, pointLen = 48, 97
	}
	ecFirst := curve != ecdh.X25519()
	pqShare, ecShare := share[:len(share)-pointLen], share[len(share)-pointLen:]
	if ecFirst {
		ecShare, pqShare = share[:pointLen], share[pointLen:]
	}

	var scalar, seed []byte
	for off := 0; off+scalarLen <= len(random) && scalar == nil; off++ {
		cand := bytes.Clone(random[off : off+scalarLen])
		if curve != ecdh.X25519() {
			cand[1] ^= 0x42
		}
		if sk, err := curve.NewPrivateKey(cand); err == nil && bytes.Equal(sk.PublicKey().Bytes(), ecShare) {
			scalar = cand
		}
	}
	for off := 0; off+64 <= len(random) && seed == nil; off++ {
		var ek []byte
		if len(pqShare) == stdmlkem.EncapsulationKeySize1024 {
			dk, _ := stdmlkem.NewDecapsulationKey1024(random[off : off+64])
			ek = dk.EncapsulationKey().Bytes()
		} else {
			dk, _ := stdmlkem.NewDecapsulationKey768(random[off : off+64])
			ek = dk.EncapsulationKey().Bytes()
		}
		if bytes.Equal(ek, pqShare) {
			seed = random[off : off+64]
		}
	}
	if scalar == nil || seed == nil {
		t.Fatalf("the client's private keys are not in the %d bytes it drew from Config.Rand", len(random))
	}
	key := append(bytes.Clone(seed), scalar...)
	if ecFirst {
		key = append(bytes.Clone(scalar), seed...)
	}
	dk := mustDK(t, k, key)
	if !bytes.Equal(dk.EncapsulationKey().Bytes(), share) {
		t.Fatal("our key share differs from crypto/tls's for the same private keys")
	}
	return dk
}

// clientHandshakeSecret is RFC 8446 section 7.1's
// client_handshake_traffic_secret, from the (EC)DHE shared secret ss, with
// no PSK.
func clientHandshakeSecret(h *handshakeResult, ss []byte) []byte {
	newHash := sha256.New
	if h.cipherSuite == tls.TLS_AES_256_GCM_SHA384 {
		newHash = sha512.New384
	}
	n := newHash().Size()
	expandLabel := func(secret []byte, label string, context []byte) []byte {
		full := "tls13 " + label
		info := append([]byte{byte(n >> 8), byte(n), byte(len(full))}, full...)
		info = append(append(info, byte(len(context))), context...)
		out, err := hkdf.Expand(newHash, secret, string(info), n)
		if err != nil {
			panic(err)
		}
		return out
	}
	sum := func(msgs ...[]byte) []byte {
		hh := newHash()
		for _, m := range msgs {
			hh.Write(m)
		}
		return hh.Sum(nil)
	}
	extract := func(ikm, salt []byte) []byte {
		out, err := hkdf.Extract(newHash, ikm, salt)
		if err != nil {
			panic(err)
		}
		return out
	}
	early := extract(make([]byte, n), nil)
	handshakeSecret := extract(ss, expandLabel(early, "derived", sum()))
	return expandLabel(handshakeSecret, "c hs traffic", sum(h.clientHello, h.serverHello))
}

// --- wire parsing ---

// firstHandshakeMessage returns the first handshake message in the TLS
// records of stream, which must be of type typ.
func firstHandshakeMessage(stream []byte, typ byte) ([]byte, error) {
	if len(stream) < 5 || stream[0] != 22 {
		return nil, errors.New("no handshake record first")
	}
	body := stream[5:]
	if n := int(stream[3])<<8 | int(stream[4]); len(body) >= n {
		body = body[:n]
	}
	if len(body) < 4 || body[0] != typ {
		return nil, errors.New("not the expected handshake message")
	}
	n := int(body[1])<<16 | int(body[2])<<8 | int(body[3])
	if len(body) < 4+n {
		return nil, errors.New("handshake message split across records")
	}
	return body[:4+n], nil
}

// reader is a minimal TLS-syntax reader; it records the first error.
type reader struct {
	b   []byte
	err error
}

func (r *reader) bytes(n int) []byte {
	if r.err != nil || len(r.b) < n {
		r.err = errors.New("truncated")
		return nil
	}
	out := r.b[:n]
	r.b = r.b[n:]
	return out
}

func (r *reader) uint(n int) int {
	v := 0
	for _, c := range r.bytes(n) {
		v = v<<8 | int(c)
	}
	return v
}

// vector reads a vector with an n-byte length.
func (r *reader) vector(n int) []byte { return r.bytes(r.uint(n)) }

// helloKeyShare returns the random of a ClientHello or ServerHello and
// the key share for group in its key_share extension.
func helloKeyShare(msg []byte, group uint16, isClient bool) (random, share []byte, err error) {
	r := &reader{b: msg[4:]}
	r.bytes(2) // legacy_version
	random = r.bytes(32)
	r.vector(1) // legacy_session_id
	if isClient {
		r.vector(2) // cipher_suites
		r.vector(1) // legacy_compression_methods
	} else {
		r.bytes(3) // cipher_suite, legacy_compression_method
	}
	exts := &reader{b: r.vector(2)}
	for r.err == nil && exts.err == nil && len(exts.b) > 0 {
		typ, data := exts.uint(2), exts.vector(2)
		if typ != 51 { // key_share
			continue
		}
		ks := &reader{b: data}
		if isClient {
			ks = &reader{b: ks.vector(2)}
		}
		for ks.err == nil && len(ks.b) > 0 {
			g, kx := ks.uint(2), ks.vector(2)
			if uint16(g) == group {
				return random, kx, nil
			}
		}
	}
	return nil, nil, errors.New("no key share for the group")
}

// recordingReader is a random source that remembers what it gave out.
type recordingReader struct {
	mu  sync.Mutex
	buf []byte
}

func (r *recordingReader) Read(p []byte) (int, error) {
	rand.Read(p)
	r.mu.Lock()
	r.buf = append(r.buf, p...)
	r.mu.Unlock()
	return len(p), nil
}

func (r *recordingReader) bytes() []byte {
	r.mu.Lock()
	defer r.mu.Unlock()
	return bytes.Clone(r.buf)
}

// recordingConn remembers the bytes written and read.
type recordingConn struct {
	net.Conn
	mu      sync.Mutex
	out, in []byte
}

func (c *recordingConn) Write(p []byte) (int, error) {
	c.mu.Lock()
	c.out = append(c.out, p...)
	c.mu.Unlock()
	return c.Conn.Write(p)
}

func (c *recordingConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	c.mu.Lock()
	c.in = append(c.in, p[:n]...)
	c.mu.Unlock()
	return n, err
}

func (c *recordingConn) written() []byte { c.mu.Lock(); defer c.mu.Unlock(); return bytes.Clone(c.out) }
func (c *recordingConn) read() []byte    { c.mu.Lock(); defer c.mu.Unlock(); return bytes.Clone(c.in) }

// selfSignedCert makes a throwaway ECDSA certificate for the server.
func selfSignedCert(t *testing.T) tls.Certificate {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		DNSNames: []string{"pqkem.test"}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, key.Public(), key)
	if err != nil {
		t.Fatal(err)
	}
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: crypto.Signer(key)}
}
