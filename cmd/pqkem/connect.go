package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"sync/atomic"
	"time"

	"github.com/pqkem/pqkem/internal/cli"
	"github.com/pqkem/pqkem/kem"
	"github.com/pqkem/pqkem/keyfile"
	"github.com/pqkem/pqkem/noise"
)

var cmdConnect = &cli.Command{
	Name:    "connect",
	Summary: "forward standard input and output, or a local port, over PQNoise to 'pqkem serve'",
	Args:    "-pub FILE -to HOST:PORT [-key FILE] [-listen ADDR] [flags]",
	Doc: `
Connect is the client side of a tunnel: it opens a PQNoise connection to
the 'pqkem serve' at -to, whose public key is -pub, and forwards its
standard input and output over it, as netcat does (for example as ssh's
ProxyCommand). Standard input's end is sent as a half-close; the command
ends, with status 0, when the server closes its side. With -listen, it
instead listens on a local TCP address and opens one PQNoise connection
for each local connection it accepts, forwarding it both ways, until
SIGINT or SIGTERM. Without -listen, -max and -grace do not apply, and
SIGINT or SIGTERM ends the command at once (exit status 130 or 143).

The server is authenticated: a server whose key is not -pub cannot
complete the handshake. With -key, a private key of the same scheme as
-pub, the client is authenticated too (pqIK), for a server that lists
the client's public key in its -allow file. The server cannot say why
it ends a handshake, so a wrong -pub, a client key the server does not
list, a -key given or missing, another -cipher or -hash, or a server
that does not speak PQNoise all show as the server closing the
connection during the handshake; the server's log says which.` + tunnelHelp,
	Example: `
pqkem connect -pub server.pub -to tunnel.example.com:9443
echo 'GET / HTTP/1.0' | pqkem connect -pub server.pub -to 192.0.2.7:9443
pqkem connect -pub server.pub -key client.pem -to 192.0.2.7:9443 -listen 127.0.0.1:8000
ssh -o ProxyCommand='pqkem connect -pub server.pub -to %h:9443 -quiet' host.example.com`,
	New: func() cli.Runner { return new(connectCmd) },
}

// connectCmd is one run of pqkem connect.
type connectCmd struct {
	tunnelFlags
	pub, key, to, listen string
	cfg                  *noise.Config
}

func (c *connectCmd) Flags(fs *flag.FlagSet) {
	fs.StringVar(&c.pub, "pub", "", "the server's public key `FILE`; required")
	fs.StringVar(&c.to, "to", "", "the 'pqkem serve' to connect to, `HOST:PORT`; required")
	fs.StringVar(&c.key, "key", "", "the client's private key `FILE`, for a server with -allow (pqIK)")
	fs.StringVar(&c.listen, "listen", "", "listen on this local TCP `address` and forward each connection, instead of standard input and output")
	c.addFlags(fs)
}

func (c *connectCmd) Run(out *cli.Output, args []string) error {
	if err := cli.NoArgs(args); err != nil {
		return err
	}
	if err := required("pub", c.pub, "to", c.to); err != nil {
		return err
	}
	if err := c.check(); err != nil {
		return err
	}
	ek, err := readTunnelPublicKey("-pub", c.pub)
	if err != nil {
		return err
	}
	var dk kem.DecapsulationKey
	if c.key != "" {
		if dk, err = readTunnelPrivateKey("-key", c.key); err != nil {
			return err
		}
		if dk.Scheme().Name() != ek.Scheme().Name() {
			return fmt.Errorf("-key %s is a %s key, but the server's key (-pub) is %s: the client key must be of the server key's scheme", displayName(c.key), dk.Scheme().Name(), ek.Scheme().Name())
		}
	}
	p := c.protocol(dk != nil, ek.Scheme())
	if _, err := noise.NewHandshakeState(&noise.HandshakeConfig{Protocol: p, Initiator: true, StaticKey: dk, RemoteStaticKey: ek}); err != nil {
		return fmt.Errorf("-pub %s: %w", displayName(c.pub), err)
	}
	c.cfg = &noise.Config{Protocol: p, StaticKey: dk, PeerStaticKey: ek, HandshakeTimeout: c.timeout}
	lg := newTunnelLog(out.Stderr, "connect", c.quiet)
	keys := "server key " + keyfile.Fingerprint(ek)
	if dk != nil {
		keys += ", client key " + keyfile.Fingerprint(dk.EncapsulationKey())
	}
	if c.listen == "" {
		lg.infof("connecting to %s, %v, %s", c.to, p, keys)
		return c.stdio(out)
	}
	ln, err := net.Listen("tcp", c.listen)
	if err != nil {
		return fmt.Errorf("-listen: %w", err)
	}
	lg.printf("listening on %v, forwarding to %s, %v, %s, at most %d connections at once", ln.Addr(), c.to, p, keys, c.max)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	return runTunnelListener(lg, ln, &c.tunnelFlags, func(conn net.Conn) {
		c.forwardConn(ctx, lg, conn.(*net.TCPConn))
	}, cancel)
}

