package tunnel

import (
	"net"
	"net/netip"
	"time"
)

// A connection waits for its peer's first bytes with a buffer of two
// bytes (a frame header's size) before its handshake starts, so that a
// socket that never sends anything costs its goroutine, its socket and
// this: not the handshake's buffers, which the handshake allocates once
// those bytes are read.

// readFirst waits until conn has something to read, or until deadline,
// and returns the bytes read (one or two).
func readFirst(conn net.Conn, deadline time.Time) ([]byte, error) {
	conn.SetReadDeadline(deadline)
	defer conn.SetReadDeadline(time.Time{})
	head := make([]byte, 2)
	for {
		n, err := conn.Read(head)
		if n > 0 {
			return head[:n], nil
		}
		if err != nil {
			return nil, err
		}
	}
}

// replayConn is a connection whose first Reads return head, the bytes
// read from it already.
type replayConn struct {
	net.Conn
	head []byte
}

func (c *replayConn) Read(b []byte) (int, error) {
	if len(c.head) > 0 {
		n := copy(b, c.head)
		c.head = c.head[n:]
		return n, nil
	}
	return c.Conn.Read(b)
}

// CloseWrite half-closes the connection, if it can be.
func (c *replayConn) CloseWrite() error {
	if cw, ok := c.Conn.(interface{ CloseWrite() error }); ok {
		return cw.CloseWrite()
	}
	return nil
}

// NetConn returns the connection as accepted, for [Reset].
func (c *replayConn) NetConn() net.Conn { return c.Conn }

// sourceKey returns the key under which the connections from addr share
// the per-source bounds: the IPv4 address, or the /64 prefix of an IPv6
// one (a host usually has a whole /64); "" for an address without an IP
// (a Unix socket's peer), which has no per-source bounds.
func sourceKey(addr net.Addr) string {
	var ip netip.Addr
	switch a := addr.(type) {
	case *net.TCPAddr:
		ip, _ = netip.AddrFromSlice(a.IP)
	default:
		return ""
	}
	ip = ip.Unmap()
	if !ip.IsValid() {
		return ""
	}
	if ip.Is6() {
		p, _ := ip.Prefix(64)
		return p.String()
	}
	return ip.String()
}
