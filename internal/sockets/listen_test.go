//go:build unix

package sockets

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/pqkem/pqkem/internal/leaktest"
)

// shortDir returns a temporary directory whose path leaves room for a
// socket name within the 104 to 108 bytes of sun_path.
func shortDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if len(dir) <= 80 {
		return dir
	}
	dir, err := os.MkdirTemp("", "s")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}

// roundTrip dials ln through to and checks that a byte written by the
// accepted side arrives.
func roundTrip(t *testing.T, ln net.Listener, to Addr) {
	t.Helper()
	accepted := make(chan error, 1)
	go func() {
		c, err := ln.Accept()
		if err != nil {
			accepted <- err
			return
		}
		_, err = c.Write([]byte("x"))
		c.Close()
		accepted <- err
	}()
	c, err := Dial(context.Background(), to)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	got, err := io.ReadAll(c)
	if err != nil || string(got) != "x" {
		t.Errorf("read %q, %v; want %q", got, err, "x")
	}
	if err := <-accepted; err != nil {
		t.Error(err)
	}
}

func TestListenDialTCP(t *testing.T) {
	leaktest.Check(t)
	ln, err := Listen(Addr{Network: "tcp", Address: "127.0.0.1:0"})
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	roundTrip(t, ln, Addr{Network: "tcp", Address: ln.Addr().String()})
}

func TestListenDialUnix(t *testing.T) {
	leaktest.Check(t)
	path := filepath.Join(shortDir(t), "a.sock")
	ln, err := Listen(Addr{Network: "unix", Address: path})
	if err != nil {
		t.Fatal(err)
	}
	roundTrip(t, ln, Addr{Network: "unix", Address: path})
	if err := ln.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(path); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("after Close: %v, want the socket file removed", err)
	}
}

func TestListenUnixStale(t *testing.T) {
	leaktest.Check(t)
	path := filepath.Join(shortDir(t), "a.sock")
	old, err := net.ListenUnix("unix", &net.UnixAddr{Name: path, Net: "unix"})
	if err != nil {
		t.Fatal(err)
	}
	// A process that ended leaves its socket file behind.
	old.SetUnlinkOnClose(false)
	old.Close()
	ln, err := Listen(Addr{Network: "unix", Address: path})
	if err != nil {
		t.Fatalf("over a stale socket: %v", err)
	}
	defer ln.Close()
	roundTrip(t, ln, Addr{Network: "unix", Address: path})
}

func TestListenUnixRefused(t *testing.T) {
	dir := shortDir(t)
	live := filepath.Join(dir, "live.sock")
	ln, err := net.Listen("unix", live)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	regular := filepath.Join(dir, "file")
	if err := os.WriteFile(regular, []byte("keep"), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		path, want string
	}{
		{live, "sockets: cannot listen on unix:" + live + ": another process is listening on it"},
		{regular, "sockets: cannot listen on unix:" + regular + ": the file exists and is not a socket"},
		{dir, "sockets: cannot listen on unix:" + dir + ": the file exists and is not a socket"},
		{filepath.Join(dir, "missing", "a.sock"), "sockets: listen unix " + filepath.Join(dir, "missing", "a.sock") + ": bind: no such file or directory"},
	}
	for _, tt := range tests {
		l, err := Listen(Addr{Network: "unix", Address: tt.path})
		if err == nil {
			l.Close()
			t.Errorf("Listen(unix:%s) succeeded, want an error", tt.path)
			continue
		}
		if err.Error() != tt.want {
			t.Errorf("Listen(unix:%s) error\n%s\nwant\n%s", tt.path, err, tt.want)
		}
	}
	if b, err := os.ReadFile(regular); err != nil || string(b) != "keep" {
		t.Errorf("the regular file now holds %q, %v", b, err)
	}
	if _, err := os.Lstat(live); err != nil {
		t.Errorf("the live socket: %v", err)
	}
}

func TestListenFD(t *testing.T) {
	leaktest.Check(t)
	tl, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	f, err := tl.(*net.TCPListener).File()
	tl.Close()
	if err != nil {
		t.Fatal(err)
	}
	// Listen takes over the descriptor it is given, so it gets one that
	// no *os.File owns.
	fd, err := syscall.Dup(int(f.Fd()))
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	a, err := Parse("fd:" + strconv.Itoa(fd))
	if err != nil {
		t.Fatal(err)
	}
	ln, err := Listen(a)
	if err != nil {
		syscall.Close(fd)
		t.Fatal(err)
	}
	defer ln.Close()
	roundTrip(t, ln, Addr{Network: "tcp", Address: ln.Addr().String()})
}

