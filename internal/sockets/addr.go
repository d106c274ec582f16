// Package sockets parses the addresses on which the tunnel listens and to
// which it connects, and opens them: TCP host:port addresses, Unix domain
// sockets ("unix:PATH"), a listening socket inherited as a file descriptor
// ("fd:N"), and the first socket passed by systemd socket activation
// ("systemd", see sd_listen_fds(3)).
package sockets

import (
	"fmt"
	"net"
	"strconv"
	"strings"
)

// An Addr is a parsed address of a socket, as written on the command line.
type Addr struct {
	// Network is "tcp", "unix", "fd" or "systemd".
	Network string
	// Address is a host:port for "tcp", a path for "unix", the number of
	// a file descriptor for "fd" and empty for "systemd".
	Address string
}

// The prefixes of the addresses that are not host:port.
const (
	unixPrefix = "unix:"
	fdPrefix   = "fd:"
	systemd    = "systemd"
)

// minFD is the lowest descriptor "fd:N" accepts: 0, 1 and 2 are standard
// input, output and error.
const minFD = 3

// Parse parses an address in one of these forms:
//
//   - "HOST:PORT", a TCP address: PORT is a number from 1 to 65535, HOST a
//     name, an IPv4 address or an IPv6 address in brackets, or empty for
//     all of the local system's addresses (":9443", for listening);
//   - "unix:PATH", a Unix domain socket at a non-empty PATH;
//   - "fd:N", a listening socket inherited as file descriptor N, from 3;
//   - "systemd", the first socket passed by systemd socket activation.
//
// The prefixes come first: "unix:80" is the socket file "80", not port 80
// of a host named unix.
func Parse(s string) (Addr, error) {
	switch {
	case s == "":
		return Addr{}, fmt.Errorf("sockets: empty address")
	case s == systemd:
		return Addr{Network: "systemd"}, nil
	case strings.HasPrefix(s, unixPrefix):
		path := s[len(unixPrefix):]
		if path == "" {
			return Addr{}, fmt.Errorf("sockets: invalid address %q: empty path", s)
		}
		return Addr{Network: "unix", Address: path}, nil
	case strings.HasPrefix(s, fdPrefix):
		n := s[len(fdPrefix):]
		fd, ok := parseNumber(n)
		if !ok {
			return Addr{}, fmt.Errorf("sockets: invalid address %q: descriptor %q is not a number", s, n)
		}
		if fd < minFD {
			return Addr{}, fmt.Errorf("sockets: invalid address %q: descriptor %d is standard input, output or error, want %d or more", s, fd, minFD)
		}
		return Addr{Network: "fd", Address: n}, nil
	}
	host, port, err := net.SplitHostPort(s)
	if err != nil {
		var why string
		switch {
		case !strings.Contains(s, ":"):
			why = "missing port"
		case net.ParseIP(s[:strings.LastIndex(s, ":")]) != nil:
			why = "an IPv6 address must be in brackets, as in [::1]:443"
		default:
			why = "want HOST:PORT, unix:PATH, fd:N or systemd"
		}
		return Addr{}, fmt.Errorf("sockets: invalid address %q: %s", s, why)
	}
	if strings.ContainsAny(host, " \t\r\n/") {
		return Addr{}, fmt.Errorf("sockets: invalid address %q: invalid host %q", s, host)
	}
	if port == "" {
		return Addr{}, fmt.Errorf("sockets: invalid address %q: missing port", s)
	}
	p, ok := parseNumber(port)
	if !ok {
		return Addr{}, fmt.Errorf("sockets: invalid address %q: port %q is not a number", s, port)
	}
	if p < 1 || p > 65535 {
		return Addr{}, fmt.Errorf("sockets: invalid address %q: port %d is out of range 1-65535", s, p)
	}
	return Addr{Network: "tcp", Address: s}, nil
}

// parseNumber parses s, a decimal number of digits only (no sign), up to
// a million million.
func parseNumber(s string) (int, bool) {
	if s == "" || len(s) > 12 || strings.Trim(s, "0123456789") != "" {
		return 0, false
	}
	n, err := strconv.Atoi(s)
	return n, err == nil
}

// String returns a in the form [Parse] reads.
func (a Addr) String() string {
	switch a.Network {
	case "unix":
		return unixPrefix + a.Address
	case "fd":
		return fdPrefix + a.Address
	case "systemd":
		return systemd
	}
	return a.Address
}

// CanDial reports whether [Dial] can connect to a: whether it is a TCP or
// a Unix socket address. The others can only be listened on.
func (a Addr) CanDial() bool {
	return a.Network == "tcp" || a.Network == "unix"
}
