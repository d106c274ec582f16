package sockets

import (
	"net"
	"os"
	"path/filepath"
	"strconv"
)

// Loops reports whether connecting to to would reach ln itself, so that a
// proxy listening on ln and forwarding to to would forward each
// connection to itself.
//
// For a Unix socket, to must name the listener's file: the same path once
// cleaned and made absolute, or the same file. For TCP, to must have the
// listener's port and a host that resolves to an address the listener
// accepts on: the listener's own IP or, for a listener on the unspecified
// address, a loopback address or an address of one of the local
// interfaces. A host that does not resolve does not loop. An empty or
// unspecified host stands for the local system, as in [net.Dial].
//
// Loops may look the host up in DNS.
func Loops(ln net.Listener, to Addr) bool {
	switch la := ln.Addr().(type) {
	case *net.UnixAddr:
		return to.Network == "unix" && samePath(la.Name, to.Address)
	case *net.TCPAddr:
		return to.Network == "tcp" && tcpLoops(la, to.Address)
	}
	return false
}

// samePath reports whether two paths name the same file.
func samePath(a, b string) bool {
	if a == "" || b == "" {
		return false
	}
	absA, errA := filepath.Abs(a)
	absB, errB := filepath.Abs(b)
	if errA == nil && errB == nil && absA == absB {
		return true
	}
	fa, errA := os.Stat(a)
	fb, errB := os.Stat(b)
	return errA == nil && errB == nil && os.SameFile(fa, fb)
}

// tcpLoops reports whether dialing hostport reaches a listener on la.
func tcpLoops(la *net.TCPAddr, hostport string) bool {
	host, portText, err := net.SplitHostPort(hostport)
	if err != nil {
		return false
	}
	if port, err := strconv.Atoi(portText); err != nil || port != la.Port {
		return false
	}
	var ips []net.IP
	if ip := net.ParseIP(host); ip != nil {
		ips = []net.IP{ip}
	} else if host == "" {
		ips = []net.IP{net.IPv4zero}
	} else {
		ips, err = net.LookupIP(host)
		if err != nil {
			return false
		}
	}
	for _, ip := range ips {
		// Dialing an unspecified address reaches the loopback address.
		if ip.IsUnspecified() {
			if ip.To4() != nil {
				ip = net.IPv4(127, 0, 0, 1)
			} else {
				ip = net.IPv6loopback
			}
		}
		if ip.Equal(la.IP) {
			return true
		}
		if la.IP == nil || la.IP.IsUnspecified() {
			if ip.IsLoopback() || isLocal(ip) {
				return true
			}
		}
	}
	return false
}

// isLocal reports whether ip is an address of one of the local
// interfaces.
func isLocal(ip net.IP) bool {
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		return false
	}
	for _, a := range addrs {
		if n, ok := a.(*net.IPNet); ok && n.IP.Equal(ip) {
			return true
		}
	}
	return false
}