func TestListenFDNotSocket(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	fd := strconv.Itoa(int(r.Fd()))
	tests := []struct {
		fd, want string
	}{
		{fd, "sockets: fd:" + fd + ": descriptor " + fd + " is not a socket"},
		{"99999", "sockets: fd:99999: descriptor 99999: bad file descriptor"},
	}
	for _, tt := range tests {
		ln, err := Listen(Addr{Network: "fd", Address: tt.fd})
		if err == nil {
			ln.Close()
			t.Errorf("Listen(fd:%s) succeeded", tt.fd)
		} else if err.Error() != tt.want {
			t.Errorf("Listen(fd:%s) error\n%s\nwant\n%s", tt.fd, err, tt.want)
		}
	}
	// The pipe is still open.
	if _, err := w.Write([]byte("x")); err != nil {
		t.Fatal(err)
	}
	var b [1]byte
	if _, err := r.Read(b[:]); err != nil {
		t.Fatalf("the descriptor was closed: %v", err)
	}
}

func TestListenInvalid(t *testing.T) {
	for _, a := range []Addr{{}, {Network: "udp", Address: ":53"}, {Network: "fd", Address: "1"}, {Network: "fd", Address: "x"}} {
		if ln, err := Listen(a); err == nil {
			ln.Close()
			t.Errorf("Listen(%+v) succeeded", a)
		} else if !strings.HasPrefix(err.Error(), "sockets: ") {
			t.Errorf("Listen(%+v) error %q", a, err)
		}
	}
}

