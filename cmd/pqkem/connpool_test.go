package main

import (
	"net"
	"strings"
	"testing"
	"time"
)

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

// onePeer listens on loopback, runs peer on the first connection it
// accepts and closes that connection, and returns the address. The
// listener closes when the test ends.
func onePeer(t *testing.T, peer func(net.Conn)) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
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
