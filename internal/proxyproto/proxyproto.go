// Package proxyproto writes the header of the PROXY protocol, version 2,
// with which a proxy tells the server behind it the addresses of the
// connection it accepted: the client's address and port and the address
// and port the client connected to, and optional typed values (TLVs)
// such as a unique id for the connection.
//
// The format is that of HAProxy's specification, "The PROXY protocol,
// Versions 1 & 2" (proxy-protocol.txt), section 2.2: a 12-byte signature,
// a byte holding the version and the command, a byte holding the address
// family and the transport protocol, the length of what follows as a
// 16-bit big-endian number, the addresses, and the TLVs. Only version 2
// is written; the package reads no headers.
package proxyproto

import (
	"encoding/binary"
	"fmt"
	"net"
	"runtime"
	"strings"
)

// signature opens every version 2 header (section 2.2).
const signature = "\r\n\r\n\x00\r\nQUIT\n"

// The version and command byte (the 13th): version 2 in the high four
// bits, the command in the low four.
const (
	cmdLocal = 0x20 // LOCAL: the proxy's own connection, no addresses
	cmdProxy = 0x21 // PROXY: a relayed connection, addresses follow
)

// The address family and transport protocol byte (the 14th).
const (
	famUnspec     = 0x00 // AF_UNSPEC, UNSPEC
	famTCP4       = 0x11 // AF_INET, STREAM
	famTCP6       = 0x21 // AF_INET6, STREAM
	famUnixStream = 0x31 // AF_UNIX, STREAM
)

// The lengths of the address blocks (section 2.2).
const (
	lenTCP4 = 4 + 4 + 2 + 2
	lenTCP6 = 16 + 16 + 2 + 2
	// unixPathLen is the room for each of the two paths of an AF_UNIX
	// address block, as in struct sockaddr_un's sun_path.
	unixPathLen = 108
	lenUnix     = 2 * unixPathLen
)

// headerLen is the length of the fixed part of a header: the signature,
// the version and command, the family and protocol, and the length.
const headerLen = len(signature) + 1 + 1 + 2

// maxLen is the largest length the 16-bit length field can hold: that of
// the addresses and TLVs together.
const maxLen = 0xFFFF

// AppendHeader appends a PROXY protocol version 2 header to b for a
// connection from src to dst, followed by tlvs in their order, and returns
// the extended slice.
//
// The command is PROXY and the family follows the addresses:
//   - two [*net.TCPAddr] values whose IPs are both IPv4 (IPv4-mapped IPv6
//     addresses included) give TCP over IPv4, other IPs TCP over IPv6;
//   - two [*net.UnixAddr] values give UNIX stream, each path zero-padded
//     to 108 bytes.
//
// For any other pair, and when either address is nil, the header carries
// the LOCAL command with the AF_UNSPEC family and no addresses (a receiver
// then uses the connection's own addresses), and the TLVs.
//
// AppendHeader returns b unchanged and an error when an IP address is
// neither 4 nor 16 bytes long, a port is out of range, a Unix path is
// longer than 108 bytes, a TLV value is longer than 65,535 bytes, or the
// addresses and TLVs together are longer than the 65,535 bytes that the
// header's length field can count.
func AppendHeader(b []byte, src, dst net.Addr, tlvs ...TLV) ([]byte, error) {
	cmd, fam, addrLen := byte(cmdLocal), byte(famUnspec), 0
	switch s := src.(type) {
	case *net.TCPAddr:
		d, ok := dst.(*net.TCPAddr)
		if !ok || d == nil || s == nil {
			break
		}
		if err := checkTCP(s); err != nil {
			return b, err
		}
		if err := checkTCP(d); err != nil {
			return b, err
		}
		cmd = cmdProxy
		if s.IP.To4() != nil && d.IP.To4() != nil {
			fam, addrLen = famTCP4, lenTCP4
		} else {
			fam, addrLen = famTCP6, lenTCP6
		}
	case *net.UnixAddr:
		d, ok := dst.(*net.UnixAddr)
		if !ok || d == nil || s == nil {
			break
		}
		for _, a := range []*net.UnixAddr{s, d} {
			if len(a.Name) > unixPathLen {
				return b, fmt.Errorf("proxyproto: Unix socket path %q is %d bytes long, more than %d", a.Name, len(a.Name), unixPathLen)
			}
		}
		cmd, fam, addrLen = cmdProxy, famUnixStream, lenUnix
	}

	n := addrLen
	for _, t := range tlvs {
		if len(t.Value) > maxLen {
			return b, fmt.Errorf("proxyproto: TLV of type %#02x has a value of %d bytes, more than %d", t.Type, len(t.Value), maxLen)
		}
		n += tlvHeaderLen + len(t.Value)
	}
	if n > maxLen {
		return b, fmt.Errorf("proxyproto: addresses and TLVs of %d bytes, more than the %d a header can hold", n, maxLen)
	}

	out := append(b, signature...)
	out = append(out, cmd, fam)
	out = binary.BigEndian.AppendUint16(out, uint16(n))
	switch fam {
	case famTCP4:
		s, d := src.(*net.TCPAddr), dst.(*net.TCPAddr)
		out = append(out, s.IP.To4()...)
		out = append(out, d.IP.To4()...)
		out = binary.BigEndian.AppendUint16(out, uint16(s.Port))
		out = binary.BigEndian.AppendUint16(out, uint16(d.Port))
	case famTCP6:
		s, d := src.(*net.TCPAddr), dst.(*net.TCPAddr)
		out = append(out, s.IP.To16()...)
		out = append(out, d.IP.To16()...)
		out = binary.BigEndian.AppendUint16(out, uint16(s.Port))
		out = binary.BigEndian.AppendUint16(out, uint16(d.Port))
	case famUnixStream:
		s, d := src.(*net.UnixAddr), dst.(*net.UnixAddr)
		out = appendPath(out, s.Name)
		out = appendPath(out, d.Name)
	}
	for _, t := range tlvs {
		out = t.append(out)
	}
	return out, nil
}

// checkTCP reports whether a's IP and port fit an address block.
func checkTCP(a *net.TCPAddr) error {
	if len(a.IP) != net.IPv4len && len(a.IP) != net.IPv6len {
		return fmt.Errorf("proxyproto: invalid IP address %v in %v", a.IP, a)
	}
	if a.Port < 0 || a.Port > 0xFFFF {
		return fmt.Errorf("proxyproto: invalid port %d in %v", a.Port, a)
	}
	return nil
}

// appendPath appends path zero-padded to [unixPathLen] bytes, which it
// must not exceed, as the kernel's sockaddr_un holds it: on Linux, a
// name that package net writes with a leading '@' is in the abstract
// namespace, whose names start with a zero byte instead, and "@" alone
// is a socket without a name (a client's, usually): all zeros.
func appendPath(b []byte, path string) []byte {
	start := len(b)
	if abstractNames && strings.HasPrefix(path, "@") {
		b = append(b, 0)
		path = path[1:]
	}
	b = append(b, path...)
	var zeros [unixPathLen]byte
	return append(b, zeros[:unixPathLen-(len(b)-start)]...)
}

// abstractNames is whether the system has Unix sockets in the abstract
// namespace.
const abstractNames = runtime.GOOS == "linux" || runtime.GOOS == "android"
