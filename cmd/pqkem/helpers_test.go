package main

import (
	"bufio"
	"bytes"
	"crypto/rand"
	"crypto/sha256"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/pqkem/pqkem/kem"
	"github.com/pqkem/pqkem/keyfile"
	"github.com/pqkem/pqkem/noise"
)

// The helpers of the tests that run pqkem serve, pqkem connect and pqkem
// pake listen: key files, the services behind serve, starting a command
// that listens (in the test process, or in a process of its own) and
// waiting until it does, standard input, and PQNoise clients.

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

// Key files.

// tunnelKeys writes a private key NAME.pem and its public key NAME.pub of
// scheme alg in dir for each name.
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

func mustRead(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// readPublicKey reads the public key file pub.
func readPublicKey(t *testing.T, pub string) kem.EncapsulationKey {
	t.Helper()
	k, err := keyfile.DecodePublicKey(mustRead(t, pub), nil)
	if err != nil {
		t.Fatal(err)
	}
	return k.Key
}

func keyFingerprint(t *testing.T, pubFile string) string {
	t.Helper()
	return keyfile.Fingerprint(readPublicKey(t, pubFile))
}

// Listeners and the services behind serve.

// listenLoopback listens on a free TCP port of 127.0.0.1.
func listenLoopback(t *testing.T) net.Listener {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	return ln
}

// closedAddr returns a loopback address that nothing listens on any
// more.
func closedAddr(t *testing.T) string {
	t.Helper()
	ln := listenLoopback(t)
	addr := ln.Addr().String()
	ln.Close()
	return addr
}

// serveConns accepts the connections of ln until the test ends, and runs
// handle on each in a goroutine of its own, closing the connection once
// handle returns. The test's end closes ln and waits for the handlers.
func serveConns(t *testing.T, ln net.Listener, handle func(c net.Conn)) {
	var wg sync.WaitGroup
	wg.Go(func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			wg.Go(func() {
				defer c.Close()
				handle(c)
			})
		}
	})
	t.Cleanup(func() {
		ln.Close()
		wg.Wait()
	})
}

// echoService listens on loopback and sends back what each connection
// sends, half-closing when the client has; it returns its address.
func echoService(t *testing.T) string {
	t.Helper()
	ln := listenLoopback(t)
	echoOn(t, ln)
	return ln.Addr().String()
}

// echoOn serves ln as echoService does, until the test ends.
func echoOn(t *testing.T, ln net.Listener) {
	serveConns(t, ln, func(c net.Conn) {
		io.Copy(c, c)
		c.(interface{ CloseWrite() error }).CloseWrite()
	})
}

// countingEcho is echoService that counts the connections it accepts.
func countingEcho(t *testing.T, n *atomic.Int64) string {
	t.Helper()
	ln := listenLoopback(t)
	echoOn(t, countingListener{ln, n})
	return ln.Addr().String()
}

// countingListener counts the connections its Accept returns.
type countingListener struct {
	net.Listener
	n *atomic.Int64
}

func (l countingListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err == nil {
		l.n.Add(1)
	}
	return c, err
}

// onePeer listens on loopback, runs peer on the first connection it
// accepts and closes that connection, and returns the address. The
// listener closes when the test ends.
func onePeer(t *testing.T, peer func(net.Conn)) string {
	t.Helper()
	ln := listenLoopback(t)
	t.Cleanup(func() { ln.Close() })
	go func() {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		peer(c)
	}()
	return ln.Addr().String()
}

// Commands that listen, in the test process.

// startListening runs pqkem with args, which start a listener (a
// connPool), in a goroutine, writing to stdout and stderr, and returns
// once it listens: the address, and a channel that receives its exit
// status. The test fails if it exits before listening.
func startListening(t *testing.T, args []string, stdout, stderr *syncBuffer) (string, <-chan int) {
	t.Helper()
	addrc := make(chan net.Addr, 1)
	listenHook = func(a net.Addr) { addrc <- a }
	defer func() { listenHook = nil }()
	done := make(chan int, 1)
	go func() { done <- program.Run(args, stdout, stderr) }()
	select {
	case a := <-addrc:
		return a.String(), done
	case code := <-done:
		t.Fatalf("pqkem %s: exit status %d before listening:\n%s", strings.Join(args, " "), code, stderr)
	case <-time.After(20 * time.Second):
		t.Fatalf("pqkem %s does not start listening", strings.Join(args, " "))
	}
	return "", nil
}

// runningTunnel is a pqkem serve or pqkem connect -listen running in the test.
type runningTunnel struct {
	addr string
	log  *syncBuffer
	done <-chan int // the exit status
}

// startTunnel runs pqkem with args, which listen, and returns once it
// listens. The test's end stops it, if it still runs.
func startTunnel(t *testing.T, args ...string) *runningTunnel {
	t.Helper()
	tn := &runningTunnel{log: new(syncBuffer)}
	tn.addr, tn.done = startListening(t, args, new(syncBuffer), tn.log)
	t.Cleanup(func() { tn.stop(t) })
	return tn
}

// serveTunnel runs pqkem serve with the key server.pem in dir, listening
// on 127.0.0.1:0, in front of the service at to, with the flags args
// besides, as startTunnel does.
func serveTunnel(t *testing.T, dir, to string, args ...string) *runningTunnel {
	t.Helper()
	return startTunnel(t, append([]string{"serve", "-key", filepath.Join(dir, "server.pem"), "-listen", "127.0.0.1:0", "-to", to}, args...)...)
}