// dial opens the PQNoise connection to -to, within -timeout for the TCP
// connection and the handshake.
func (c *connectCmd) dial(ctx context.Context) (*noise.Conn, error) {
	ctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	d := noise.Dialer{Config: c.cfg}
	conn, err := d.DialContext(ctx, "tcp", c.to)
	if err != nil {
		return nil, connectError(c.to, err)
	}
	return conn.(*noise.Conn), nil
}

// connectError words an error of dialing the server.
func connectError(to string, err error) error {
	switch {
	case errors.Is(err, noise.ErrAuthentication):
		return &explainedError{fmt.Sprintf("handshake with %s failed: the server's key does not match -pub, or it runs another -cipher or -hash (%v)", to, err), err}
	case isClosedDuringHandshake(err):
		return &explainedError{fmt.Sprintf("handshake with %s failed: the server closed the connection: it refused this client or is not speaking this protocol (its key may not match -pub, it may want a -key it lists or no -key, another -cipher or -hash, or it is not a 'pqkem serve'; its log says which)", to), err}
	}
	if _, ok := errors.AsType[*net.OpError](err); ok {
		return fmt.Errorf("-to: %w", err)
	}
	return fmt.Errorf("handshake with %s failed: %w", to, err)
}

// explainedError is an error worded for the user, wrapping the one it
// explains.
type explainedError struct {
	msg string
	err error
}

func (e *explainedError) Error() string { return e.msg }
func (e *explainedError) Unwrap() error { return e.err }

// stdio forwards standard input and output over one connection, until
// the server closes its side, or with -idle until nothing has come from
// either side for that long.
func (c *connectCmd) stdio(out *cli.Output) error {
	conn, err := c.dial(context.Background())
	if err != nil {
		return err
	}
	defer conn.Close()
	var last atomic.Int64 // the last activity, in Unix nanoseconds
	last.Store(time.Now().UnixNano())
	ic := withIdle(conn, c.idle, &last)
	sent := make(chan error, 1)
	in := stdin
	go func() {
		// Standard input cannot be interrupted: this goroutine ends with
		// its end, or with the process.
		_, err := io.CopyBuffer(struct{ io.Writer }{ic}, struct{ io.Reader }{in}, make([]byte, forwardBufferSize))
		if err == nil {
			err = conn.CloseWrite()
		}
		if err != nil {
			conn.Close() // ends the copy to standard output too
		}
		sent <- err
	}()
	_, err = io.CopyBuffer(struct{ io.Writer }{out.Stdout}, struct{ io.Reader }{ic}, make([]byte, forwardBufferSize))
	if errors.Is(err, net.ErrClosed) {
		// Sending failed, and closed the connection.
		if serr := <-sent; serr != nil && !errors.Is(serr, net.ErrClosed) {
			if isReset(serr) {
				return fmt.Errorf("sending standard input to %s: the server closed the connection before reading all of it (%w)", c.to, serr)
			}
			return fmt.Errorf("sending standard input to %s: %w", c.to, serr)
		}
	}
	if err != nil && !errors.Is(err, net.ErrClosed) {
		if isReset(err) {
			return fmt.Errorf("receiving from %s: the server closed the connection before reading all of standard input (%w)", c.to, err)
		}
		return fmt.Errorf("receiving from %s: %w", c.to, err)
	}
	return nil
}

// forwardConn opens a PQNoise connection for the local connection local
// and forwards it both ways.
func (c *connectCmd) forwardConn(ctx context.Context, lg *tunnelLog, local *net.TCPConn) {
	from := local.RemoteAddr()
	conn, err := c.dial(ctx)
	if err != nil {
		lg.printf("%v: %v; connection closed", from, err)
		return
	}
	lg.infof("%v: connected to %v", from, conn.RemoteAddr())
	start := time.Now()
	up, down, err := forward(local, conn, c.idle)
	end := forwardEnd(start, up, down, err, "local side", "server")
	if err != nil && !errors.Is(err, net.ErrClosed) {
		lg.printf("%v: %s", from, end)
	} else {
		lg.infof("%v: %s", from, end)
	}
}
