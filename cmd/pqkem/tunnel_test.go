package main

import (
	"bytes"
	"crypto/rand"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/pqkem/pqkem/internal/leaktest"
	"github.com/pqkem/pqkem/kem"
	"github.com/pqkem/pqkem/keyfile"
	"github.com/pqkem/pqkem/noise"
)

// The tunnel tests run pqkem serve and pqkem connect in the test process
// (TestTunnelSignal, in tunnel_unix_test.go, runs serve in a process of
// its own), on loopback, with an echo service behind the server.

func init() {
	// Every failure in full: the tests look for them. TestTunnelLogSummary
	// sets the interval back.
	failureLogInterval = 0
}

// syncBuffer is a bytes.Buffer that a running command writes while the
// test reads it.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// waitLog waits until the log says want, and fails the test if it does
// not within a few seconds.
func waitLog(t *testing.T, log *syncBuffer, want string) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !strings.Contains(log.String(), want) {
		if time.Now().After(deadline) {
			t.Fatalf("the log does not say %q:\n%s", want, log.String())
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// tunnelKeys writes a private key NAME.pem and its public key NAME.pub of
// scheme alg in dir for each name, and returns dir.
func tunnelKeys(t *testing.T, dir, alg string, names ...string) {
	t.Helper()
	for _, n := range names {
		priv, pub := filepath.Join(dir, n+".pem"), filepath.Join(dir, n+".pub")
		for _, args := range [][]string{{"keygen", "-alg", alg, "-out", priv}, {"pub", "-in", priv, "-out", pub}} {
			if code, _, stderr := pqkem(t, args...); code != exitOK {
				t.Fatalf("pqkem %v: %s", args, stderr)
			}
		}
	}
}

// echoService listens on loopback and sends back what each connection
// sends, half-closing when the client has; it returns its address.
func echoService(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	echoOn(t, ln)
	return ln.Addr().String()
}

// echoOn serves ln as echoService does, until the test ends.
func echoOn(t *testing.T, ln net.Listener) {
	var wg sync.WaitGroup
	wg.Go(func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			wg.Go(func() {
				defer c.Close()
				io.Copy(c, c)
				c.(interface{ CloseWrite() error }).CloseWrite()
			})
		}
	})
	t.Cleanup(func() {
		ln.Close()
		wg.Wait()
	})
}

// runningTunnel is a pqkem serve or pqkem connect -listen running in the test.
type runningTunnel struct {
	addr string
	log  *syncBuffer
	done <-chan int // the exit status
}

// startTunnel runs pqkem with args, which listen on 127.0.0.1:0, and
// returns once it listens. The test's end stops it, if it still runs.
func startTunnel(t *testing.T, args ...string) *runningTunnel {
	t.Helper()
	tn := &runningTunnel{log: new(syncBuffer)}
	tn.addr, tn.done = startListening(t, args, new(syncBuffer), tn.log)
	t.Cleanup(func() { tn.stop(t) })
	return tn
}

// stop stops every tunnel as SIGTERM does, and checks that tn exits with
// status 0.
func (tn *runningTunnel) stop(t *testing.T) {
	t.Helper()
	if tn.done == nil {
		return
	}
	deliverStop(syscall.SIGTERM)
	select {
	case code := <-tn.done:
		if code != exitOK {
			t.Errorf("stopped: exit status %d, want 0; log:\n%s", code, tn.log)
		}
		if !strings.HasSuffix(tn.log.String(), "stopped\n") {
			t.Errorf("the log does not end with \"stopped\":\n%s", tn.log)
		}
	case <-time.After(10 * time.Second):
		t.Errorf("SIGTERM does not stop it; log:\n%s", tn.log)
	}
	tn.done = nil
}

// echoThrough sends data through the TCP address addr, half-closes, and
// checks that the same data comes back. Tests may call it from any
// goroutine.
func echoThrough(addr string, data []byte) error {
	c, err := net.Dial("tcp", addr)
	if err != nil {
		return err
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(20 * time.Second))
	werr := make(chan error, 1)
	go func() {
		_, err := c.Write(data)
		if err == nil {
			err = c.(*net.TCPConn).CloseWrite()
		}
		werr <- err
	}()
	got, err := io.ReadAll(c)
	if err != nil {
		return fmt.Errorf("reading the echo: %w", err)
	}
	if err := <-werr; err != nil {
		return fmt.Errorf("sending: %w", err)
	}
	if !bytes.Equal(got, data) {
		return fmt.Errorf("%d bytes came back for %d sent, not the same (SHA-256 %x, want %x)", len(got), len(data), sha256.Sum256(got), sha256.Sum256(data))
	}
	return nil
}

