package main

import (
	"fmt"
	"net"
	"strings"

	"github.com/pqkem/pqkem/internal/cli"
	"github.com/pqkem/pqkem/internal/sockets"
)

// parseListenAddr parses -listen: HOST:PORT, unix:PATH, fd:N or systemd.
func parseListenAddr(s string) (sockets.Addr, error) { return parseListen("listen", s) }

// parseListen parses the address to listen on of the flag name. Port 0,
// which sockets.Parse refuses (it is no port to connect to), listens on
// a port the system picks.
func parseListen(name, s string) (sockets.Addr, error) {
	if host, port, err := net.SplitHostPort(s); err == nil && port == "0" && !strings.HasPrefix(s, "unix:") && !strings.HasPrefix(s, "fd:") {
		if _, err := sockets.Parse(net.JoinHostPort(host, "1")); err == nil {
			return sockets.Addr{Network: "tcp", Address: s}, nil
		}
	}
	a, err := sockets.Parse(s)
	if err != nil {
		return a, cli.Usagef("-%s: %s", name, strings.TrimPrefix(err.Error(), "sockets: "))
	}
	return a, nil
}

// parseDialAddr parses the address of the flag name, which is connected
// to: HOST:PORT or unix:PATH.
func parseDialAddr(name, s string) (sockets.Addr, error) {
	a, err := sockets.Parse(s)
	if err != nil {
		return a, cli.Usagef("-%s: %s", name, strings.TrimPrefix(err.Error(), "sockets: "))
	}
	if !a.CanDial() {
		return a, cli.Usagef("-%s %s: cannot connect to it, want HOST:PORT or unix:PATH", name, s)
	}
	return a, nil
}

// listen opens the listener of -listen, and refuses one that -to would
// reach: each connection would be forwarded to the listener itself.
func listen(a, to sockets.Addr) (net.Listener, error) {
	ln, err := sockets.Listen(a)
	if err != nil {
		return nil, fmt.Errorf("-listen: %s", strings.TrimPrefix(err.Error(), "sockets: "))
	}
	if sockets.Loops(ln, to) {
		ln.Close()
		return nil, cli.Usagef("-to %v reaches -listen %v itself: each connection would loop", to, ln.Addr())
	}
	return ln, nil
}
