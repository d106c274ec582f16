package main

import (
	"bytes"
	"errors"
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
)

// The tunnel tests run pqkem serve and pqkem connect in the test process
// (TestTunnelSignal and TestTunnelReload run serve in a process of its
// own), on loopback, with an echo service behind the server; their
// helpers are in helpers_test.go.

// TestTunnel runs pqkem serve in front of an echo service, and pqkem
// connect -listen in front of it: small and large transfers (16 MiB),
// several at once, with half-closes, come back unchanged; SIGTERM stops
// both, and no goroutine is left.
func TestTunnel(t *testing.T) {
	leaktest.Check(t)
	dir := t.TempDir()
	tunnelKeys(t, dir, "ML-KEM-768", "server")
	echo := echoService(t)
	srv := serveTunnel(t, dir, echo)
	cli := connectTunnel(t, dir, srv.addr)
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
	srv := serveTunnel(t, dir, echoService(t), "-cipher", "ChaChaPoly", "-hash", "BLAKE2s")
	data := randomBytes(1 << 20)
	code, stdout, stderr := connectStdin(t, data, "-pub", filepath.Join(dir, "server.pub"), "-to", srv.addr, "-cipher", "ChaChaPoly", "-hash", "BLAKE2s")
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
	srv := serveTunnel(t, dir, echoService(t), "-ephemeral", "ML-KEM-768")
	const name = "Noise_pqNK_MLKEM768+FrodoKEM-640-AES_AESGCM_SHA256"
	waitLog(t, srv.log, name)
	data := randomBytes(100_000)
	code, stdout, stderr := connectStdin(t, data, "-pub", pub, "-to", srv.addr, "-ephemeral", "ml-kem-768")
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
	mutual := serveTunnel(t, dir, echoService(t), "-ephemeral", "eFrodoKEM-640-AES", "-allow", filepath.Join(dir, "client.pub"))
	waitLog(t, mutual.log, "Noise_pqIK_eFrodoKEM-640-AES+FrodoKEM-640-AES_AESGCM_SHA256")
	code, stdout, stderr = connectStdin(t, []byte("hello"), "-pub", pub, "-key", filepath.Join(dir, "client.pem"), "-to", mutual.addr, "-ephemeral", "eFrodoKEM-640-AES")
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
	srv := serveTunnel(t, dir, echoService(t))
	pr, pw := io.Pipe() // standard input that sends nothing and stays open
	defer pw.Close()
	// Without the idle limit the command would wait for ever: end its
	// standard input after a while, so that the test fails instead.
	defer time.AfterFunc(10*time.Second, func() { pw.Close() }).Stop()
	defer withStdin(pr)()
	code, stdout, stderr := pqkem(t, "connect", "-pub", filepath.Join(dir, "server.pub"), "-to", srv.addr, "-idle", "300ms", "-quiet")
	if code != exitError || stdout != "" || !strings.Contains(stderr, "idle timeout: nothing either way for 300ms") {
		t.Errorf("an idle connection: exit status %d, stdout %q, stderr %q; want 1 and an idle timeout", code, stdout, stderr)
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
	srv := serveTunnel(t, dir, echoService(t), "-allow", allowFile)
	waitLog(t, srv.log, "Noise_pqIK_MLKEM512_AESGCM_SHA256")
	waitLog(t, srv.log, "(2 keys)")
	pub := filepath.Join(dir, "server.pub")

	code, stdout, stderr := connectStdin(t, []byte("hello"), "-pub", pub, "-key", filepath.Join(dir, "bob.pem"), "-to", srv.addr)
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

// TestTunnelRefused checks a wrong server key, another cipher or hash,
// a server that is not PQNoise, and an unreachable -to: each a clear
// error or log line.
func TestTunnelRefused(t *testing.T) {
	leaktest.Check(t)
	dir := t.TempDir()
	tunnelKeys(t, dir, "ML-KEM-768", "server", "impostor", "client")
	srv := serveTunnel(t, dir, echoService(t))
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
	dead := closedAddr(t)
	connectFails(t, "server unreachable: dial tcp "+dead, "-pub", pub, "-to", dead)

	// An unreachable -to: the server logs it and closes the connection.
	srv2 := serveTunnel(t, dir, dead)
	code, stdout, stderr := connectStdin(t, []byte("hello"), "-pub", pub, "-to", srv2.addr, "-quiet")
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
	srv := serveTunnel(t, dir, echoService(t), "-timeout", "1s")
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
	srv := serveTunnel(t, dir, echoService(t), "-max", "1")
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
	srv := serveTunnel(t, dir, echoService(t), "-idle", "300ms")
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