func randomBytes(n int) []byte {
	b := make([]byte, n)
	rand.Read(b)
	return b
}

// TestTunnel runs pqkem serve in front of an echo service, and pqkem
// connect -listen in front of it: small and large transfers (16 MiB),
// several at once, with half-closes, come back unchanged; SIGTERM stops
// both, and no goroutine is left.
func TestTunnel(t *testing.T) {
	leaktest.Check(t)
	dir := t.TempDir()
	tunnelKeys(t, dir, "ML-KEM-768", "server")
	echo := echoService(t)
	srv := startTunnel(t, "serve", "-key", filepath.Join(dir, "server.pem"), "-listen", "127.0.0.1:0", "-to", echo)
	cli := startTunnel(t, "connect", "-pub", filepath.Join(dir, "server.pub"), "-to", srv.addr, "-listen", "127.0.0.1:0")
	if !strings.Contains(srv.log.String(), "Noise_pqNK_MLKEM768_AESGCM_SHA256") || !strings.Contains(cli.log.String(), "Noise_pqNK_MLKEM768_AESGCM_SHA256") {
		t.Errorf("the logs do not name the protocol:\n%s%s", srv.log, cli.log)
	}
	for _, data := range [][]byte{[]byte("ping\n"), nil /* the half-close alone */, randomBytes(16 << 20)} {
		if err := echoThrough(cli.addr, data); err != nil {
			t.Fatal(err)
		}
	}
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			if err := echoThrough(cli.addr, randomBytes(100_000*i+1)); err != nil {
				t.Errorf("connection %d of 8 at once: %v", i, err)
			}
		})
	}
	wg.Wait()
	waitLog(t, srv.log, "16777216 bytes from the client, 16777216 bytes from the service")
	cli.stop(t)
	srv.stop(t)
	for _, l := range []string{srv.log.String(), cli.log.String()} {
		if n := strings.Count(l, ": connected to "); n != 11 {
			t.Errorf("%d connections logged, want 11:\n%s", n, l)
		}
	}
	secret, _ := os.ReadFile(filepath.Join(dir, "server.pem"))
	noSecretInLog(t, srv.log.String(), secret)
}

// noSecretInLog checks that no line of a private key file's PEM body is
// in the log.
func noSecretInLog(t *testing.T, log string, pemFile []byte) {
	t.Helper()
	for line := range strings.SplitSeq(string(pemFile), "\n") {
		if len(line) > 16 && !strings.HasPrefix(line, "-----") && strings.Contains(log, line) {
			t.Errorf("the log has a line of the private key: %q", line)
		}
	}
}

// TestTunnelStdio runs pqkem connect on standard input and output, over
// the classical DHKEM (whose keys are in pqkem's PEM format) with
// ChaChaPoly and BLAKE2s.
func TestTunnelStdio(t *testing.T) {
	leaktest.Check(t)
	dir := t.TempDir()
	tunnelKeys(t, dir, "DHKEM-X25519-HKDF-SHA256", "server")
	srv := startTunnel(t, "serve", "-key", filepath.Join(dir, "server.pem"), "-listen", "127.0.0.1:0", "-to", echoService(t), "-cipher", "ChaChaPoly", "-hash", "BLAKE2s")
	data := randomBytes(1 << 20)
	old := stdin
	stdin = bytes.NewReader(data)
	defer func() { stdin = old }()
	code, stdout, stderr := pqkem(t, "connect", "-pub", filepath.Join(dir, "server.pub"), "-to", srv.addr, "-cipher", "ChaChaPoly", "-hash", "BLAKE2s")
	if code != exitOK || stdout != string(data) {
		t.Fatalf("exit status %d, %d bytes back for %d; stderr:\n%s", code, len(stdout), len(data), stderr)
	}
	if !strings.Contains(stderr, "Noise_pqNK_DHKEM-X25519-HKDF-SHA256_ChaChaPoly_BLAKE2s") {
		t.Errorf("stderr does not name the protocol: %s", stderr)
	}
}

