//go:build unix

package main

import (
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	proxyproto "github.com/pires/go-proxyproto"

	"github.com/pqkem/pqkem/internal/leaktest"
)

// unixEcho is echoService on a Unix socket at path.
func unixEcho(t *testing.T, path string) {
	t.Helper()
	ln, err := net.Listen("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	echoOn(t, ln)
}

// TestTunnelUnix runs the whole tunnel over Unix sockets: connect
// -listen unix:, serve -listen unix: and -to unix:.
func TestTunnelUnix(t *testing.T) {
	leaktest.Check(t)
	dir := t.TempDir()
	tunnelKeys(t, dir, "ML-KEM-768", "server")
	unixEcho(t, filepath.Join(dir, "echo.sock"))
	srv := startTunnel(t, "serve", "-key", filepath.Join(dir, "server.pem"), "-listen", "unix:"+filepath.Join(dir, "pq.sock"), "-to", "unix:"+filepath.Join(dir, "echo.sock"))
	cli := startTunnel(t, "connect", "-pub", filepath.Join(dir, "server.pub"), "-to", "unix:"+srv.addr, "-listen", "unix:"+filepath.Join(dir, "local.sock"))
	for _, data := range [][]byte{[]byte("over unix sockets\n"), randomBytes(1 << 20)} {
		c, err := net.Dial("unix", cli.addr)
		if err != nil {
			t.Fatal(err)
		}
		c.SetDeadline(time.Now().Add(10 * time.Second))
		go func() {
			c.Write(data)
			c.(*net.UnixConn).CloseWrite()
		}()
		got, err := io.ReadAll(c)
		c.Close()
		if err != nil || len(got) != len(data) || string(got) != string(data) {
			t.Fatalf("%d bytes back for %d, %v", len(got), len(data), err)
		}
	}
	waitLog(t, srv.log, "1048576 bytes from the client, 1048576 bytes from the service")
}

// TestTunnelLoop checks that a -to that reaches -listen is refused at the
// start, by serve and by connect -listen, and that -to and -listen are
// checked before anything else happens.
func TestTunnelLoop(t *testing.T) {
	dir := t.TempDir()
	tunnelKeys(t, dir, "ML-KEM-768", "server")
	free := closedAddr(t)
	key, pub := filepath.Join(dir, "server.pem"), filepath.Join(dir, "server.pub")
	sock := "unix:" + filepath.Join(dir, "s.sock")
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"serve", "-key", key, "-listen", free, "-to", free}, exitUsage, "reaches -listen"},
		{[]string{"serve", "-key", key, "-listen", sock, "-to", sock}, exitUsage, "reaches -listen"},
		{[]string{"connect", "-pub", pub, "-listen", free, "-to", free}, exitUsage, "reaches -listen"},
		{[]string{"serve", "-key", key, "-listen", "127.0.0.1:0", "-to", "127.0.0.1:notaport"}, exitUsage, `-to: invalid address "127.0.0.1:notaport"`},
		{[]string{"serve", "-key", key, "-listen", "127.0.0.1:0", "-to", "systemd"}, exitUsage, "-to systemd: cannot connect to it"},
		{[]string{"serve", "-key", key, "-listen", "nowhere", "-to", "127.0.0.1:1"}, exitUsage, `-listen: invalid address "nowhere"`},
		{[]string{"connect", "-pub", pub, "-to", "fd:3"}, exitUsage, "-to fd:3: cannot connect to it"},
		{[]string{"connect", "-pub", pub, "-to", "127.0.0.1:1", "-status", "127.0.0.1:0"}, exitUsage, "-status needs -listen"},
	} {
		code, _, stderr := pqkem(t, tc.args...)
		if code != tc.code || !strings.Contains(stderr, tc.want) {
			t.Errorf("pqkem %s: exit status %d, %q; want %d and %q", strings.Join(tc.args, " "), code, stderr, tc.code, tc.want)
		}
	}
}

