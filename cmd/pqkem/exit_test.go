package main

import (
	"bytes"
	"io"
	"net"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pqkem/pqkem/internal/leaktest"
)

// bannerService is a service that speaks first, as SSH and SMTP do: it
// sends a banner, then reads a line and answers it.
func bannerService(t *testing.T) string {
	t.Helper()
	ln := listenLoopback(t)
	serveConns(t, ln, func(c net.Conn) {
		c.SetDeadline(time.Now().Add(10 * time.Second))
		c.Write([]byte("SSH-2.0-banner\r\n"))
		line, _ := io.ReadAll(c)
		c.Write(append([]byte("got "), line...))
		c.(*net.TCPConn).CloseWrite()
	})
	return ln.Addr().String()
}

// TestTunnelServerSpeaksFirst checks that a service that speaks first
// gets its banner to a client that sends nothing before it: serve
// connects to it once the client's confirmation (sent by connect at the
// end of the handshake, not waiting for data) has come.
func TestTunnelServerSpeaksFirst(t *testing.T) {
	leaktest.Check(t)
	dir := t.TempDir()
	tunnelKeys(t, dir, "ML-KEM-768", "server")
	srv := serveTunnel(t, dir, bannerService(t))
	cli := connectTunnel(t, dir, srv.addr)
	c, err := net.Dial("tcp", cli.addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(10 * time.Second))
	banner := make([]byte, len("SSH-2.0-banner\r\n"))
	if _, err := io.ReadFull(c, banner); err != nil || string(banner) != "SSH-2.0-banner\r\n" {
		t.Fatalf("the banner: %q, %v", banner, err)
	}
	c.Write([]byte("SSH-2.0-client\r\n"))
	c.(*net.TCPConn).CloseWrite()
	rest, err := io.ReadAll(c)
	if err != nil || string(rest) != "got SSH-2.0-client\r\n" {
		t.Errorf("the answer: %q, %v", rest, err)
	}
}

// TestConnectExitStatus checks connect's exit status: 0 with an empty
// standard input (and no word of unsent input), 1 when the server is cut
// at shutdown after -grace, with one line saying so.
func TestConnectExitStatus(t *testing.T) {
	leaktest.Check(t)
	dir := t.TempDir()
	tunnelKeys(t, dir, "ML-KEM-768", "server")
	srv := serveTunnel(t, dir, echoService(t), "-grace", "100ms")
	pub := filepath.Join(dir, "server.pub")
	code, stdout, stderr := connectStdin(t, nil, "-pub", pub, "-to", srv.addr, "-quiet")
	if code != exitOK || stdout != "" || stderr != "" {
		t.Errorf("empty standard input: exit status %d, %q, %q; want 0 and nothing", code, stdout, stderr)
	}

	// Standard input that stays open while the server stops.
	pr, pw := io.Pipe()
	defer pw.Close()
	defer withStdin(pr)()
	done := make(chan struct{})
	var out, errOut bytes.Buffer
	go func() {
		defer close(done)
		code = program.Run([]string{"connect", "-pub", pub, "-to", srv.addr, "-quiet"}, &out, &errOut)
	}()
	pw.Write([]byte("ping"))
	waitLog(t, srv.log, ": connected to ")
	srv.stop(t)
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("connect does not end when the server cuts the connection")
	}
	lines := strings.Split(strings.TrimSuffix(errOut.String(), "\n"), "\n")
	if code != exitError || !strings.Contains(lines[0], "the server reset the connection, before all of standard input was sent") {
		t.Errorf("cut at the server's shutdown: exit status %d, stderr %q; want 1 and a reset", code, errOut.String())
	}
	if !strings.Contains(srv.log.String(), "cut at shutdown") {
		t.Errorf("the server's log does not say the connection was cut:\n%s", srv.log)
	}
}

// TestTunnelLogSummary checks that failures are rate-limited in the log:
// the first of a cause in full, then a count.
func TestTunnelLogSummary(t *testing.T) {
	leaktest.Check(t)
	old := failureLogInterval
	failureLogInterval = time.Hour
	defer func() { failureLogInterval = old }()
	dir := t.TempDir()
	tunnelKeys(t, dir, "ML-KEM-768", "server")
	srv := serveTunnel(t, dir, echoService(t), "-quiet", "-rate", "0")
	for range 20 {
		c, err := net.Dial("tcp", srv.addr)
		if err != nil {
			t.Fatal(err)
		}
		c.SetDeadline(time.Now().Add(5 * time.Second))
		c.Write(bytes.Repeat([]byte{0xff}, 100))
		io.Copy(io.Discard, c)
		c.Close()
	}
	waitLog(t, srv.log, "protocol: ")
	srv.stop(t)
	if n := strings.Count(srv.log.String(), "protocol: "); n != 1 {
		t.Errorf("%d failures in full, want 1:\n%s", n, srv.log)
	}
	if !strings.Contains(srv.log.String(), "19 more protocol failures in the last 1h0m0s") {
		t.Errorf("no count of the others:\n%s", srv.log)
	}
}