func TestDialInvalid(t *testing.T) {
	for _, a := range []Addr{{}, {Network: "fd", Address: "3"}, {Network: "systemd"}} {
		if c, err := Dial(context.Background(), a); err == nil {
			c.Close()
			t.Errorf("Dial(%+v) succeeded", a)
		} else if !strings.HasPrefix(err.Error(), "sockets: cannot connect to ") {
			t.Errorf("Dial(%+v) error %q", a, err)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if c, err := Dial(ctx, Addr{Network: "tcp", Address: "127.0.0.1:1"}); err == nil {
		c.Close()
		t.Error("Dial with a canceled context succeeded")
	}
}

// The environment of socket activation is refused, in this process,
// before any descriptor is touched.
func TestListenSystemdRefused(t *testing.T) {
	pid := strconv.Itoa(os.Getpid())
	tests := []struct {
		name     string
		pid, fds string // "-" for unset
		want     string
	}{
		{"unset", "-", "-", "sockets: systemd: LISTEN_PID or LISTEN_FDS is not set: the process was not started by socket activation"},
		{"no LISTEN_FDS", pid, "-", "sockets: systemd: LISTEN_PID or LISTEN_FDS is not set: the process was not started by socket activation"},
		{"another process", "1", "1", "sockets: systemd: LISTEN_PID=1 is another process's, this is " + pid},
		{"bad LISTEN_PID", "x", "1", `sockets: systemd: LISTEN_PID="x" is not a number`},
		{"bad LISTEN_FDS", pid, "one", `sockets: systemd: LISTEN_FDS="one" is not a number`},
		{"no sockets", pid, "0", "sockets: systemd: LISTEN_FDS=0: no socket was passed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			setenv(t, "LISTEN_PID", tt.pid)
			setenv(t, "LISTEN_FDS", tt.fds)
			setenv(t, "LISTEN_FDNAMES", "name")
			ln, err := Listen(Addr{Network: "systemd"})
			if err == nil {
				ln.Close()
				t.Fatal("Listen(systemd) succeeded")
			}
			if err.Error() != tt.want {
				t.Errorf("error\n%s\nwant\n%s", err, tt.want)
			}
			for _, k := range []string{"LISTEN_PID", "LISTEN_FDS", "LISTEN_FDNAMES"} {
				if v, ok := os.LookupEnv(k); ok {
					t.Errorf("%s=%q is still set", k, v)
				}
			}
		})
	}
}

// setenv sets k to v for the test, or unsets it for "-".
func setenv(t *testing.T, k, v string) {
	t.Setenv(k, v)
	if v == "-" {
		os.Unsetenv(k)
	}
}

// TestListenSystemd passes a listening socket as descriptor 3 to a
// process of its own, the test binary running TestHelperSystemd, with
// the environment of socket activation.
func TestListenSystemd(t *testing.T) {
	leaktest.Check(t)
	tests := []struct {
		name   string
		env    []string
		accept bool
		want   string
	}{
		{"activated", []string{"SOCKETS_TEST_SET_PID=1", "LISTEN_FDS=1", "LISTEN_FDNAMES=pqkem.socket"}, true, "helper: accepted\n"},
		{"another process", []string{"LISTEN_PID=1", "LISTEN_FDS=1"}, false, "helper: sockets: systemd: LISTEN_PID=1 is another process's, this is "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tl, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			f, err := tl.(*net.TCPListener).File()
			if err != nil {
				tl.Close()
				t.Fatal(err)
			}
			cmd := exec.Command(os.Args[0], "-test.run=^TestHelperSystemd$")
			cmd.ExtraFiles = []*os.File{f} // descriptor 3
			for _, kv := range os.Environ() {
				if !strings.HasPrefix(kv, "LISTEN_") {
					cmd.Env = append(cmd.Env, kv)
				}
			}
			// The race detector's second at exit is not needed here.
			cmd.Env = append(cmd.Env, "SOCKETS_TEST_HELPER=1", "GORACE="+os.Getenv("GORACE")+" atexit_sleep_ms=0")
			cmd.Env = append(cmd.Env, tt.env...)
			var out bytes.Buffer
			cmd.Stdout = &out
			cmd.Stderr = &out
			err = cmd.Start()
			// Only the child holds the socket now: if it ends without
			// accepting, the connection below is reset instead of
			// waiting forever.
			f.Close()
			tl.Close()
			if errors.Is(err, syscall.ENOEXEC) {
				// Under qemu-user without binfmt_misc (CI's arm64 and s390x
				// steps), the emulated test binary cannot start itself. The
				// host's go test runs this test.
				t.Skipf("the test binary cannot start itself here: %v", err)
			}
			if err != nil {
				t.Fatal(err)
			}
			if tt.accept {
				c, err := net.Dial("tcp", tl.Addr().String())
				if err != nil {
					t.Error(err)
				} else {
					got, err := io.ReadAll(c)
					c.Close()
					if want := "hello from " + strconv.Itoa(cmd.Process.Pid); string(got) != want || err != nil {
						t.Errorf("read %q, %v; want %q", got, err, want)
					}
				}
			}
			if err := cmd.Wait(); err != nil {
				t.Errorf("helper: %v", err)
			}
			if !strings.Contains(out.String(), tt.want) {
				t.Errorf("helper's output:\n%s\nwant %q", out.String(), tt.want)
			}
		})
	}
}

// TestHelperSystemd is the process TestListenSystemd starts; run alone it
// does nothing. It reports on its standard output in lines that start
// with "helper: ".
func TestHelperSystemd(t *testing.T) {
	if os.Getenv("SOCKETS_TEST_HELPER") != "1" {
		t.Skip("the process TestListenSystemd starts")
	}
	// systemd sets LISTEN_PID to the process it starts, whose id its
	// parent, the test, cannot know before starting it.
	if os.Getenv("SOCKETS_TEST_SET_PID") == "1" {
		os.Setenv("LISTEN_PID", strconv.Itoa(os.Getpid()))
	}
	ln, err := Listen(Addr{Network: "systemd"})
	for _, k := range []string{"LISTEN_PID", "LISTEN_FDS", "LISTEN_FDNAMES"} {
		if v, ok := os.LookupEnv(k); ok {
			fmt.Printf("helper: %s=%q is still set\n", k, v)
		}
	}
	if err != nil {
		fmt.Printf("helper: %v\n", err)
		return
	}
	defer ln.Close()
	c, err := ln.Accept()
	if err != nil {
		fmt.Printf("helper: %v\n", err)
		return
	}
	defer c.Close()
	if _, err := fmt.Fprintf(c, "hello from %d", os.Getpid()); err != nil {
		fmt.Printf("helper: %v\n", err)
		return
	}
	fmt.Println("helper: accepted")
}