// TestTunnelInherited runs serve on a listening socket it inherits: as
// fd:3, and through systemd's socket activation (LISTEN_PID, LISTEN_FDS).
func TestTunnelInherited(t *testing.T) {
	dir := t.TempDir()
	tunnelKeys(t, dir, "ML-KEM-768", "server")
	echo := echoService(t)
	for _, listen := range []string{"fd:3", "systemd"} {
		t.Run(listen, func(t *testing.T) {
			ln := listenLoopback(t)
			f, err := ln.(*net.TCPListener).File()
			ln.Close()
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			cmd := command(t, "serve", "-key", filepath.Join(dir, "server.pem"), "-listen", listen, "-to", echo)
			if listen == "systemd" {
				// LISTEN_PID must be the process's own id: a shell sets it
				// to its own, then becomes the command.
				cmd = exec.Command("/bin/sh", append([]string{"-c", `LISTEN_PID=$$ LISTEN_FDS=1 exec "$0" "$@"`}, cmd.Args...)...)
				cmd.Env = append(os.Environ(), runMainEnv+"=1")
			}
			cmd.ExtraFiles = []*os.File{f}
			addr, lines := startProcess(t, cmd)
			if addr != ln.Addr().String() {
				t.Errorf("listening on %s, want the inherited %s", addr, ln.Addr())
			}
			c := dialNoise(t, dir, addr)
			roundTrip(t, c, "through an inherited socket")
			c.Close()
			cmd.Process.Signal(syscall.SIGTERM)
			waitLine(t, lines, "stopped")
		})
	}
}

// TestTunnelReload checks SIGHUP: a connection open before it goes on,
// new connections use the new key, and a file that does not parse, or
// client keys of another scheme, keep the keys in use.
func TestTunnelReload(t *testing.T) {
	dir := t.TempDir()
	tunnelKeys(t, dir, "ML-KEM-768", "one", "two", "alice")
	tunnelKeys(t, dir, "ML-KEM-512", "other")
	key := filepath.Join(dir, "key.pem")
	copyFile(t, filepath.Join(dir, "one.pem"), key)
	cmd, addr, lines := startServe(t, "-key", key, "-to", echoService(t))
	old, err := dialKey(t, filepath.Join(dir, "one.pub"), addr)
	if err != nil {
		t.Fatal(err)
	}
	defer old.Close()
	roundTrip(t, old, "before")

	copyFile(t, filepath.Join(dir, "two.pem"), key)
	cmd.Process.Signal(syscall.SIGHUP)
	waitLine(t, lines, "SIGHUP: reloaded: server key "+keyFingerprint(t, filepath.Join(dir, "two.pub")))
	roundTrip(t, old, "after the reload, on the connection opened before")
	if c, err := dialKey(t, filepath.Join(dir, "one.pub"), addr); err == nil {
		c.Close()
		t.Error("the old key still serves new connections")
	}
	c, err := dialKey(t, filepath.Join(dir, "two.pub"), addr)
	if err != nil {
		t.Fatalf("the new key: %v", err)
	}
	roundTrip(t, c, "with the new key")
	c.Close()

	os.WriteFile(key, []byte("not a key\n"), 0o600)
	cmd.Process.Signal(syscall.SIGHUP)
	waitLine(t, lines, "SIGHUP: keeping the keys in use: -key "+key)
	c, err = dialKey(t, filepath.Join(dir, "two.pub"), addr)
	if err != nil {
		t.Fatalf("after a bad file: %v", err)
	}
	roundTrip(t, c, "after a bad file")
	c.Close()
	old.Close()
	cmd.Process.Signal(syscall.SIGTERM)
	waitLine(t, lines, "stopped")

	// -allow with a key of another scheme than -key's.
	allow := filepath.Join(dir, "allow.pub")
	copyFile(t, filepath.Join(dir, "alice.pub"), allow)
	copyFile(t, filepath.Join(dir, "one.pem"), key)
	cmd, _, lines = startServe(t, "-key", key, "-to", echoService(t), "-allow", allow)
	copyFile(t, filepath.Join(dir, "other.pub"), allow)
	cmd.Process.Signal(syscall.SIGHUP)
	waitLine(t, lines, "SIGHUP: keeping the keys in use: -allow "+allow+": key 1 is of ML-KEM-512, but the server's key is of ML-KEM-768")
	copyFile(t, filepath.Join(dir, "alice.pub"), allow)
	cmd.Process.Signal(syscall.SIGHUP)
	waitLine(t, lines, "SIGHUP: reloaded: server key "+keyFingerprint(t, filepath.Join(dir, "one.pub"))+", serving only the clients whose keys are in "+allow+" (1 key): "+keyFingerprint(t, filepath.Join(dir, "alice.pub")))
	cmd.Process.Signal(syscall.SIGTERM)
	waitLine(t, lines, "stopped")
}