// TestTunnelEphemeral runs a tunnel with a FrodoKEM-640-AES server key
// and ML-KEM-768 ephemeral keys (-ephemeral on both sides), and checks
// that a client without -ephemeral is refused, with a log line that
// names what it ran.
func TestTunnelEphemeral(t *testing.T) {
	leaktest.Check(t)
	dir := t.TempDir()
	tunnelKeys(t, dir, "FrodoKEM-640-AES", "server")
	pub := filepath.Join(dir, "server.pub")
	srv := startTunnel(t, "serve", "-key", filepath.Join(dir, "server.pem"), "-listen", "127.0.0.1:0", "-to", echoService(t), "-ephemeral", "ML-KEM-768")
	const name = "Noise_pqNK_MLKEM768+FrodoKEM-640-AES_AESGCM_SHA256"
	waitLog(t, srv.log, name)
	data := randomBytes(100_000)
	old := stdin
	stdin = bytes.NewReader(data)
	code, stdout, stderr := pqkem(t, "connect", "-pub", pub, "-to", srv.addr, "-ephemeral", "ml-kem-768")
	stdin = old
	if code != exitOK || stdout != string(data) {
		t.Fatalf("exit status %d, %d bytes back for %d; stderr:\n%s", code, len(stdout), len(data), stderr)
	}
	if !strings.Contains(stderr, name) {
		t.Errorf("stderr does not name the protocol: %s", stderr)
	}

	// Without -ephemeral, or with the server key's own scheme, the client
	// sends a FrodoKEM-640-AES ephemeral key.
	for _, args := range [][]string{nil, {"-ephemeral", "FrodoKEM-640-AES"}} {
		connectFails(t, "handshake: the server closed the connection", append([]string{"-pub", pub, "-to", srv.addr}, args...)...)
		waitLog(t, srv.log, "handshake failed: noise: handshake message 0 from the client is 19384 bytes, want 10952; the client's -ephemeral may be FrodoKEM-640-AES, FrodoKEM-640-SHAKE, eFrodoKEM-640-AES or eFrodoKEM-640-SHAKE")
	}

	// pqIK: a client key of the server key's scheme, ephemeral keys of
	// eFrodoKEM-640-AES (safe for ephemeral keys only).
	tunnelKeys(t, dir, "FrodoKEM-640-AES", "client")
	mutual := startTunnel(t, "serve", "-key", filepath.Join(dir, "server.pem"), "-listen", "127.0.0.1:0", "-to", echoService(t), "-ephemeral", "eFrodoKEM-640-AES", "-allow", filepath.Join(dir, "client.pub"))
	waitLog(t, mutual.log, "Noise_pqIK_eFrodoKEM-640-AES+FrodoKEM-640-AES_AESGCM_SHA256")
	stdin = strings.NewReader("hello")
	code, stdout, stderr = pqkem(t, "connect", "-pub", pub, "-key", filepath.Join(dir, "client.pem"), "-to", mutual.addr, "-ephemeral", "eFrodoKEM-640-AES")
	stdin = old
	if code != exitOK || stdout != "hello" {
		t.Fatalf("pqIK: exit status %d, stdout %q, stderr %s", code, stdout, stderr)
	}
}

// TestTunnelStdioIdle checks -idle on standard input and output: with
// nothing from either side, the connection is closed and the command
// fails.
func TestTunnelStdioIdle(t *testing.T) {
	leaktest.Check(t)
	dir := t.TempDir()
	tunnelKeys(t, dir, "ML-KEM-768", "server")
	srv := startTunnel(t, "serve", "-key", filepath.Join(dir, "server.pem"), "-listen", "127.0.0.1:0", "-to", echoService(t))
	pr, pw := io.Pipe() // standard input that sends nothing and stays open
	defer pw.Close()
	// Without the idle limit the command would wait for ever: end its
	// standard input after a while, so that the test fails instead.
	defer time.AfterFunc(10*time.Second, func() { pw.Close() }).Stop()
	old := stdin
	stdin = pr
	defer func() { stdin = old }()
	code, stdout, stderr := pqkem(t, "connect", "-pub", filepath.Join(dir, "server.pub"), "-to", srv.addr, "-idle", "300ms", "-quiet")
	if code != exitError || stdout != "" || !strings.Contains(stderr, "idle timeout: nothing either way for 300ms") {
		t.Errorf("an idle connection: exit status %d, stdout %q, stderr %q; want 1 and an idle timeout", code, stdout, stderr)
	}
}

