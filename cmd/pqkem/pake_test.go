package main

import (
	"bytes"
	"context"
	encbin "encoding/binary"
	"errors"
	"io"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/pqkem/pqkem/pake"
)

// Cheap Argon2id costs so that the tests stay fast; both sides use them.
var pakeTestArgs = []string{"-argon2-time", "1", "-argon2-memory", "64", "-argon2-threads", "1", "-timeout", "10s"}

func pakePasswordFile(t *testing.T, pw string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "pw")
	if err := os.WriteFile(p, []byte(pw+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

type pakeResult struct {
	code           int
	stdout, stderr string
}

// startListener runs 'pqkem pake listen' on a free loopback port and
// returns its address and a channel with its result.
func startListener(t *testing.T, args ...string) (string, <-chan pakeResult) {
	t.Helper()
	out, errOut := new(syncBuffer), new(syncBuffer)
	addr, done := startListening(t, append([]string{"pake", "listen", "-addr", "127.0.0.1:0"}, args...), out, errOut)
	res := make(chan pakeResult, 1)
	go func() {
		code := <-done
		res <- pakeResult{code, out.String(), errOut.String()}
	}()
	return addr, res
}

func waitResult(t *testing.T, res <-chan pakeResult) pakeResult {
	t.Helper()
	select {
	case r := <-res:
		return r
	case <-time.After(30 * time.Second):
		t.Fatal("the command hangs")
	}
	return pakeResult{}
}

var fingerprintRE = regexp.MustCompile(`session key fingerprint: ([0-9a-f]{4} [0-9a-f]{4} [0-9a-f]{4} [0-9a-f]{4})\n`)

func TestPakeMatch(t *testing.T) {
	for _, scheme := range []string{"", "NoIC-C1-ML-KEM-512", "Tempo-A1-ML-KEM-1024"} {
		t.Run(scheme, func(t *testing.T) {
			args := append([]string{"-password-file", pakePasswordFile(t, "correct horse battery staple")}, pakeTestArgs...)
			if scheme != "" {
				args = append(args, "-scheme", scheme)
			}
			addr, lres := startListener(t, args...)
			code, cout, cerr := pqkem(t, append([]string{"pake", "connect", "-addr", addr}, args...)...)
			l := waitResult(t, lres)
			if code != exitOK || l.code != exitOK {
				t.Fatalf("connect: %d %s\nlisten: %d %s", code, cerr, l.code, l.stderr)
			}
			fc, fl := fingerprintRE.FindStringSubmatch(cout), fingerprintRE.FindStringSubmatch(l.stdout)
			if fc == nil || fl == nil || fc[1] != fl[1] {
				t.Fatalf("fingerprints differ or missing:\nconnect: %s\nlisten: %s", cout, l.stdout)
			}
			if !strings.Contains(cout, "passwords match") {
				t.Errorf("connect output: %s", cout)
			}
		})
	}
}

func TestPakeMismatch(t *testing.T) {
	addr, lres := startListener(t, append([]string{"-password-file", pakePasswordFile(t, "hunter2")}, pakeTestArgs...)...)
	code, cout, cerr := pqkem(t, append([]string{"pake", "connect", "-addr", addr, "-password-file", pakePasswordFile(t, "hunter3")}, pakeTestArgs...)...)
	l := waitResult(t, lres)
	for _, r := range []pakeResult{{code, cout, cerr}, l} {
		if r.code != exitError || !strings.Contains(r.stderr, "password mismatch") || strings.Contains(r.stdout, "fingerprint") {
			t.Errorf("exit %d, stdout %q, stderr %q; want 1 and \"password mismatch\"", r.code, r.stdout, r.stderr)
		}
	}
	// Different identities look the same as a different password.
	addr, lres = startListener(t, append([]string{"-password-file", pakePasswordFile(t, "hunter2")}, pakeTestArgs...)...)
	code, _, cerr = pqkem(t, append([]string{"pake", "connect", "-addr", addr, "-client", "mallory", "-password-file", pakePasswordFile(t, "hunter2")}, pakeTestArgs...)...)
	l = waitResult(t, lres)
	if code != exitError || l.code != exitError || !strings.Contains(cerr, "password mismatch") || !strings.Contains(l.stderr, "password mismatch") {
		t.Errorf("different identities: %d %q / %d %q", code, cerr, l.code, l.stderr)
	}
}

// TestPakeBadPeer checks that a peer that disconnects, sends garbage,
// speaks another scheme or says nothing gives an error, never a hang; the
// listener reports it and waits for another peer until -timeout.
func TestPakeBadPeer(t *testing.T) {
	pwf := pakePasswordFile(t, "pw")
	base := append([]string{"-password-file", pwf}, pakeTestArgs...)
	quick := append(append([]string(nil), base...), "-timeout", "1s")

	peers := map[string]func(c net.Conn){
		"disconnect":   func(c net.Conn) {},
		"garbage":      func(c net.Conn) { c.Write(bytes.Repeat([]byte{0xff}, 100)) },
		"short frame":  func(c net.Conn) { c.Write([]byte{0, 0, 4, 0, 1, 2, 3}) },
		"empty frame":  func(c net.Conn) { c.Write([]byte{0, 0, 0, 0}) },
		"silent":       func(c net.Conn) { time.Sleep(2 * time.Second) },
		"other scheme": func(c net.Conn) { c.Write(append([]byte{0, 0, 0, 32}, "pqkem pake v1\x00NoIC-C1-ML-KEM-76"...)) },
	}
	for name, peer := range peers {
		t.Run("listen/"+name, func(t *testing.T) {
			addr, lres := startListener(t, quick...)
			c, err := net.Dial("tcp", addr)
			if err != nil {
				t.Fatal(err)
			}
			peer(c)
			c.Close()
			// The listener reports the peer and waits for another until
			// -timeout.
			if l := waitResult(t, lres); l.code != exitError || !strings.Contains(l.stderr, "pqkem pake: "+c.LocalAddr().String()+": ") ||
				!strings.HasSuffix(l.stderr, "pqkem pake: no peer completed the exchange in 1s (1 failed)\n") {
				t.Errorf("listen: exit %d, stderr %q", l.code, l.stderr)
			}
		})
		t.Run("connect/"+name, func(t *testing.T) {
			addr := onePeer(t, peer)
			code, _, cerr := pqkem(t, append([]string{"pake", "connect", "-addr", addr}, quick...)...)
			if code != exitError || cerr == "" {
				t.Errorf("connect: exit %d, stderr %q", code, cerr)
			}
		})
	}
	// A listener that answers msg2 with junk of the right length: the tag
	// fails, so the initiator reports a mismatch.
	t.Run("connect/forged msg2", func(t *testing.T) {
		addr := onePeer(t, func(c net.Conn) {
			buf := make([]byte, 4096)
			c.Read(buf)
			time.Sleep(100 * time.Millisecond)
			c.Write(append([]byte{0, 0, 0x04, 0x60}, make([]byte, 1120)...))
			c.Read(buf)
		})
		code, _, cerr := pqkem(t, append([]string{"pake", "connect", "-addr", addr}, quick...)...)
		if code != exitError || !strings.Contains(cerr, "password mismatch") {
			t.Errorf("connect: exit %d, stderr %q", code, cerr)
		}
	})
	// An initiator without the password: junk msg1 of the right length,
	// then a msg3 of 32 arbitrary bytes. The listener answers msg2 (it
	// never aborts before msg3), rejects msg3, says so with 0x00, and
	// reports a mismatch.
	t.Run("listen/forged msg3", func(t *testing.T) {
		addr, lres := startListener(t, quick...)
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		s := pake.Default()
		c.Write(pakeFrame([]byte("pqkem pake v1\x00" + s.Name())))
		c.Write(pakeFrame(bytes.Repeat([]byte{0x5a}, s.Msg1Size())))
		msg2 := make([]byte, 4+s.Msg2Size())
		if _, err := io.ReadFull(c, msg2); err != nil {
			t.Fatalf("reading msg2: %v", err)
		}
		c.Write(pakeFrame(make([]byte, pake.Msg3Size)))
		verdict := make([]byte, 5)
		if _, err := io.ReadFull(c, verdict); err != nil || !bytes.Equal(verdict, []byte{0, 0, 0, 1, 0}) {
			t.Errorf("verdict %x, %v; want a frame of 0x00", verdict, err)
		}
		if l := waitResult(t, lres); l.code != exitError || !strings.Contains(l.stderr, "password mismatch") || strings.Contains(l.stdout, "fingerprint") {
			t.Errorf("listen: exit %d, stdout %q, stderr %q", l.code, l.stdout, l.stderr)
		}
	})
	// Nobody listening.
	addr := closedAddr(t)
	if code, _, _ := pqkem(t, append([]string{"pake", "connect", "-addr", addr}, quick...)...); code != exitError {
		t.Errorf("connect to a closed port: exit %d", code)
	}
}

func TestPakeUsage(t *testing.T) {
	pwf := pakePasswordFile(t, "pw")
	for _, tc := range []struct {
		args   []string
		stderr string
	}{
		{[]string{"pake"}, "needs a subcommand"},
		{[]string{"pake", "dance"}, `unknown pake subcommand "dance"`},
		{[]string{"pake", "listen", "-scheme", "NoIC-A0-ML-KEM-768", "-password-file", pwf}, "variable-time"},
		{[]string{"pake", "listen", "-scheme", "Tempo-C1-ML-KEM-999", "-password-file", pwf}, "pqkem pake: -scheme: unknown scheme"},
		{[]string{"pake", "connect", "-nope"}, "flag provided but not defined"},
		{[]string{"pake", "listen", "-bogus"}, "flag provided but not defined"},
		{[]string{"pake", "connect", "extra", "-password-file", pwf}, `unexpected argument "extra"`},
		{[]string{"pake", "connect", "-timeout", "0s", "-password-file", pwf}, "-timeout"},
	} {
		code, stdout, stderr := pqkem(t, tc.args...)
		if code != exitUsage || !strings.Contains(stderr, tc.stderr) || stdout != "" {
			t.Errorf("pqkem %s: exit %d, stderr %q; want 2 and %q", strings.Join(tc.args, " "), code, stderr, tc.stderr)
		}
		// Said once, without a stutter of package names.
		if first, _, _ := strings.Cut(stderr, "\n"); strings.Count(stderr, first) != 1 || strings.Contains(stderr, "pake: pake:") {
			t.Errorf("pqkem %s: stderr repeats itself: %q", strings.Join(tc.args, " "), stderr)
		}
	}
	if code, stdout, _ := pqkem(t, "pake", "-h"); code != exitOK || !strings.Contains(stdout, "pqkem pake listen") {
		t.Errorf("pake -h: %d %q", code, stdout)
	}
	if code, stdout, _ := pqkem(t, "pake", "listen", "-h"); code != exitOK || !strings.Contains(stdout, "-password-file") {
		t.Errorf("pake listen -h: %d %q", code, stdout)
	}
	// An empty password file is an operational error.
	empty := filepath.Join(t.TempDir(), "empty")
	os.WriteFile(empty, []byte("\n"), 0o600)
	if code, _, stderr := pqkem(t, "pake", "connect", "-password-file", empty); code != exitError || !strings.Contains(stderr, "empty password") {
		t.Errorf("empty password: %d %q", code, stderr)
	}
}

// pakeFrame is a frame of the wire format.
func pakeFrame(b []byte) []byte {
	return append(encbin.BigEndian.AppendUint32(nil, uint32(len(b))), b...)
}

// TestPakeListenIdleAndSlowPeers checks that an idle peer and a slow one,
// connected first, do not cost the real peer its exchange.
func TestPakeListenIdleAndSlowPeers(t *testing.T) {
	args := append([]string{"-password-file", pakePasswordFile(t, "pw")}, pakeTestArgs...)
	addr, lres := startListener(t, args...)
	idle, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer idle.Close()
	slow, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer slow.Close()
	stopSlow := make(chan struct{})
	defer close(stopSlow)
	go func() {
		// A byte of the hello every 100 ms.
		for _, b := range pakeFrame([]byte("pqkem pake v1\x00" + pake.Default().Name())) {
			select {
			case <-stopSlow:
				return
			case <-time.After(100 * time.Millisecond):
			}
			slow.Write([]byte{b})
		}
	}()
	time.Sleep(200 * time.Millisecond) // both are served before the real peer connects
	code, cout, cerr := pqkem(t, append([]string{"pake", "connect", "-addr", addr}, args...)...)
	l := waitResult(t, lres)
	if code != exitOK || l.code != exitOK {
		t.Fatalf("behind an idle and a slow peer:\nconnect: %d %s\nlisten: %d %s", code, cerr, l.code, l.stderr)
	}
	fc, fl := fingerprintRE.FindStringSubmatch(cout), fingerprintRE.FindStringSubmatch(l.stdout)
	if fc == nil || fl == nil || fc[1] != fl[1] {
		t.Fatalf("fingerprints differ or missing:\nconnect: %s\nlisten: %s", cout, l.stdout)
	}
}

// TestPakeListenDeadline checks that -timeout bounds a peer's whole
// exchange, not each message: a peer that sends each frame well within
// -timeout, but not all of them, is cut off at -timeout and gets no msg2.
func TestPakeListenDeadline(t *testing.T) {
	const timeout = 2 * time.Second
	args := append([]string{"-password-file", pakePasswordFile(t, "pw")}, pakeTestArgs...)
	addr, lres := startListener(t, append(args, "-timeout", timeout.String())...)
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	s := pake.Default()
	time.Sleep(timeout * 3 / 4)
	c.Write(pakeFrame([]byte("pqkem pake v1\x00" + s.Name())))
	time.Sleep(timeout * 3 / 4)
	c.Write(pakeFrame(bytes.Repeat([]byte{0x5a}, s.Msg1Size())))
	c.SetReadDeadline(time.Now().Add(10 * time.Second))
	if n, err := c.Read(make([]byte, 16)); err == nil {
		t.Errorf("after %v, past -timeout %v: the listener answered %d bytes", timeout*3/2, timeout, n)
	}
	l := waitResult(t, lres)
	if l.code != exitError || !strings.Contains(l.stderr, "timed out waiting for msg1 (-timeout is for the whole exchange)") {
		t.Errorf("listen: exit %d, stderr %q", l.code, l.stderr)
	}
}

// TestPakeListenAttempts checks that the listener sends at most
// pakeMaxAttempts msg2s to peers that then do not confirm, each of which
// could test a password with it, and then stops: it accepts no further
// connection once the last msg2 is sent, even while that exchange goes
// on.
func TestPakeListenAttempts(t *testing.T) {
	addr, lres := startListener(t, append([]string{"-password-file", pakePasswordFile(t, "pw")}, pakeTestArgs...)...)
	s := pake.Default()
	var last net.Conn
	for i := range pakeMaxAttempts {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatalf("peer %d: %v", i+1, err)
		}
		defer c.Close()
		c.Write(pakeFrame([]byte("pqkem pake v1\x00" + s.Name())))
		c.Write(pakeFrame(bytes.Repeat([]byte{0x5a}, s.Msg1Size())))
		c.SetReadDeadline(time.Now().Add(10 * time.Second))
		if _, err = io.ReadFull(c, make([]byte, 4+s.Msg2Size())); err != nil {
			t.Fatalf("peer %d: no msg2: %v", i+1, err)
		}
		if i < pakeMaxAttempts-1 {
			c.Close()
		}
		last = c
	}
	// The last peer that got a msg2 has not answered yet.
	if c, err := net.Dial("tcp", addr); err == nil {
		c.Close()
		t.Errorf("a connection is accepted after %d msg2s", pakeMaxAttempts)
	}
	last.Close()
	if l := waitResult(t, lres); l.code != exitError || !strings.Contains(l.stderr, "did not confirm a key") {
		t.Errorf("listen: exit %d, stderr %q", l.code, l.stderr)
	}
}

// TestPakePasswordFile checks the errors about -password-file: one line,
// naming the flag, and a first line longer than maxPassword refused
// without reading the rest.
func TestPakePasswordFile(t *testing.T) {
	dir := t.TempDir()
	long := filepath.Join(dir, "long")
	os.WriteFile(long, append(bytes.Repeat([]byte{'a'}, maxPassword+1), '\n'), 0o600)
	for _, tc := range []struct{ file, want string }{
		{filepath.Join(dir, "missing"), "pqkem pake: -password-file " + filepath.Join(dir, "missing") + ": no such file or directory\n"},
		{dir, "pqkem pake: -password-file " + dir + ": is a directory, want a file\n"},
		{long, "pqkem pake: -password-file " + long + ": the first line is longer than 1024 bytes\n"},
	} {
		code, stdout, stderr := pqkem(t, append([]string{"pake", "connect", "-password-file", tc.file}, pakeTestArgs...)...)
		if code != exitError || stderr != tc.want || stdout != "" {
			t.Errorf("-password-file %s: exit %d, stderr %q; want 1 and %q", tc.file, code, stderr, tc.want)
		}
	}
	if _, err := os.Stat("/dev/zero"); err == nil {
		code, _, stderr := pqkem(t, append([]string{"pake", "connect", "-password-file", "/dev/zero"}, pakeTestArgs...)...)
		if code != exitError || !strings.Contains(stderr, "longer than 1024 bytes") {
			t.Errorf("-password-file /dev/zero: exit %d, stderr %q", code, stderr)
		}
	}
	// A first line of exactly maxPassword bytes, followed by more, is
	// the password: the command goes on to connect (to a closed port).
	ok := filepath.Join(dir, "ok")
	os.WriteFile(ok, append(append(bytes.Repeat([]byte{'a'}, maxPassword), "\r\n"...), bytes.Repeat([]byte{'b'}, 1<<20)...), 0o600)
	addr := closedAddr(t)
	code, _, stderr := pqkem(t, append([]string{"pake", "connect", "-addr", addr, "-password-file", ok}, pakeTestArgs...)...)
	if code != exitError || strings.Contains(stderr, "password") || !strings.Contains(stderr, "connect") {
		t.Errorf("a 1024-byte password: exit %d, stderr %q; want a connection error", code, stderr)
	}
}

// TestPakeWireCompat runs the command's listener and connecting side
// against package pake's Client and Server on loopback, with the same and
// with different passwords: the two speak one wire format.
func TestPakeWireCompat(t *testing.T) {
	s := pake.Default()
	kdf := &pake.Argon2Params{Time: 1, Memory: 64, Threads: 1}
	creds := func(pw string) *pake.Credentials {
		c, err := pake.NewCredentials(s, []byte(pw), "client", "server", kdf)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	for _, pw := range []string{"pw", "other"} {
		for _, cmdIsServer := range []bool{true, false} {
			ln := listenLoopback(t)
			type res struct {
				key []byte
				err error
			}
			ch := make(chan res, 1)
			go func() {
				c, err := ln.Accept()
				ln.Close()
				if err != nil {
					ch <- res{nil, err}
					return
				}
				defer c.Close()
				c.SetDeadline(time.Now().Add(10 * time.Second))
				var r res
				if cmdIsServer {
					r.key, r.err = pakeRespondCompat(c, creds("pw"))
				} else {
					r.key, r.err = pake.Server(context.Background(), c, &pake.Config{Credentials: creds("pw"), Timeout: 10 * time.Second})
				}
				ch <- r
			}()
			c, err := net.Dial("tcp", ln.Addr().String())
			if err != nil {
				t.Fatal(err)
			}
			c.SetDeadline(time.Now().Add(10 * time.Second))
			var key []byte
			if cmdIsServer {
				key, err = pake.Client(context.Background(), c, &pake.Config{Credentials: creds(pw), Timeout: 10 * time.Second})
			} else {
				key, err = pakeInitiateCompat(c, creds(pw))
			}
			c.Close()
			r := <-ch
			if pw == "pw" {
				if err != nil || r.err != nil || len(key) != 32 || !bytes.Equal(key, r.key) {
					t.Errorf("command as server %v: client %x, %v; server %x, %v", cmdIsServer, key, err, r.key, r.err)
				}
			} else if !pakeIsMismatch(err) || !pakeIsMismatch(r.err) {
				t.Errorf("command as server %v, wrong password: client %v; server %v", cmdIsServer, err, r.err)
			}
		}
	}
}

func pakeIsMismatch(err error) bool {
	return errors.Is(err, pake.ErrPasswordMismatch) || errors.Is(err, errPakeMismatch)
}

// TestPakeOut checks -out: both sides write the same 32-byte key with
// mode 0600, a mismatch writes nothing, an existing file needs -force
// (checked before the exchange), and - puts the key on standard output
// and the other lines on standard error.
func TestPakeOut(t *testing.T) {
	dir := t.TempDir()
	pw := pakePasswordFile(t, "pw")
	args := append([]string{"-password-file", pw}, pakeTestArgs...)
	lkey, ckey := filepath.Join(dir, "l.key"), filepath.Join(dir, "c.key")
	addr, lres := startListener(t, append(args, "-out", lkey)...)
	code, cout, cerr := pqkem(t, append([]string{"pake", "connect", "-addr", addr, "-out", ckey}, args...)...)
	l := waitResult(t, lres)
	if code != exitOK || l.code != exitOK {
		t.Fatalf("connect: %d %s\nlisten: %d %s", code, cerr, l.code, l.stderr)
	}
	kl, err1 := os.ReadFile(lkey)
	kc, err2 := os.ReadFile(ckey)
	if err1 != nil || err2 != nil || len(kl) != pake.SessionKeySize || !bytes.Equal(kl, kc) {
		t.Fatalf("keys: %x %v / %x %v", kl, err1, kc, err2)
	}
	if fc := fingerprintRE.FindStringSubmatch(cout); fc == nil || fc[1] != pakeFingerprint(kc) {
		t.Errorf("the fingerprint is not the key's: %q", cout)
	}
	for _, p := range []string{lkey, ckey} {
		if fi, err := os.Stat(p); err != nil || fi.Mode().Perm() != 0o600 {
			t.Errorf("%s: %v, %v; want mode 0600", p, fi.Mode(), err)
		}
	}

	// An existing file without -force: refused before anything else.
	code, _, cerr = pqkem(t, append([]string{"pake", "connect", "-addr", "127.0.0.1:1", "-out", ckey}, args...)...)
	if code != exitError || !strings.Contains(cerr, "-force") {
		t.Errorf("existing -out: exit %d, stderr %q", code, cerr)
	}
	// The password file is an input: it cannot be the output.
	code, _, cerr = pqkem(t, append([]string{"pake", "connect", "-addr", "127.0.0.1:1", "-out", pw, "-force"}, args...)...)
	if code != exitUsage {
		t.Errorf("-out the password file: exit %d, stderr %q", code, cerr)
	}

	// A mismatch writes no file.
	none := filepath.Join(dir, "none")
	addr, lres = startListener(t, append(args, "-out", none)...)
	code, _, _ = pqkem(t, append([]string{"pake", "connect", "-addr", addr, "-password-file", pakePasswordFile(t, "other"), "-out", none + "2"}, pakeTestArgs...)...)
	if l := waitResult(t, lres); code != exitError || l.code != exitError {
		t.Fatalf("mismatch: exit %d and %d", code, l.code)
	}
	for _, p := range []string{none, none + "2"} {
		if _, err := os.Stat(p); err == nil {
			t.Errorf("%s written after a mismatch", p)
		}
	}

	// -out -: the key alone on standard output.
	addr, lres = startListener(t, args...)
	code, cout, cerr = pqkem(t, append([]string{"pake", "connect", "-addr", addr, "-out", "-"}, args...)...)
	l = waitResult(t, lres)
	if code != exitOK || len(cout) != pake.SessionKeySize || !strings.Contains(cerr, "session key fingerprint: "+pakeFingerprint([]byte(cout))) {
		t.Errorf("-out -: exit %d, stdout %x, stderr %q", code, cout, cerr)
	}
	if fl := fingerprintRE.FindStringSubmatch(l.stdout); fl == nil || fl[1] != pakeFingerprint([]byte(cout)) {
		t.Errorf("the listener's fingerprint differs: %q", l.stdout)
	}
}

// TestPakeSchemeMismatch checks that a listener names the peer's scheme
// and the flag to change.
func TestPakeSchemeMismatch(t *testing.T) {
	base := append([]string{"-password-file", pakePasswordFile(t, "pw")}, pakeTestArgs...)
	addr, lres := startListener(t, append(base, "-timeout", "1s")...)
	code, _, cerr := pqkem(t, append([]string{"pake", "connect", "-addr", addr, "-scheme", "NoIC-C1-ML-KEM-512"}, base...)...)
	l := waitResult(t, lres)
	if code != exitError || cerr == "" {
		t.Errorf("connect: exit %d, stderr %q", code, cerr)
	}
	if !strings.Contains(l.stderr, `scheme mismatch: the peer uses "NoIC-C1-ML-KEM-512", this side "Tempo-C1-ML-KEM-768" (see -scheme)`) {
		t.Errorf("listen: stderr %q", l.stderr)
	}
}