// TestTunnelUnixProxyProtocol checks serve on a Unix socket with
// -proxy-protocol: the service's PROXY v2 header has the Unix family, no
// name for the client's socket (it has none) and serve's socket's path,
// and the log names the client for what it is.
func TestTunnelUnixProxyProtocol(t *testing.T) {
	leaktest.Check(t)
	dir := t.TempDir()
	tunnelKeys(t, dir, "ML-KEM-768", "server")
	svc, headers := proxyService(t)
	srv := startTunnel(t, "serve", "-key", filepath.Join(dir, "server.pem"), "-listen", "unix:"+filepath.Join(dir, "pq.sock"), "-to", svc, "-proxy-protocol")
	code, stdout, stderr := connectStdin(t, []byte("hello"), "-pub", filepath.Join(dir, "server.pub"), "-to", "unix:"+srv.addr, "-quiet")
	if code != exitOK || stdout != "hello" {
		t.Fatalf("exit status %d, %q; stderr:\n%s", code, stdout, stderr)
	}
	h := <-headers
	if h.Command != proxyproto.PROXY || h.TransportProtocol != proxyproto.UnixStream {
		t.Errorf("the PROXY header's command %#x, family %#x; want PROXY, UNIX stream", h.Command, h.TransportProtocol)
	}
	if src, ok := h.SourceAddr.(*net.UnixAddr); !ok || strings.Trim(src.Name, "\x00") != "" {
		t.Errorf("the PROXY header's source is %#v, want an unnamed Unix socket", h.SourceAddr)
	}
	if dst, ok := h.DestinationAddr.(*net.UnixAddr); !ok || strings.TrimRight(dst.Name, "\x00") != srv.addr {
		t.Errorf("the PROXY header's destination is %#v, want %s", h.DestinationAddr, srv.addr)
	}
	waitLog(t, srv.log, "unnamed Unix socket: ")
}

// TestConnectReload checks SIGHUP in connect -listen: the connections
// from then on use the new -pub, one opened before goes on, and a file
// that does not parse keeps the keys in use.
func TestConnectReload(t *testing.T) {
	dir := t.TempDir()
	tunnelKeys(t, dir, "ML-KEM-768", "one", "two")
	key, pub := filepath.Join(dir, "key.pem"), filepath.Join(dir, "key.pub")
	copyFile(t, filepath.Join(dir, "one.pem"), key)
	copyFile(t, filepath.Join(dir, "one.pub"), pub)
	srv, addr, srvLines := startServe(t, "-key", key, "-to", echoService(t))
	cli := command(t, "connect", "-listen", "127.0.0.1:0", "-pub", pub, "-to", addr)
	local, lines := startProcess(t, cli)
	dialLocal := func() net.Conn {
		t.Helper()
		c, err := net.Dial("tcp", local)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	old := dialLocal()
	defer old.Close()
	roundTrip(t, old, "before")

	// The server's key changes: connect's is stale until its SIGHUP.
	copyFile(t, filepath.Join(dir, "two.pem"), key)
	srv.Process.Signal(syscall.SIGHUP)
	waitLine(t, srvLines, "SIGHUP: reloaded: server key "+keyFingerprint(t, filepath.Join(dir, "two.pub")))
	// connect dials the server as it accepts, and resets the local
	// connection when the handshake fails: maybe before our connect()
	// has returned.
	if c, err := net.Dial("tcp", local); err == nil {
		c.SetDeadline(time.Now().Add(5 * time.Second))
		c.Write([]byte("stale"))
		if n, err := c.Read(make([]byte, 5)); err == nil {
			t.Errorf("with the server's old key: %d bytes back, want the connection ended", n)
		}
		c.Close()
	}
	waitLine(t, lines, "handshake")

	copyFile(t, filepath.Join(dir, "two.pub"), pub)
	cli.Process.Signal(syscall.SIGHUP)
	waitLine(t, lines, "SIGHUP: reloaded: server key "+keyFingerprint(t, filepath.Join(dir, "two.pub")))
	c := dialLocal()
	roundTrip(t, c, "with the new key")
	c.Close()
	roundTrip(t, old, "after the reload, on the connection opened before")

	os.WriteFile(pub, []byte("not a key\n"), 0o600)
	cli.Process.Signal(syscall.SIGHUP)
	waitLine(t, lines, "SIGHUP: keeping the keys in use: -pub "+pub)
	c = dialLocal()
	roundTrip(t, c, "after a bad file")
	c.Close()
	old.Close()
	for _, p := range []*exec.Cmd{cli, srv} {
		p.Process.Signal(syscall.SIGTERM)
		if err := p.Wait(); err != nil {
			t.Errorf("%v: %v after SIGTERM, want exit status 0", p.Args[1:2], err)
		}
	}
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	if err := os.WriteFile(to, mustRead(t, from), 0o600); err != nil {
		t.Fatal(err)
	}
}