// connectFails runs pqkem connect on standard input and output and checks
// that it fails with status 1 and one line that says want, perhaps with a
// hint line (which want may include, after a newline).
func connectFails(t *testing.T, want string, args ...string) {
	t.Helper()
	old := stdin
	stdin = strings.NewReader("hello")
	defer func() { stdin = old }()
	code, stdout, stderr := pqkem(t, append([]string{"connect", "-quiet"}, args...)...)
	lines := strings.Split(strings.TrimSuffix(stderr, "\n"), "\n")
	first, hint, _ := strings.Cut(want, "\n")
	if code != exitError || stdout != "" || !strings.Contains(lines[0], first) || hint != "" && (len(lines) < 2 || !strings.HasPrefix(lines[1], hint)) || len(lines) > 2 || len(lines) == 2 && !strings.HasPrefix(lines[1], "hint: ") {
		t.Errorf("pqkem connect %v: exit status %d, stdout %q, stderr %q; want 1 and one line that says %q, and maybe a hint", args, code, stdout, stderr, want)
	}
}

var fingerprintLogRE = regexp.MustCompile(`SHA256:[0-9a-f]{32}`)

// TestTunnelMutual checks pqIK with -key and -allow: a listed client is
// served, an unlisted one and one without a key are refused, a client
// key of another scheme is an error.
func TestTunnelMutual(t *testing.T) {
	leaktest.Check(t)
	dir := t.TempDir()
	tunnelKeys(t, dir, "ML-KEM-512", "server", "alice", "bob", "mallory")
	tunnelKeys(t, dir, "ML-KEM-768", "other")
	var allow []byte
	for _, n := range []string{"alice", "bob"} {
		b, _ := os.ReadFile(filepath.Join(dir, n+".pub"))
		allow = append(append(allow, "# "+n+"\n"...), b...)
	}
	allowFile := filepath.Join(dir, "allow")
	os.WriteFile(allowFile, allow, 0o644)
	srv := startTunnel(t, "serve", "-key", filepath.Join(dir, "server.pem"), "-listen", "127.0.0.1:0", "-to", echoService(t), "-allow", allowFile)
	waitLog(t, srv.log, "Noise_pqIK_MLKEM512_AESGCM_SHA256")
	waitLog(t, srv.log, "(2 keys)")
	pub := filepath.Join(dir, "server.pub")

	old := stdin
	stdin = strings.NewReader("hello")
	code, stdout, stderr := pqkem(t, "connect", "-pub", pub, "-key", filepath.Join(dir, "bob.pem"), "-to", srv.addr)
	stdin = old
	if code != exitOK || stdout != "hello" {
		t.Fatalf("bob: exit status %d, stdout %q, stderr %s", code, stdout, stderr)
	}
	bobFP := keyFingerprint(t, filepath.Join(dir, "bob.pub"))
	waitLog(t, srv.log, "(client key "+bobFP+"): connected to")

	connectFails(t, "handshake: the server closed the connection", "-pub", pub, "-key", filepath.Join(dir, "mallory.pem"), "-to", srv.addr)
	waitLog(t, srv.log, ": client key not allowed: "+keyFingerprint(t, filepath.Join(dir, "mallory.pub")))
	connectFails(t, "handshake: the server closed the connection", "-pub", pub, "-to", srv.addr)
	waitLog(t, srv.log, "is 1584 bytes, want 2400; the client sent a pqNK handshake (it has no -key)")
	connectFails(t, "the client key must be of the server key's scheme", "-pub", pub, "-key", filepath.Join(dir, "other.pem"), "-to", srv.addr)

	// A server key of one scheme and client keys of another.
	wrong := filepath.Join(dir, "wrong")
	os.WriteFile(wrong, append(allow, mustRead(t, filepath.Join(dir, "other.pub"))...), 0o644)
	code, _, stderr = pqkem(t, "serve", "-key", filepath.Join(dir, "server.pem"), "-listen", "127.0.0.1:0", "-to", "127.0.0.1:1", "-allow", wrong)
	if code != exitError || !strings.Contains(stderr, "key 3 is of ML-KEM-768, but the server's key is of ML-KEM-512") {
		t.Errorf("-allow with a key of another scheme: %d %s", code, stderr)
	}
	for _, l := range fingerprintLogRE.FindAllString(srv.log.String(), -1) {
		if l != bobFP && l != keyFingerprint(t, filepath.Join(dir, "server.pub")) && l != keyFingerprint(t, filepath.Join(dir, "mallory.pub")) {
			t.Errorf("the log has an unexpected fingerprint %s", l)
		}
	}
}

