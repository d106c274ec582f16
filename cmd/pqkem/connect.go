package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"strings"
	"sync/atomic"
	"time"

	"github.com/pqkem/pqkem/internal/cli"
	"github.com/pqkem/pqkem/internal/sockets"
	"github.com/pqkem/pqkem/internal/tunnel"
	"github.com/pqkem/pqkem/kem"
	"github.com/pqkem/pqkem/keyfile"
	"github.com/pqkem/pqkem/noise"
)

var cmdConnect = &cli.Command{
	Name:    "connect",
	Summary: "tunnel standard input and output, or a local port, to 'pqkem serve'",
	Args:    "-pub FILE -to ADDR [-key FILE] [-listen ADDR] [flags]",
	Doc: `
Connect is the client end of a tunnel: it opens a PQNoise connection to
the 'pqkem serve' at -to, whose public key is -pub, and forwards its
standard input and output over it, as netcat does (say, as ssh's
ProxyCommand), the end of standard input as PQNoise's authenticated end
marker, until both directions have ended. With -listen, it forwards
each local connection over a PQNoise connection of its own, until
SIGINT or SIGTERM (status 0); SIGHUP rereads -pub and -key.

Without -listen, exit status 0 means both directions ended cleanly (all
of standard input sent with its end marker, the server's received); 1,
that one failed: a line says which and why (the server unreachable, the
handshake refused or failed, a reset, a truncated stream, a message that
failed authentication, the idle limit), maybe with a "hint:" line; 2, a
usage error. Standard error also has the start, unless -quiet. SIGINT or
SIGTERM end it at once (status 130 or 143); -max and -grace do not
apply. 'pqkem help tunnel' has the protocol, keys, ends, limits, log.`,
	Example: `
pqkem connect -pub server.pub -to tunnel.example.com:9443
echo 'GET / HTTP/1.0' | pqkem connect -pub server.pub -to 192.0.2.7:9443
pqkem connect -pub server.pub -key me.pem -to host:9443 -listen 127.0.0.1:8000
ssh -o ProxyCommand='pqkem connect -pub server.pub -to %h:9443 -quiet' myhost`,
	New: func() cli.Runner { return new(connectCmd) },
}

// connectCmd is one run of pqkem connect.
type connectCmd struct {
	tunnelConfig
	pub, key, to, listen string

	toAddr sockets.Addr
	cfg    atomic.Pointer[noise.Config] // from -pub and -key, which SIGHUP rereads
}

func (c *connectCmd) Flags(fs *flag.FlagSet) {
	fs.StringVar(&c.pub, "pub", "", "the server's public key `FILE`; required")
	fs.StringVar(&c.to, "to", "", "the 'pqkem serve' at `ADDR`: HOST:PORT or unix:PATH")
	fs.StringVar(&c.key, "key", "", "the client's private key `FILE`, for a serve -allow (pqIK)")
	fs.StringVar(&c.listen, "listen", "", "forward the connections accepted on `ADDR` instead of stdio")
	fs.StringVar(&c.status, "status", "", "with -listen, serve /healthz and /metrics on `ADDR`")
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
	var err error
	if c.toAddr, err = parseDialAddr("to", c.to); err != nil {
		return err
	}
	var listenAddr sockets.Addr
	if c.listen != "" {
		if listenAddr, err = parseListenAddr(c.listen); err != nil {
			return err
		}
		if c.status != "" {
			if _, err := checkStatus(c.status); err != nil {
				return err
			}
		}
	} else if c.status != "" {
		return cli.Usagef("-status needs -listen")
	}
	var keys string
	if keys, err = c.loadConfig(); err != nil {
		return err
	}
	lg := newTunnelLog(out.Stderr, "connect", c.quiet, c.listen != "")
	defer lg.Close()
	if c.listen == "" {
		lg.Infof("connecting to %v, %v, %s", c.toAddr, c.cfg.Load().Protocol, keys)
		return c.stdio(out)
	}
	// SIGHUP reloads from now on: before the log says it listens.
	reloads, stopReloads := notifyReload()
	defer stopReloads()
	ln, err := listen(listenAddr, c.toAddr)
	if err != nil {
		return err
	}
	metrics := tunnel.NewMetrics()
	stopStatus, err := startStatus(c.status, metrics, lg)
	if err != nil {
		ln.Close()
		return err
	}
	defer stopStatus()
	lg.Printf("listening on %v, forwarding to %v, %v, %s, at most %s at once", ln.Addr(), c.toAddr, c.cfg.Load().Protocol, keys, count(c.max, "connection"))
	px := &tunnel.Proxy{
		Limits: tunnel.Limits{
			MaxConns:      c.max,
			MaxHandshakes: defaultMaxHandshakes,
			Timeout:       c.timeout,
			Idle:          c.idle,
			BufferSize:    noise.MaxPlaintextSize,
		},
		Names: [2]string{"local side", "server"},
		Dial: func(ctx context.Context, tc *tunnel.Conn) error {
			conn, err := c.dial(ctx)
			if err != nil {
				return err
			}
			tc.Back = conn
			return nil
		},
		Cause:   forwardCause,
		Log:     lg,
		Metrics: metrics,
	}
	return runProxy(lg, ln, px, c.grace, reloads, func() { c.reload(lg) })
}

