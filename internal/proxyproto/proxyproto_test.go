package proxyproto

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"io"
	"net"
	"strings"
	"testing"

	pp "github.com/pires/go-proxyproto"
)

// TestAppendHeaderIPv4Bytes checks one header byte for byte against the
// layout of section 2.2 of the specification, written out by hand.
func TestAppendHeaderIPv4Bytes(t *testing.T) {
	src := &net.TCPAddr{IP: net.IPv4(192, 0, 2, 1), Port: 56324}
	dst := &net.TCPAddr{IP: net.IPv4(198, 51, 100, 7), Port: 443}
	got, err := AppendHeader([]byte("prefix"), src, dst, TLV{Type: TypeUniqueID, Value: []byte("id")})
	if err != nil {
		t.Fatal(err)
	}
	want := []byte("prefix")
	want = append(want,
		0x0D, 0x0A, 0x0D, 0x0A, 0x00, 0x0D, 0x0A, 0x51, 0x55, 0x49, 0x54, 0x0A, // signature
		0x21,       // version 2, PROXY
		0x11,       // AF_INET, STREAM
		0x00, 0x11, // length: 12 bytes of addresses + 5 of TLV = 17
		192, 0, 2, 1, // source address
		198, 51, 100, 7, // destination address
		0xDC, 0x04, // source port 56324
		0x01, 0xBB, // destination port 443
		0x05, 0x00, 0x02, 'i', 'd', // TLV: PP2_TYPE_UNIQUE_ID, length 2, "id"
	)
	if !bytes.Equal(got, want) {
		t.Errorf("AppendHeader =\n% x\nwant\n% x", got, want)
	}
}

func TestAppendHeaderParsed(t *testing.T) {
	ip4a := &net.TCPAddr{IP: net.IPv4(10, 1, 2, 3), Port: 40000}
	ip4b := &net.TCPAddr{IP: net.ParseIP("127.0.0.1").To4(), Port: 9443}
	mapped := &net.TCPAddr{IP: net.ParseIP("::ffff:10.1.2.3"), Port: 40000}
	ip6a := &net.TCPAddr{IP: net.ParseIP("2001:db8::1"), Port: 1}
	ip6b := &net.TCPAddr{IP: net.ParseIP("::1"), Port: 65535}
	unixA := &net.UnixAddr{Name: "/run/client.sock", Net: "unix"}
	unixB := &net.UnixAddr{Name: "/run/pqkem.sock", Net: "unix"}
	long := &net.UnixAddr{Name: "/" + strings.Repeat("p", 107), Net: "unix"}
	tlvs := []TLV{
		{Type: TypeUniqueID, Value: []byte("0123456789abcdef")},
		{Type: TypeMinCustom, Value: []byte("fingerprint")},
		{Type: TypeMaxCustom, Value: nil},
	}

	tests := []struct {
		name     string
		src, dst net.Addr
		tlvs     []TLV
		cmd      pp.ProtocolVersionAndCommand
		fam      pp.AddressFamilyAndProtocol
		// wantSrc and wantDst are the addresses the reader returns.
		wantSrc, wantDst net.Addr
	}{
		{"ipv4", ip4a, ip4b, nil, pp.PROXY, pp.TCPv4, ip4a, ip4b},
		{"ipv4 with TLVs", ip4a, ip4b, tlvs, pp.PROXY, pp.TCPv4, ip4a, ip4b},
		{"ipv4-mapped", mapped, ip4b, nil, pp.PROXY, pp.TCPv4, ip4a, ip4b},
		{"ipv6", ip6a, ip6b, tlvs, pp.PROXY, pp.TCPv6, ip6a, ip6b},
		{"ipv4 to ipv6", ip4a, ip6b, nil, pp.PROXY, pp.TCPv6, mapped, ip6b},
		{"unix", unixA, unixB, tlvs, pp.PROXY, pp.UnixStream, unixA, unixB},
		{"unix 108-byte path", long, &net.UnixAddr{Net: "unix"}, nil, pp.PROXY, pp.UnixStream, long, &net.UnixAddr{Net: "unix"}},
		{"nil", nil, nil, nil, pp.LOCAL, pp.UNSPEC, nil, nil},
		{"nil with TLVs", nil, nil, tlvs, pp.LOCAL, pp.UNSPEC, nil, nil},
		{"nil source", nil, ip4b, nil, pp.LOCAL, pp.UNSPEC, nil, nil},
		{"typed nil", (*net.TCPAddr)(nil), ip4b, nil, pp.LOCAL, pp.UNSPEC, nil, nil},
		{"udp", &net.UDPAddr{IP: ip4a.IP, Port: 53}, &net.UDPAddr{IP: ip4b.IP, Port: 53}, tlvs, pp.LOCAL, pp.UNSPEC, nil, nil},
		{"tcp to unix", ip4a, unixB, nil, pp.LOCAL, pp.UNSPEC, nil, nil},
		{"unix to tcp", unixA, ip4b, nil, pp.LOCAL, pp.UNSPEC, nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, err := AppendHeader(nil, tt.src, tt.dst, tt.tlvs...)
			if err != nil {
				t.Fatal(err)
			}
			// The reader must stop at the header's end: what follows is
			// the connection's data.
			r := bufio.NewReader(io.MultiReader(bytes.NewReader(b), strings.NewReader("data")))
			h, err := pp.Read(r)
			if err != nil {
				t.Fatalf("go-proxyproto cannot read % x: %v", b, err)
			}
			if h.Version != 2 || h.Command != tt.cmd || h.TransportProtocol != tt.fam {
				t.Errorf("version %d, command %#x, family %#x; want 2, %#x, %#x", h.Version, h.Command, h.TransportProtocol, tt.cmd, tt.fam)
			}
			checkAddr(t, "source", h.SourceAddr, tt.wantSrc)
			checkAddr(t, "destination", h.DestinationAddr, tt.wantDst)
			got, err := h.TLVs()
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(tt.tlvs) {
				t.Fatalf("%d TLVs, want %d", len(got), len(tt.tlvs))
			}
			for i, g := range got {
				if byte(g.Type) != tt.tlvs[i].Type || !bytes.Equal(g.Value, tt.tlvs[i].Value) {
					t.Errorf("TLV %d = %#x %q, want %#x %q", i, g.Type, g.Value, tt.tlvs[i].Type, tt.tlvs[i].Value)
				}
			}
			if rest, _ := io.ReadAll(r); string(rest) != "data" {
				t.Errorf("after the header: %q, want %q", rest, "data")
			}
		})
	}
}

