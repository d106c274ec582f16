package sockets

import "testing"

func TestParse(t *testing.T) {
	tests := []struct {
		in      string
		network string
		address string
		dial    bool
	}{
		{"127.0.0.1:9443", "tcp", "127.0.0.1:9443", true},
		{":9443", "tcp", ":9443", true},
		{"localhost:1", "tcp", "localhost:1", true},
		{"[::1]:65535", "tcp", "[::1]:65535", true},
		{"[fe80::1%eth0]:22", "tcp", "[fe80::1%eth0]:22", true},
		{"unix:/run/pqkem.sock", "unix", "/run/pqkem.sock", true},
		{"unix:relative", "unix", "relative", true},
		{"unix:80", "unix", "80", true},
		{"fd:3", "fd", "3", false},
		{"fd:42", "fd", "42", false},
		{"systemd", "systemd", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			a, err := Parse(tt.in)
			if err != nil {
				t.Fatal(err)
			}
			if a.Network != tt.network || a.Address != tt.address {
				t.Errorf("Parse(%q) = %+v, want {%s %s}", tt.in, a, tt.network, tt.address)
			}
			if s := a.String(); s != tt.in {
				t.Errorf("String() = %q, want %q", s, tt.in)
			}
			if a.CanDial() != tt.dial {
				t.Errorf("CanDial() = %v, want %v", a.CanDial(), tt.dial)
			}
		})
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct {
		in, want string
	}{
		{"", `sockets: empty address`},
		{"127.0.0.1:notaport", `sockets: invalid address "127.0.0.1:notaport": port "notaport" is not a number`},
		{"127.0.0.1:0", `sockets: invalid address "127.0.0.1:0": port 0 is out of range 1-65535`},
		{"127.0.0.1:65536", `sockets: invalid address "127.0.0.1:65536": port 65536 is out of range 1-65535`},
		{"127.0.0.1:99999999999999999999", `sockets: invalid address "127.0.0.1:99999999999999999999": port "99999999999999999999" is not a number`},
		{"127.0.0.1:+80", `sockets: invalid address "127.0.0.1:+80": port "+80" is not a number`},
		{"127.0.0.1:-1", `sockets: invalid address "127.0.0.1:-1": port "-1" is not a number`},
		{"127.0.0.1:", `sockets: invalid address "127.0.0.1:": missing port`},
		{"localhost", `sockets: invalid address "localhost": missing port`},
		{"::1:443", `sockets: invalid address "::1:443": an IPv6 address must be in brackets, as in [::1]:443`},
		{"[::1:443", `sockets: invalid address "[::1:443": want HOST:PORT, unix:PATH, fd:N or systemd`},
		{"host name:80", `sockets: invalid address "host name:80": invalid host "host name"`},
		{"unix:", `sockets: invalid address "unix:": empty path`},
		{"fd:", `sockets: invalid address "fd:": descriptor "" is not a number`},
		{"fd:x", `sockets: invalid address "fd:x": descriptor "x" is not a number`},
		{"fd:-3", `sockets: invalid address "fd:-3": descriptor "-3" is not a number`},
		{"fd:2", `sockets: invalid address "fd:2": descriptor 2 is standard input, output or error, want 3 or more`},
		{"tcp://x:1", `sockets: invalid address "tcp://x:1": want HOST:PORT, unix:PATH, fd:N or systemd`},
		{"a/b:1", `sockets: invalid address "a/b:1": invalid host "a/b"`},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			a, err := Parse(tt.in)
			if err == nil {
				t.Fatalf("Parse(%q) = %+v, want an error", tt.in, a)
			}
			if err.Error() != tt.want {
				t.Errorf("Parse(%q) error\n%s\nwant\n%s", tt.in, err, tt.want)
			}
		})
	}
}
