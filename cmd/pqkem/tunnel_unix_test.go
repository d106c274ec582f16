//go:build unix

package main

import (
	"io"
	"net"
	"os"
	"os/signal"
	"path/filepath"
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