func mustRead(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func keyFingerprint(t *testing.T, pubFile string) string {
	t.Helper()
	pub, err := keyfile.DecodePublicKey(mustRead(t, pubFile), nil)
	if err != nil {
		t.Fatal(err)
	}
	return keyfile.Fingerprint(pub.Key)
}

// TestTunnelRefused checks a wrong server key, another cipher or hash,
// a server that is not PQNoise, and an unreachable -to: each a clear
// error or log line.
func TestTunnelRefused(t *testing.T) {
	leaktest.Check(t)
	dir := t.TempDir()
	tunnelKeys(t, dir, "ML-KEM-768", "server", "impostor", "client")
	srv := startTunnel(t, "serve", "-key", filepath.Join(dir, "server.pem"), "-listen", "127.0.0.1:0", "-to", echoService(t))
	pub := filepath.Join(dir, "server.pub")
	connectFails(t, "handshake: the server closed the connection", "-pub", pub, "-key", filepath.Join(dir, "client.pem"), "-to", srv.addr)
	waitLog(t, srv.log, "the client sent a pqIK handshake (it has a -key), but this server has no -allow list")

	connectFails(t, "pqkem connect: handshake: the server closed the connection\nhint: a wrong -pub, a -key not in the server's -allow", "-pub", filepath.Join(dir, "impostor.pub"), "-to", srv.addr)
	waitLog(t, srv.log, "handshake failed: noise: authentication failed: handshake message 0 from the initiator")
	waitLog(t, srv.log, "the client's -pub may not be this server's key")
	connectFails(t, "handshake: the server closed the connection", "-pub", pub, "-to", srv.addr, "-cipher", "ChaChaPoly")
	connectFails(t, "handshake: the server closed the connection", "-pub", pub, "-to", srv.addr, "-hash", "SHA512")

	// A server that answers with something else than PQNoise.
	notNoise := onePeer(t, func(c net.Conn) {
		io.ReadFull(c, make([]byte, 2))
		c.Write([]byte("HTTP/1.1 400 Bad Request\r\n\r\n"))
	})
	connectFails(t, "handshake: the server's message 1 has 18516 bytes, want 1104\nhint: the server runs another KEM or pattern", "-pub", pub, "-to", notNoise)
	// An address nothing listens on any more.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dead := ln.Addr().String()
	ln.Close()
	connectFails(t, "server unreachable: dial tcp "+dead, "-pub", pub, "-to", dead)

	// An unreachable -to: the server logs it and closes the connection.
	srv2 := startTunnel(t, "serve", "-key", filepath.Join(dir, "server.pem"), "-listen", "127.0.0.1:0", "-to", dead)
	old := stdin
	stdin = strings.NewReader("hello")
	code, stdout, stderr := pqkem(t, "connect", "-pub", pub, "-to", srv2.addr, "-quiet")
	stdin = old
	// The server resets the connection: a failure, never a clean end.
	if stdout != "" || code != exitError || !strings.Contains(stderr, "the server reset the connection") {
		t.Errorf("through a server whose -to is down: %d, %q, %q", code, stdout, stderr)
	}
	waitLog(t, srv2.log, "cannot connect to -to "+dead)
}

// TestTunnelBadPeers checks that peers that send garbage, or stall past
// -timeout, are dropped while another client's connection goes on.
func TestTunnelBadPeers(t *testing.T) {
	leaktest.Check(t)
	dir := t.TempDir()
	tunnelKeys(t, dir, "ML-KEM-768", "server")
	srv := startTunnel(t, "serve", "-key", filepath.Join(dir, "server.pem"), "-listen", "127.0.0.1:0", "-to", echoService(t), "-timeout", "1s")
	good := dialNoise(t, dir, srv.addr)
	defer good.Close()
	roundTrip(t, good, "before")

	garbage, err := net.Dial("tcp", srv.addr)
	if err != nil {
		t.Fatal(err)
	}
	defer garbage.Close()
	garbage.Write(bytes.Repeat([]byte{0xff}, 100))
	stall, err := net.Dial("tcp", srv.addr)
	if err != nil {
		t.Fatal(err)
	}
	defer stall.Close()
	stall.Write([]byte{0x0d}) // one byte of a frame header, then nothing
	garbage.SetDeadline(time.Now().Add(5 * time.Second))
	if _, err := io.ReadAll(garbage); err != nil && !errors.Is(err, syscall.ECONNRESET) {
		t.Errorf("the garbage peer: %v, want its connection closed", err)
	}
	waitLog(t, srv.log, "handshake message 0 from the client is 65535 bytes, want 2288")
	roundTrip(t, good, "between")
	stall.SetDeadline(time.Now().Add(5 * time.Second))
	if _, err := io.ReadAll(stall); err != nil && !errors.Is(err, syscall.ECONNRESET) {
		t.Errorf("the stalling peer: %v, want its connection closed", err)
	}
	waitLog(t, srv.log, "handshake timed out after 1s")
	roundTrip(t, good, "after")
}

// dialNoise opens a PQNoise connection to the server with the key
// server.pub in dir.
func dialNoise(t *testing.T, dir, addr string) *noise.Conn {
	t.Helper()
	pub, err := keyfile.DecodePublicKey(mustRead(t, filepath.Join(dir, "server.pub")), nil)
	if err != nil {
		t.Fatal(err)
	}
	s, _ := kem.ByName(pub.Key.Scheme().Name())
	p := noise.Protocol{Pattern: noise.PQNK, KEM: s, Cipher: noise.AESGCM, Hash: noise.SHA256}
	c, err := noise.Dial("tcp", addr, &noise.Config{Protocol: p, PeerStaticKey: pub.Key})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// roundTrip sends msg on c and reads it back from the echo service.
func roundTrip(t *testing.T, c net.Conn, msg string) {
	t.Helper()
	c.SetDeadline(time.Now().Add(5 * time.Second))
	if _, err := c.Write([]byte(msg)); err != nil {
		t.Fatalf("%s: %v", msg, err)
	}
	got := make([]byte, len(msg))
	if _, err := io.ReadFull(c, got); err != nil || string(got) != msg {
		t.Fatalf("%s: got %q, %v", msg, got, err)
	}
}

// TestTunnelUsage checks the flag errors and the keys that cannot serve.
func TestTunnelUsage(t *testing.T) {
	dir := t.TempDir()
	tunnelKeys(t, dir, "ML-KEM-768", "server")
	tunnelKeys(t, dir, "eFrodoKEM-640-AES", "ephemeral")
	key, pub := filepath.Join(dir, "server.pem"), filepath.Join(dir, "server.pub")
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"serve", "-listen", ":0", "-to", "x:1"}, exitUsage, "-key is required"},
		{[]string{"serve", "-key", key, "-to", "x:1"}, exitUsage, "-listen is required"},
		{[]string{"serve", "-key", key, "-listen", ":0"}, exitUsage, "-to is required"},
		{[]string{"serve", "-key", key, "-listen", ":0", "-to", "x:1", "-cipher", "AES"}, exitUsage, `-cipher: unknown cipher "AES"`},
		{[]string{"serve", "-key", key, "-listen", ":0", "-to", "x:1", "-hash", "SHA3"}, exitUsage, `-hash: unknown hash "SHA3"`},
		{[]string{"serve", "-key", key, "-listen", ":0", "-to", "x:1", "-ephemeral", "MLKEM768"}, exitUsage, `-ephemeral: unknown KEM "MLKEM768"`},
		{[]string{"connect", "-pub", pub, "-to", "x:1", "-ephemeral", "Kyber"}, exitUsage, `-ephemeral: unknown KEM "Kyber"`},
		{[]string{"serve", "-key", key, "-listen", ":0", "-to", "x:1", "-max", "0"}, exitUsage, "-max must be at least 1"},
		{[]string{"serve", "-key", key, "-listen", ":0", "-to", "x:1", "-timeout", "0s"}, exitUsage, "-timeout must be positive"},
		{[]string{"serve", "-key", pub, "-listen", ":0", "-to", "x:1"}, exitError, "-key " + pub + `: keyfile: PEM block type is "PUBLIC KEY"`},
		{[]string{"serve", "-key", filepath.Join(dir, "ephemeral.pem"), "-listen", ":0", "-to", "x:1"}, exitError, "eFrodoKEM-640-AES is not safe as a static key"},
		{[]string{"serve", "-key", key, "-listen", ":0", "-to", "x:1", "-allow", pub + ".missing"}, exitError, "-allow " + pub + ".missing: no such file"},
		{[]string{"serve", "-key", key, "-listen", ":0", "-to", "x:1", "-allow", key}, exitError, `key 1: keyfile: PEM block type is "PRIVATE KEY"`},
		{[]string{"connect", "-to", "x:1"}, exitUsage, "-pub is required"},
		{[]string{"connect", "-pub", pub}, exitUsage, "-to is required"},
		{[]string{"connect", "-pub", key, "-to", "x:1"}, exitError, "-pub " + key + `: keyfile: PEM block type is "PRIVATE KEY"`},
		{[]string{"connect", "-pub", filepath.Join(dir, "ephemeral.pub"), "-to", "x:1"}, exitError, "eFrodoKEM-640-AES is not safe as a static key"},
		{[]string{"connect", "-pub", pub, "-to", "x:1", "extra"}, exitUsage, `unexpected argument "extra"`},
	} {
		code, _, stderr := pqkem(t, tc.args...)
		if code != tc.code || !strings.Contains(stderr, tc.want) {
			t.Errorf("pqkem %s: exit status %d, stderr %q; want %d and %q", strings.Join(tc.args, " "), code, stderr, tc.code, tc.want)
		}
	}
}

