package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net"
	"time"

	"github.com/pqkem/pqkem/internal/cli"
	"github.com/pqkem/pqkem/kem"
	"github.com/pqkem/pqkem/keyfile"
	"github.com/pqkem/pqkem/noise"
)

var cmdServe = &cli.Command{
	Name:    "serve",
	Summary: "accept PQNoise connections and forward each to a TCP service",
	Args:    "-key FILE -listen ADDR -to HOST:PORT [-allow FILE] [flags]",
	Doc: `
Serve is the server side of a tunnel, as stunnel and ghostunnel are for
TLS: it listens on -listen for PQNoise connections, runs the handshake
with the static key -key, and forwards each connection to the TCP
service at -to (connecting to it once the handshake has succeeded), the
bytes unchanged both ways. Clients connect with 'pqkem connect', given
the server's public key ('pqkem pub -in server.pem').

Without -allow, any client that knows the server's public key may
connect (pqNK: the server is authenticated, the client is not). With
-allow FILE, a file of one or more client public keys (PEM blocks, one
after the other, as 'pqkem pub' writes them, of the server key's
scheme), the tunnel is mutually authenticated (pqIK): a client must
prove it holds the private key of one of them ('pqkem connect -key'),
and any other is refused with "client key not allowed" and its key's
fingerprint in the log. A client that cannot connect to -to is logged,
and its connection closed.` + tunnelHelp,
	Example: `
pqkem serve -key server.pem -listen :9443 -to 127.0.0.1:8080
pqkem keygen -alg ML-KEM-768 -out server.pem && pqkem pub -in server.pem -out server.pub
pqkem serve -key server.pem -listen :9443 -to 127.0.0.1:22 -allow clients.pub -cipher ChaChaPoly
pqkem serve -key frodo.pem -listen 192.0.2.7:9443 -to 127.0.0.1:5432 -max 64 -idle 1h -quiet`,
	New: func() cli.Runner { return new(serveCmd) },
}

// serveCmd is one run of pqkem serve.
type serveCmd struct {
	tunnelFlags
	key, listen, to, allow string
}

func (c *serveCmd) Flags(fs *flag.FlagSet) {
	fs.StringVar(&c.key, "key", "", "the server's private key `FILE` (its scheme is the KEM); required")
	fs.StringVar(&c.listen, "listen", "", "the TCP `address` to accept PQNoise connections on, such as :9443; required")
	fs.StringVar(&c.to, "to", "", "the TCP service, `HOST:PORT`, to forward each connection to; required")
	fs.StringVar(&c.allow, "allow", "", "serve only the clients whose public keys are in `FILE` (PEM blocks), with pqIK")
	c.addFlags(fs)
}

func (c *serveCmd) Run(out *cli.Output, args []string) error {
	if err := cli.NoArgs(args); err != nil {
		return err
	}
	if err := required("key", c.key, "listen", c.listen, "to", c.to); err != nil {
		return err
	}
	if err := c.check(); err != nil {
		return err
	}
	dk, err := readTunnelPrivateKey("-key", c.key)
	if err != nil {
		return err
	}
	s := dk.Scheme()
	cfg := &noise.Config{Protocol: c.protocol(c.allow != "", s), StaticKey: dk, HandshakeTimeout: c.timeout}
	var allowed []kem.EncapsulationKey
	if c.allow != "" {
		if allowed, err = readAllowedKeys(c.allow); err != nil {
			return err
		}
		for i, k := range allowed {
			if k.Scheme().Name() != s.Name() {
				return fmt.Errorf("-allow %s: key %d is a %s key, but the server's key is %s: a client key must be of the server key's scheme", displayName(c.allow), i+1, k.Scheme().Name(), s.Name())
			}
		}
		cfg.VerifyPeerStaticKey = allowKeys(allowed)
	}
	ln, err := noise.Listen("tcp", c.listen, cfg)
	if err != nil {
		var ne *net.OpError
		if errors.As(err, &ne) {
			return fmt.Errorf("-listen: %w", err)
		}
		return fmt.Errorf("-key %s: %w", displayName(c.key), err)
	}
	lg := newTunnelLog(out.Stderr, "serve", c.quiet)
	clients := "any client that knows its public key"
	if c.allow != "" {
		clients = fmt.Sprintf("only the clients whose keys are in %s (%d keys)", displayName(c.allow), len(allowed))
	}
	lg.printf("listening on %v, forwarding to %s, %v, server key %s, serving %s, at most %d connections at once",
		ln.Addr(), c.to, cfg.Protocol, keyfile.Fingerprint(dk.EncapsulationKey()), clients, c.max)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	return runTunnelListener(lg, ln, &c.tunnelFlags, func(conn net.Conn) {
		c.serveConn(ctx, lg, conn.(*noise.Conn))
	}, cancel)
}

