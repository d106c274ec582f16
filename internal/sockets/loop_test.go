//go:build unix

package sockets

import (
	"net"
	"os"
	"path/filepath"
	"strconv"
	"testing"
)

func TestLoops(t *testing.T) {
	wild, err := net.Listen("tcp", ":0")
	if err != nil {
		t.Fatal(err)
	}
	defer wild.Close()
	lo, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer lo.Close()
	dir := shortDir(t)
	sock := filepath.Join(dir, "a.sock")
	ux, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer ux.Close()
	if err := os.Symlink(sock, filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}

	anyPort := strconv.Itoa(wild.Addr().(*net.TCPAddr).Port)
	loPort := strconv.Itoa(lo.Addr().(*net.TCPAddr).Port)
	other := strconv.Itoa(lo.Addr().(*net.TCPAddr).Port%65535 + 1)
	tcp := func(hostport string) Addr { return Addr{Network: "tcp", Address: hostport} }
	unix := func(path string) Addr { return Addr{Network: "unix", Address: path} }
	tests := []struct {
		name string
		ln   net.Listener
		to   Addr
		want bool
	}{
		{"wild to 127.0.0.1", wild, tcp("127.0.0.1:" + anyPort), true},
		{"wild to localhost", wild, tcp("localhost:" + anyPort), true},
		{"wild to empty host", wild, tcp(":" + anyPort), true},
		{"wild to 0.0.0.0", wild, tcp("0.0.0.0:" + anyPort), true},
		{"wild to ::1", wild, tcp("[::1]:" + anyPort), true},
		{"wild to another port", wild, tcp("127.0.0.1:" + other), false},
		{"wild to a remote host", wild, tcp("192.0.2.1:" + anyPort), false},
		{"127.0.0.1 to itself", lo, tcp("127.0.0.1:" + loPort), true},
		{"127.0.0.1 to localhost", lo, tcp("localhost:" + loPort), true},
		{"127.0.0.1 to empty host", lo, tcp(":" + loPort), true},
		{"127.0.0.1 to another port", lo, tcp("127.0.0.1:" + other), false},
		{"127.0.0.1 to 127.0.0.2", lo, tcp("127.0.0.2:" + loPort), false},
		{"127.0.0.1 to ::1", lo, tcp("[::1]:" + loPort), false},
		{"127.0.0.1 to unix", lo, unix(sock), false},
		{"unix to itself", ux, unix(sock), true},
		{"unix to uncleaned path", ux, unix(dir + "/./x/../a.sock"), true},
		{"unix through a symbolic link", ux, unix(filepath.Join(dir, "link")), true},
		{"unix to another path", ux, unix(filepath.Join(dir, "b.sock")), false},
		{"unix to tcp", ux, tcp("127.0.0.1:" + loPort), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Loops(tt.ln, tt.to); got != tt.want {
				t.Errorf("Loops(%v, %v) = %v, want %v", tt.ln.Addr(), tt.to, got, tt.want)
			}
		})
	}

	t.Run("unix relative path", func(t *testing.T) {
		t.Chdir(dir)
		if !Loops(ux, unix("a.sock")) {
			t.Errorf("Loops(%v, unix:a.sock) in %s = false", ux.Addr(), dir)
		}
	})
}