// loadConfig reads -pub and -key and makes the configuration of the
// connections from now on; it returns their fingerprints, for the log.
func (c *connectCmd) loadConfig() (keys string, err error) {
	ek, err := readTunnelPublicKey("-pub", c.pub)
	if err != nil {
		return "", err
	}
	var dk kem.DecapsulationKey
	if c.key != "" {
		if dk, err = readTunnelPrivateKey("-key", c.key); err != nil {
			return "", err
		}
		if dk.Scheme().Name() != ek.Scheme().Name() {
			return "", fmt.Errorf("-key %s is of %s, but the server's key (-pub) is of %s: the client key must be of the server key's scheme", displayName(c.key), dk.Scheme().Name(), ek.Scheme().Name())
		}
	}
	p := c.protocol(dk != nil, ek.Scheme())
	if _, err := noise.NewHandshakeState(&noise.HandshakeConfig{Protocol: p, Initiator: true, StaticKey: dk, PeerStaticKey: ek}); err != nil {
		return "", cli.WithHint(fmt.Errorf("-pub %s: %w", displayName(c.pub), err), staticKeyHint(ek.Scheme()))
	}
	// Precomputed once here, not by the first handshakes at once.
	for _, k := range []any{dk, ek} {
		if pk, ok := k.(kem.Precomputer); ok {
			pk.Precompute()
		}
	}
	c.cfg.Store(&noise.Config{Protocol: p, StaticKey: dk, PeerStaticKey: ek, HandshakeTimeout: c.timeout})
	keys = "server key " + keyfile.Fingerprint(ek)
	if dk != nil {
		keys += ", client key " + keyfile.Fingerprint(dk.EncapsulationKey())
	}
	return keys, nil
}

// reload reads -pub and -key again, for SIGHUP, and uses them for the
// connections from now on if they are good.
func (c *connectCmd) reload(lg *tunnel.Log) {
	keys, err := c.loadConfig()
	if err != nil {
		lg.Printf("SIGHUP: keeping the keys in use: %v", err)
		return
	}
	lg.Printf("SIGHUP: reloaded: %s", keys)
}

// dial opens the PQNoise connection to -to, within -timeout for the
// connection and the handshake.
func (c *connectCmd) dial(ctx context.Context) (*noise.Conn, error) {
	ctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	raw, err := sockets.Dial(ctx, c.toAddr)
	if err != nil {
		return nil, fmt.Errorf("server unreachable: %s", strings.TrimPrefix(err.Error(), "sockets: "))
	}
	conn := noise.Client(raw, c.cfg.Load())
	if err := conn.HandshakeContext(ctx); err != nil {
		tunnel.Reset(conn)
		return nil, handshakeError(err)
	}
	return conn, nil
}