// refusedKeyError is the error of [allowKeys] for a key it refuses.
type refusedKeyError struct{ fingerprint string }

func (e *refusedKeyError) Error() string { return "client key not allowed: " + e.fingerprint }
func (e *refusedKeyError) Is(target error) bool {
	return target == noise.ErrPeerKeyRefused
}

// allowKeys returns a [noise.Config.VerifyPeerStaticKey] function that
// accepts the keys ([noise.AllowPeers]) and refuses any other with a
// *refusedKeyError, which names its fingerprint for the log.
func allowKeys(keys []kem.EncapsulationKey) func(kem.EncapsulationKey) error {
	allow := noise.AllowPeers(keys...)
	return func(k kem.EncapsulationKey) error {
		if err := allow(k); err != nil {
			return &refusedKeyError{keyfile.Fingerprint(k)}
		}
		return nil
	}
}

// serveConn runs the handshake with one client and forwards its
// connection to -to.
func (c *serveCmd) serveConn(ctx context.Context, lg *tunnelLog, conn *noise.Conn) {
	remote := conn.RemoteAddr()
	if err := conn.HandshakeContext(ctx); err != nil {
		lg.printf("%v: %s", remote, serveHandshakeError(err, c.allow != "", conn.ConnectionState().Protocol))
		return
	}
	who := remote.String()
	if k := conn.ConnectionState().PeerStaticKey; k != nil {
		who += " (client key " + keyfile.Fingerprint(k) + ")"
	}
	backend, err := dialTimeout(ctx, c.to, c.timeout)
	if err != nil {
		lg.printf("%s: cannot connect to -to %s: %v; connection closed", who, c.to, err)
		return
	}
	lg.infof("%s: connected to %v", who, backend.RemoteAddr())
	start := time.Now()
	in, back, err := forward(conn, backend, c.idle)
	end := forwardEnd(start, in, back, err, "client", "service")
	if err != nil && !errors.Is(err, net.ErrClosed) {
		lg.printf("%s: %s", who, end)
	} else {
		lg.infof("%s: %s", who, end)
	}
}

// serveHandshakeError words a failed handshake of protocol p for the
// server's log; mutual says whether the server has -allow.
func serveHandshakeError(err error, mutual bool, p noise.Protocol) string {
	if re, ok := errors.AsType[*refusedKeyError](err); ok {
		return "refused: " + re.Error()
	}
	if errors.Is(err, noise.ErrAuthentication) {
		return fmt.Sprintf("handshake failed: %v: the client's -pub may not be this server's key, or it runs another -cipher or -hash", err)
	}
	// A first message of the size of the other pattern's: the client has
	// a -key and the server no -allow, or the other way round. The sizes
	// are public.
	other := p
	other.Pattern = noise.PQIK
	hint := "; the client sent a pqIK handshake (it has a -key), but this server has no -allow list"
	if mutual {
		other.Pattern = noise.PQNK
		hint = "; the client sent a pqNK handshake (it has no -key), but this server wants a client key of its -allow list"
	}
	if se, ok := errors.AsType[*noise.MessageSizeError](err); ok && se.Message == 0 {
		if otherSizes := other.MessageSizes(); len(otherSizes) > 0 && se.Got == otherSizes[0] {
			return fmt.Sprintf("handshake failed: %v%s", err, hint)
		}
	}
	return fmt.Sprintf("handshake failed: %v", err)
}