// TestTunnelMax checks that with -max 1 a second connection, its
// handshake done, waits for the first to end before it is forwarded.
func TestTunnelMax(t *testing.T) {
	leaktest.Check(t)
	dir := t.TempDir()
	tunnelKeys(t, dir, "ML-KEM-768", "server")
	srv := startTunnel(t, "serve", "-key", filepath.Join(dir, "server.pem"), "-listen", "127.0.0.1:0", "-to", echoService(t), "-max", "1")
	first := dialNoise(t, dir, srv.addr)
	roundTrip(t, first, "first")
	second := dialNoise(t, dir, srv.addr)
	defer second.Close()
	second.SetDeadline(time.Now().Add(300 * time.Millisecond))
	second.Write([]byte("second"))
	if n, err := second.Read(make([]byte, 10)); n != 0 || !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Errorf("a second connection with -max 1: read %d bytes, %v; want it to wait", n, err)
	}
	first.Close()
	second.SetDeadline(time.Now().Add(5 * time.Second))
	got := make([]byte, len("second"))
	if _, err := io.ReadFull(second, got); err != nil || string(got) != "second" {
		t.Fatalf("once the first connection has ended: %q, %v", got, err)
	}
}

// TestTunnelIdle checks -idle: a connection stays open while there is
// traffic, and is reset after -idle without any.
func TestTunnelIdle(t *testing.T) {
	leaktest.Check(t)
	dir := t.TempDir()
	tunnelKeys(t, dir, "ML-KEM-768", "server")
	srv := startTunnel(t, "serve", "-key", filepath.Join(dir, "server.pem"), "-listen", "127.0.0.1:0", "-to", echoService(t), "-idle", "300ms")
	c2 := dialNoise(t, dir, srv.addr)
	defer c2.Close()
	for range 6 {
		roundTrip(t, c2, "tick")
		time.Sleep(100 * time.Millisecond)
	}
	c2.SetDeadline(time.Now().Add(5 * time.Second))
	if n, err := c2.Read(make([]byte, 1)); !isReset(err) {
		t.Errorf("an idle connection: read %d bytes, %v; want a reset", n, err)
	}
	waitLog(t, srv.log, "idle timeout: nothing either way for 300ms")
}
