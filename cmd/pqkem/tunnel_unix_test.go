//go:build unix

package main

import (
	"io"
	"net"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"
)

func init() {
	// The signal package starts its goroutine at the first Notify: start
	// it now, so that goroutine-leak checks do not count it.
	c := make(chan os.Signal, 1)
	signal.Notify(c, syscall.SIGHUP)
	signal.Stop(c)
}

var listeningRE = regexp.MustCompile(`listening on (\S+), `)

// startServe runs pqkem serve with args in a process of its own and
// returns it, the address it listens on, and its log lines.
func startServe(t *testing.T, args ...string) (*exec.Cmd, string, <-chan string) {
	t.Helper()
	cmd := command(t, append([]string{"serve", "-listen", "127.0.0.1:0"}, args...)...)
	addr, lines := startProcess(t, cmd)
	return cmd, addr, lines
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

// TestTunnelSignal checks that SIGTERM and SIGINT stop pqkem serve
// gracefully: no new connections, the open ones go on for -grace, then
// are closed; exit status 0.
func TestTunnelSignal(t *testing.T) {
	dir := t.TempDir()
	tunnelKeys(t, dir, "ML-KEM-768", "server")
	echo := echoService(t)
	key := filepath.Join(dir, "server.pem")

	// The open connection ends within -grace.
	cmd, addr, lines := startServe(t, "-key", key, "-to", echo, "-grace", "10s")
	c := dialNoise(t, dir, addr)
	roundTrip(t, c, "before")
	cmd.Process.Signal(syscall.SIGTERM)
	waitLine(t, lines, "terminated: stopping: no new connections, 1 open may finish within 10s")
	if nc, err := net.DialTimeout("tcp", addr, time.Second); err == nil {
		nc.Close()
		t.Error("a new connection is accepted after SIGTERM")
	}
	roundTrip(t, c, "during the grace period")
	c.Close()
	// The server stops as soon as the connection has ended: the next
	// lines are its close and "stopped", not "closing the 1 connections
	// still open after 10s".
	l := nextLine(t, lines)
	if strings.Contains(l, ": closed after ") {
		l = nextLine(t, lines)
	}
	if !strings.HasSuffix(l, " stopped") {
		t.Errorf("after the last connection ended within -grace, the log says %q, want \"stopped\"", l)
	}
	if err := cmd.Wait(); err != nil {
		t.Errorf("after SIGTERM: %v, want exit status 0", err)
	}

	// The open connection outlasts -grace, and is closed.
	cmd, addr, lines = startServe(t, "-key", key, "-to", echo, "-grace", "200ms")
	c = dialNoise(t, dir, addr)
	defer c.Close()
	roundTrip(t, c, "before")
	cmd.Process.Signal(syscall.SIGINT)
	waitLine(t, lines, "interrupt: stopping")
	waitLine(t, lines, "cutting 1 connection still open after 200ms")
	c.SetDeadline(time.Now().Add(5 * time.Second))
	if _, err := io.ReadAll(c); err != nil && !strings.Contains(err.Error(), "reset") {
		t.Errorf("the connection after -grace: %v, want it closed", err)
	}
	waitLine(t, lines, "stopped")
	if err := cmd.Wait(); err != nil {
		t.Errorf("after SIGINT: %v, want exit status 0", err)
	}
}
