package noise

import (
	"context"
	"net"
)

// Dialer dials Noise connections: the network connection, then the
// client side of the handshake, as crypto/tls's Dialer does.
type Dialer struct {
	// NetDialer dials the underlying connections; nil means a zero
	// net.Dialer.
	NetDialer *net.Dialer
	// Config is the client's configuration.
	Config *Config
}

// Dial dials addr and runs the handshake; see [Dialer.DialContext].
func (d *Dialer) Dial(network, addr string) (net.Conn, error) {
	return d.DialContext(context.Background(), network, addr)
}

// DialContext dials addr on the named network and runs the client side of
// the handshake, both bounded by ctx (and the handshake by
// Config.HandshakeTimeout). The returned connection is a *[Conn]. Its
// signature fits net/http's Transport.DialTLSContext.
func (d *Dialer) DialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	c, err := d.dial(ctx, network, addr)
	if err != nil {
		return nil, err
	}
	return c, nil
}

func (d *Dialer) dial(ctx context.Context, network, addr string) (*Conn, error) {
	if err := d.Config.check(true); err != nil {
		return nil, err
	}
	d.Config.precompute(true)
	nd := d.NetDialer
	if nd == nil {
		nd = new(net.Dialer)
	}
	raw, err := nd.DialContext(ctx, network, addr)
	if err != nil {
		return nil, err
	}
	c := Client(raw, d.Config)
	if err := c.HandshakeContext(ctx); err != nil {
		raw.Close()
		return nil, err
	}
	return c, nil
}

// Dial connects to addr on the named network and runs the client side of
// the handshake with config.
func Dial(network, addr string, config *Config) (*Conn, error) {
	d := Dialer{Config: config}
	return d.dial(context.Background(), network, addr)
}

// Listen announces on the local network address and returns a listener
// whose Accept returns server-side connections (*[Conn]) with config; see
// [NewListener].
func Listen(network, laddr string, config *Config) (net.Listener, error) {
	if err := config.check(false); err != nil {
		return nil, err
	}
	l, err := net.Listen(network, laddr)
	if err != nil {
		return nil, err
	}
	return NewListener(l, config), nil
}

// NewListener returns a listener whose Accept accepts a connection from
// inner and returns it as the server side (*[Conn]) with config. The
// handshake runs on the connection's first Read or Write, or its
// Handshake, in the caller's goroutine, bounded by
// Config.HandshakeTimeout: a client that stalls holds no goroutine of the
// listener. The Config's static keys are precomputed ([kem.Precomputer])
// before NewListener returns.
func NewListener(inner net.Listener, config *Config) net.Listener {
	if config != nil {
		config.precompute(false)
	}
	return &listener{inner, config}
}

type listener struct {
	net.Listener
	config *Config
}

func (l *listener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return Server(c, l.config), nil
}