// checkAddr compares an address the reader returned with the one wanted,
// by IP and port or by path.
func checkAddr(t *testing.T, which string, got, want net.Addr) {
	t.Helper()
	switch w := want.(type) {
	case nil:
		if got != nil {
			t.Errorf("%s address %v, want none", which, got)
		}
	case *net.TCPAddr:
		g, ok := got.(*net.TCPAddr)
		if !ok || !g.IP.Equal(w.IP) || g.Port != w.Port {
			t.Errorf("%s address %#v, want %v", which, got, w)
		}
	case *net.UnixAddr:
		g, ok := got.(*net.UnixAddr)
		if !ok || g.Name != w.Name {
			t.Errorf("%s address %#v, want %v", which, got, w)
		}
	}
}

func TestAppendHeaderErrors(t *testing.T) {
	ip4 := &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 1}
	ip6 := &net.TCPAddr{IP: net.IPv6loopback, Port: 1}
	big := make([]byte, maxLen)
	tests := []struct {
		name     string
		src, dst net.Addr
		tlvs     []TLV
		want     string
	}{
		{"value too long", nil, nil, []TLV{{Type: TypeMinCustom, Value: make([]byte, maxLen+1)}}, "proxyproto: TLV of type 0xe0 has a value of 65536 bytes, more than 65535"},
		{"header too long", nil, nil, []TLV{{Type: 1, Value: big}}, "proxyproto: addresses and TLVs of 65538 bytes, more than the 65535 a header can hold"},
		{"ipv6 header too long", ip6, ip6, []TLV{{Type: 1, Value: big[:maxLen-lenTCP6-2]}}, "proxyproto: addresses and TLVs of 65536 bytes"},
		{"unix path too long", &net.UnixAddr{Name: strings.Repeat("p", 109)}, &net.UnixAddr{}, nil, "is 109 bytes long, more than 108"},
		{"empty IP", &net.TCPAddr{Port: 1}, ip4, nil, "proxyproto: invalid IP address <nil> in :1"},
		{"short IP", ip4, &net.TCPAddr{IP: net.IP{1, 2, 3}, Port: 1}, nil, "proxyproto: invalid IP address"},
		{"port too large", ip4, &net.TCPAddr{IP: ip4.IP, Port: 65536}, nil, "proxyproto: invalid port 65536 in 127.0.0.1:65536"},
		{"negative port", &net.TCPAddr{IP: ip4.IP, Port: -1}, ip4, nil, "proxyproto: invalid port -1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := []byte("prefix")
			got, err := AppendHeader(in, tt.src, tt.dst, tt.tlvs...)
			if err == nil || !strings.HasPrefix(err.Error(), tt.want) && !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error %v, want %q", err, tt.want)
			}
			if string(got) != "prefix" {
				t.Errorf("on error AppendHeader returned %q, want the slice it was given", got)
			}
		})
	}
}