// handshakeError words what the client can know of a failed handshake,
// with a hint.
func handshakeError(err error) error {
	switch se, isSize := errors.AsType[*noise.MessageSizeError](err); {
	case errors.Is(err, noise.ErrAuthentication):
		return cli.WithHint(fmt.Errorf("handshake: the server's reply failed authentication: %w", err), "-pub may not be the server's key, or the server runs another -cipher or -hash")
	case isSize:
		return cli.WithHint(fmt.Errorf("handshake: the server's message %d has %d bytes, want %d", se.Message, se.Got, se.Want), "the server runs another KEM or pattern (a -key given or missing? another -ephemeral?), or is not a 'pqkem serve'")
	case isClosedDuringHandshake(err):
		return cli.WithHint(errors.New("handshake: the server closed the connection"), "a wrong -pub, a -key not in the server's -allow (or none where it wants one), another -cipher, -hash or -ephemeral, or too many failed handshakes from this address; the server's log says which")
	case errors.Is(err, context.DeadlineExceeded):
		return cli.WithHint(errors.New("handshake: no answer within -timeout"), "the server may be overloaded, or -to is not a 'pqkem serve'")
	}
	return fmt.Errorf("handshake: %w", err)
}

// stdio forwards standard input and output over one connection, until
// both directions have ended.
func (c *connectCmd) stdio(out *cli.Output) error {
	conn, err := c.dial(context.Background())
	if err != nil {
		return err
	}
	local := newStdioConn(stdin, out.Stdout)
	r := tunnel.Forward(context.Background(), local, conn, [2]string{"standard input", "server"},
		tunnel.Options{Idle: c.idle, BufferSize: noise.MaxPlaintextSize})
	return stdioResult(r)
}

// stdioResult words the outcome of connect on standard input and output:
// nil if both directions ended cleanly, else the first failure, in one
// line.
func stdioResult(r *tunnel.Result) error {
	if r.Err == nil {
		return nil
	}
	up, down := &r.AB, &r.BA
	d, dir := down, "receiving from the server"
	if up.Err == r.Err {
		d, dir = up, "sending standard input"
	}
	te, _ := errors.AsType[*tunnel.Error](d.Err)
	if te != nil && (d == down && te.Op == "writing to" || d == up && te.Op == "reading from") {
		what := "writing standard output"
		if d == up {
			what = "reading standard input"
		}
		return fmt.Errorf("%s: %w", what, unwrapPath(te.Err))
	}
	inner := d.Err
	if te != nil {
		inner = te.Err
	}
	cause, meaning := failureCause(d.Err)
	var hint string
	switch cause {
	case "reset":
		meaning = "the server reset the connection"
		hint = "the server's log says why: the service failed or refused, data was changed or cut on the path, or the server stopped"
	case "truncated":
		hint = "the connection was cut, by the network or by someone on the path"
	case "tampered":
		hint = "someone on the path changed the data"
	case "idle", "failed":
		meaning = inner.Error()
	}
	msg := dir + ": " + meaning
	if !up.SourceEnded {
		msg += ", before all of standard input was sent"
	}
	return cli.WithHint(errors.New(msg), hint)
}

// stdioConn is standard input and output as one end of Forward: a
// goroutine copies standard input into a pipe, whose Read Close can
// interrupt (a read of standard input cannot be: that goroutine ends
// with standard input, or with the process).
type stdioConn struct {
	r *io.PipeReader
	w io.Writer
}

func newStdioConn(in io.Reader, out io.Writer) *stdioConn {
	pr, pw := io.Pipe()
	go func() {
		_, err := io.Copy(pw, struct{ io.Reader }{in})
		pw.CloseWithError(err)
	}()
	return &stdioConn{pr, out}
}

func (s *stdioConn) Read(b []byte) (int, error)  { return s.r.Read(b) }
func (s *stdioConn) Write(b []byte) (int, error) { return s.w.Write(b) }

// Close stops reading standard input; standard output stays open, for
// the command's last words.
func (s *stdioConn) Close() error                     { return s.r.Close() }
func (s *stdioConn) LocalAddr() net.Addr              { return stdioAddr{} }
func (s *stdioConn) RemoteAddr() net.Addr             { return stdioAddr{} }
func (s *stdioConn) SetDeadline(time.Time) error      { return nil }
func (s *stdioConn) SetReadDeadline(time.Time) error  { return nil }
func (s *stdioConn) SetWriteDeadline(time.Time) error { return nil }

type stdioAddr struct{}

func (stdioAddr) Network() string { return "stdio" }
func (stdioAddr) String() string  { return "standard input and output" }