// connectTunnel runs pqkem connect -listen 127.0.0.1:0 to the server at
// to, whose public key is server.pub in dir, with the flags args besides,
// as startTunnel does.
func connectTunnel(t *testing.T, dir, to string, args ...string) *runningTunnel {
	t.Helper()
	return startTunnel(t, append([]string{"connect", "-pub", filepath.Join(dir, "server.pub"), "-to", to, "-listen", "127.0.0.1:0"}, args...)...)
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

// pqkem serve in a process of its own.

var listeningRE = regexp.MustCompile(`listening on (\S+), `)

// startServe runs pqkem serve -listen 127.0.0.1:0 with args in a process
// of its own and returns it, the address it listens on, and its log
// lines.
func startServe(t *testing.T, args ...string) (*exec.Cmd, string, <-chan string) {
	t.Helper()
	cmd := command(t, append([]string{"serve", "-listen", "127.0.0.1:0"}, args...)...)
	addr, lines := startProcess(t, cmd)
	return cmd, addr, lines
}

// startProcess starts cmd, a pqkem serve or connect -listen, and returns
// the address it listens on once its log says so, and its log lines. The
// test's end kills it, if it still runs.
func startProcess(t *testing.T, cmd *exec.Cmd) (string, <-chan string) {
	t.Helper()
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	lines := make(chan string, 100)
	go func() {
		defer close(lines)
		s := bufio.NewScanner(stderr)
		for s.Scan() {
			lines <- s.Text()
		}
	}()
	first := nextLine(t, lines)
	m := listeningRE.FindStringSubmatch(first)
	if m == nil {
		t.Fatalf("the first line is %q, want \"listening on ADDR, ...\"", first)
	}
	return m[1], lines
}

func nextLine(t *testing.T, lines <-chan string) string {
	t.Helper()
	select {
	case l, ok := <-lines:
		if !ok {
			t.Fatal("standard error closed")
		}
		return l
	case <-time.After(10 * time.Second):
		t.Fatal("no log line for 10s")
	}
	return ""
}

// waitLine reads log lines until one says want.
func waitLine(t *testing.T, lines <-chan string, want string) {
	t.Helper()
	for {
		if l := nextLine(t, lines); strings.Contains(l, want) {
			return
		}
	}
}

// pqkem connect on standard input and output.

// withStdin makes the commands run in the test read r as their standard
// input, until restore.
func withStdin(r io.Reader) (restore func()) {
	old := stdin
	stdin = r
	return func() { stdin = old }
}

// connectStdin runs pqkem connect on standard input in.
func connectStdin(t *testing.T, in []byte, args ...string) (int, string, string) {
	t.Helper()
	defer withStdin(bytes.NewReader(in))()
	return pqkem(t, append([]string{"connect"}, args...)...)
}

// connectFails runs pqkem connect on standard input and output and checks
// that it fails with status 1 and one line that says want, perhaps with a
// hint line (which want may include, after a newline).
func connectFails(t *testing.T, want string, args ...string) {
	t.Helper()
	code, stdout, stderr := connectStdin(t, []byte("hello"), append([]string{"-quiet"}, args...)...)
	lines := strings.Split(strings.TrimSuffix(stderr, "\n"), "\n")
	first, hint, _ := strings.Cut(want, "\n")
	if code != exitError || stdout != "" || !strings.Contains(lines[0], first) || hint != "" && (len(lines) < 2 || !strings.HasPrefix(lines[1], hint)) || len(lines) > 2 || len(lines) == 2 && !strings.HasPrefix(lines[1], "hint: ") {
		t.Errorf("pqkem connect %v: exit status %d, stdout %q, stderr %q; want 1 and one line that says %q, and maybe a hint", args, code, stdout, stderr, want)
	}
}

// Clients.

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

// pqNK returns the pqNK protocol (AESGCM, SHA256) to a server whose
// public key is in the file pub, and that key.
func pqNK(t *testing.T, pub string) (noise.Protocol, kem.EncapsulationKey) {
	t.Helper()
	k := readPublicKey(t, pub)
	s, _ := kem.ByName(k.Scheme().Name())
	return noise.Protocol{Pattern: noise.PQNK, KEM: s, Cipher: noise.AESGCM, Hash: noise.SHA256}, k
}

// serverProtocol returns the pqNK protocol of the server key in dir.
func serverProtocol(t *testing.T, dir string) noise.Protocol {
	t.Helper()
	p, _ := pqNK(t, filepath.Join(dir, "server.pub"))
	return p
}

// dialNoise opens a PQNoise connection to the server with the key
// server.pub in dir.
func dialNoise(t *testing.T, dir, addr string) *noise.Conn {
	t.Helper()
	p, k := pqNK(t, filepath.Join(dir, "server.pub"))
	c, err := noise.Dial("tcp", addr, &noise.Config{Protocol: p, PeerStaticKey: k})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// dialKey opens a PQNoise connection to addr with the server key in the
// file pub, with a handshake timeout of 5s.
func dialKey(t *testing.T, pub, addr string) (*noise.Conn, error) {
	t.Helper()
	p, k := pqNK(t, pub)
	return noise.Dial("tcp", addr, &noise.Config{Protocol: p, PeerStaticKey: k, HandshakeTimeout: 5 * time.Second})
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