// TestAppendHeaderLargest checks the longest headers: a length field of
// 65,535 for each family.
func TestAppendHeaderLargest(t *testing.T) {
	ip6 := &net.TCPAddr{IP: net.IPv6loopback, Port: 1}
	ip4 := &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 1}
	u := &net.UnixAddr{Name: "/s"}
	big := make([]byte, maxLen)
	for _, tt := range []struct {
		name     string
		src, dst net.Addr
		addrLen  int
	}{
		{"unspec", nil, nil, 0},
		{"ipv4", ip4, ip4, lenTCP4},
		{"ipv6", ip6, ip6, lenTCP6},
		{"unix", u, u, lenUnix},
	} {
		t.Run(tt.name, func(t *testing.T) {
			v := big[:maxLen-tt.addrLen-2*tlvHeaderLen]
			b, err := AppendHeader(nil, tt.src, tt.dst, TLV{Type: 1, Value: v}, TLV{Type: 2})
			if err != nil {
				t.Fatal(err)
			}
			if len(b) != headerLen+maxLen {
				t.Errorf("header of %d bytes, want %d", len(b), headerLen+maxLen)
			}
			if n := binary.BigEndian.Uint16(b[14:16]); n != maxLen {
				t.Errorf("length field %d, want %d", n, maxLen)
			}
		})
	}
}

func TestAppendHeaderAllocs(t *testing.T) {
	src := &net.TCPAddr{IP: net.IPv4(192, 0, 2, 1), Port: 56324}
	dst := &net.TCPAddr{IP: net.IPv4(198, 51, 100, 7), Port: 443}
	tlv := TLV{Type: TypeUniqueID, Value: []byte("id")}
	buf := make([]byte, 0, 256)
	if n := testing.AllocsPerRun(10, func() {
		buf, _ = AppendHeader(buf[:0], src, dst, tlv)
	}); n != 0 {
		t.Errorf("AppendHeader allocates %v times into a buffer with room, want 0", n)
	}
}

// TestAppendHeaderUnnamed checks the paths of Unix sockets that package
// net names with a leading '@': on Linux, an unnamed socket (a client's)
// is all zeros, and an abstract one starts with a zero byte; elsewhere
// '@' is a path's first character.
func TestAppendHeaderUnnamed(t *testing.T) {
	const pathsAt = 16 // signature, command, family, length
	dst := &net.UnixAddr{Name: "/run/pqkem.sock", Net: "unix"}
	for _, tt := range []struct{ name, want string }{
		{"@", ""},
		{"@pqkem", "\x00pqkem"},
		{"/run/@x", "/run/@x"},
	} {
		b, err := AppendHeader(nil, &net.UnixAddr{Name: tt.name, Net: "unix"}, dst)
		if err != nil {
			t.Fatal(err)
		}
		want := tt.want
		if !abstractNames {
			want = tt.name
		}
		got := b[pathsAt : pathsAt+unixPathLen]
		if !bytes.Equal(got, append([]byte(want), make([]byte, unixPathLen-len(want))...)) {
			t.Errorf("source %q: path % x, want %q zero-padded", tt.name, bytes.TrimRight(got, "\x00"), want)
		}
		if d := b[pathsAt+unixPathLen : pathsAt+2*unixPathLen]; string(bytes.TrimRight(d, "\x00")) != dst.Name {
			t.Errorf("source %q: destination %q, want %q", tt.name, d, dst.Name)
		}
	}
}
