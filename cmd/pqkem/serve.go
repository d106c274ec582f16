package main

import (
	"context"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"net"
	"strings"
	"sync/atomic"

	"github.com/pqkem/pqkem/internal/cli"
	"github.com/pqkem/pqkem/internal/proxyproto"
	"github.com/pqkem/pqkem/internal/sockets"
	"github.com/pqkem/pqkem/internal/tunnel"
	"github.com/pqkem/pqkem/kem"
	"github.com/pqkem/pqkem/keyfile"
	"github.com/pqkem/pqkem/noise"
)

var cmdServe = &cli.Command{
	Name:    "serve",
	Summary: "accept PQNoise connections and forward each to a TCP or Unix service",
	Args:    "-key FILE -listen ADDR -to ADDR [-allow FILE] [flags]",
	Doc: `
Serve is the server end of a tunnel: it accepts PQNoise connections on
-listen, runs the handshake with the static key -key, and forwards each
connection to the service at -to, the bytes unchanged both ways. Clients
run 'pqkem connect' with the server's public key ('pqkem pub -in
server.pem'). Without -allow, any client that knows that key may connect
(pqNK); with -allow, only the clients whose keys the file lists (pqIK).
SIGHUP rereads -key and -allow; SIGINT or SIGTERM stop it (status 0).

'pqkem help tunnel' says the rest: addresses, the protocol and its keys,
the PROXY header, the handshake pool and rate limit, reloads, -status,
how connections end, signals and the log.`,
	Example: `
pqkem serve -key server.pem -listen :9443 -to 127.0.0.1:8080
pqkem keygen -alg ML-KEM-768 -out server.pem -pub server.pub
pqkem serve -key server.pem -listen :9443 -to 127.0.0.1:22 -allow clients.pub
pqkem serve -key server.pem -listen systemd -to unix:/run/app.sock -quiet`,
	New: func() cli.Runner { return new(serveCmd) },
}

// serveCmd is one run of pqkem serve.
type serveCmd struct {
	tunnelConfig
	key, listen, to, allow string
	maxHandshakes          int
	perSource              int
	rate                   float64
	burst                  int
	proxyProtocol          bool

	listenAddr, toAddr sockets.Addr
	keys               atomic.Pointer[serveKeys] // the keys new connections use
}

func (c *serveCmd) Flags(fs *flag.FlagSet) {
	fs.StringVar(&c.key, "key", "", "the server's private key `FILE`; required")
	fs.StringVar(&c.listen, "listen", "", "accept on `ADDR`: HOST:PORT, unix:PATH, fd:N or systemd")
	fs.StringVar(&c.to, "to", "", "forward to the service at `ADDR`: HOST:PORT or unix:PATH")
	fs.StringVar(&c.allow, "allow", "", "only the client keys in `FILE` (PEM blocks), with pqIK")
	fs.IntVar(&c.maxHandshakes, "max-handshakes", defaultMaxHandshakes, "the most connections in their handshake")
	fs.IntVar(&c.perSource, "max-per-source", defaultPerSource, "most handshakes from one address; 0: none")
	fs.Float64Var(&c.rate, "rate", defaultRate, "per-address failed handshakes/s; 0: no limit")
	fs.IntVar(&c.burst, "burst", defaultBurst, "failed handshakes per address beyond -rate")
	fs.BoolVar(&c.proxyProtocol, "proxy-protocol", false, "send a PROXY protocol v2 header to -to first")
	fs.StringVar(&c.status, "status", "", "serve /healthz and /metrics on `ADDR` (loopback or unix:)")
	c.addFlags(fs)
}

// serveKeys are the keys of the server and the Noise configuration built
// from them, which SIGHUP replaces.
type serveKeys struct {
	static  kem.DecapsulationKey
	allowed []kem.EncapsulationKey
	config  *noise.Config
}

func (c *serveCmd) check() error {
	if err := required("key", c.key, "listen", c.listen, "to", c.to); err != nil {
		return err
	}
	if err := c.tunnelConfig.check(); err != nil {
		return err
	}
	switch {
	case c.maxHandshakes < 1:
		return cli.Usagef("-max-handshakes must be at least 1, got %d", c.maxHandshakes)
	case c.perSource < 0:
		return cli.Usagef("-max-per-source must not be negative, got %d", c.perSource)
	case c.rate < 0:
		return cli.Usagef("-rate must not be negative, got %v", c.rate)
	case c.burst < 1:
		return cli.Usagef("-burst must be at least 1, got %d", c.burst)
	}
	var err error
	if c.listenAddr, err = parseListenAddr(c.listen); err != nil {
		return err
	}
	if c.toAddr, err = parseDialAddr("to", c.to); err != nil {
		return err
	}
	if c.status != "" {
		_, err = checkStatus(c.status)
	}
	return err
}

func (c *serveCmd) Run(out *cli.Output, args []string) error {
	if err := cli.NoArgs(args); err != nil {
		return err
	}
	if err := c.check(); err != nil {
		return err
	}
	// SIGHUP reloads from now on: before the log says it listens.
	reloads, stopReloads := notifyReload()
	defer stopReloads()
	keys, err := c.loadKeys()
	if err != nil {
		return err
	}
	c.keys.Store(keys)
	ln, err := listen(c.listenAddr, c.toAddr)
	if err != nil {
		return err
	}
	lg := newTunnelLog(out.Stderr, "serve", c.quiet, true)
	defer lg.Close()
	metrics := tunnel.NewMetrics()
	stopStatus, err := startStatus(c.status, metrics, lg)
	if err != nil {
		ln.Close()
		return err
	}
	defer stopStatus()
	p := &tunnel.Proxy{
		Limits: tunnel.Limits{
			MaxConns:      c.max,
			MaxHandshakes: c.maxHandshakes,
			MaxPerSource:  c.perSource,
			Rate:          c.rate,
			Burst:         c.burst,
			Timeout:       c.timeout,
			Idle:          c.idle,
			BufferSize:    noise.MaxPlaintextSize,
		},
		WaitFirstBytes: true,
		Names:          [2]string{"client", "service"},
		Handshake:      c.handshake,
		Dial:           c.dial,
		Describe:       c.describe,
		Cause:          forwardCause,
		Log:            lg,
		Metrics:        metrics,
	}
	lg.Printf("listening on %v, forwarding to %v, %v, server key %s, serving %s, at most %s at once",
		ln.Addr(), c.toAddr, keys.config.Protocol, keyfile.Fingerprint(keys.static.EncapsulationKey()), c.clients(keys), count(c.max, "connection"))
	return runProxy(lg, ln, p, c.grace, reloads, func() { c.reload(lg) })
}

// clients words who may connect, for the log.
func (c *serveCmd) clients(keys *serveKeys) string {
	if c.allow == "" {
		return "any client that knows its public key"
	}
	return fmt.Sprintf("only the clients whose keys are in %s (%s)", displayName(c.allow), count(len(keys.allowed), "key"))
}

// loadKeys reads -key and -allow, and checks them together.
func (c *serveCmd) loadKeys() (*serveKeys, error) {
	dk, err := readTunnelPrivateKey("-key", c.key)
	if err != nil {
		return nil, err
	}
	s := dk.Scheme()
	k := &serveKeys{static: dk}
	cfg := &noise.Config{Protocol: c.protocol(c.allow != "", s), StaticKey: dk, HandshakeTimeout: c.timeout}
	if c.allow != "" {
		if k.allowed, err = readAllowedKeys(c.allow); err != nil {
			return nil, err
		}
		for i, ak := range k.allowed {
			if ak.Scheme().Name() != s.Name() {
				return nil, fmt.Errorf("-allow %s: key %d is of %s, but the server's key is of %s: a client key must be of the server key's scheme", displayName(c.allow), i+1, ak.Scheme().Name(), s.Name())
			}
		}
		cfg.VerifyPeerStaticKey = allowKeys(k.allowed)
	}
	if _, err := noise.NewHandshakeState(&noise.HandshakeConfig{Protocol: cfg.Protocol, StaticKey: dk}); err != nil {
		return nil, cli.WithHint(fmt.Errorf("-key %s: %w", displayName(c.key), err), staticKeyHint(s))
	}
	// Precomputed once here, not by the first handshakes at once.
	if p, ok := dk.(kem.Precomputer); ok {
		p.Precompute()
	}
	k.config = cfg
	return k, nil
}

// reload reads -key and -allow again, for SIGHUP, and uses them for the
// connections from now on if they are good.
func (c *serveCmd) reload(lg *tunnel.Log) {
	keys, err := c.loadKeys()
	if err != nil {
		lg.Printf("SIGHUP: keeping the keys in use: %v", err)
		return
	}
	c.keys.Store(keys)
	lg.Printf("SIGHUP: reloaded: server key %s, serving %s%s", keyfile.Fingerprint(keys.static.EncapsulationKey()), c.clients(keys), allowedFingerprints(keys.allowed))
}

// allowedFingerprints lists the fingerprints of the allowed keys, for the
// reload's log line: all of them up to 8, else the count.
func allowedFingerprints(keys []kem.EncapsulationKey) string {
	if len(keys) == 0 || len(keys) > 8 {
		return ""
	}
	fps := make([]string, len(keys))
	for i, k := range keys {
		fps[i] = keyfile.Fingerprint(k)
	}
	return ": " + strings.Join(fps, ", ")
}

// handshake runs the server's side of the handshake on c.Front with the
// keys in use now. It ends once the client has proven that it completed
// the handshake (package noise's server reads the client's confirmation
// as the handshake's last step).
func (c *serveCmd) handshake(ctx context.Context, tc *tunnel.Conn) error {
	keys := c.keys.Load()
	conn := noise.Server(tc.Front, keys.config)
	tc.Front = conn
	if err := conn.HandshakeContext(ctx); err != nil {
		return err
	}
	if k := conn.ConnectionState().PeerStaticKey; k != nil {
		fp := keyfile.Fingerprint(k)
		tc.Who += " (client key " + fp + ")"
		tc.Value = fp
	}
	return nil
}

// dial connects to -to for a client whose handshake is complete, and
// sends the PROXY header first if asked.
func (c *serveCmd) dial(ctx context.Context, tc *tunnel.Conn) error {
	back, err := sockets.Dial(ctx, c.toAddr)
	if err != nil {
		return fmt.Errorf("cannot connect to -to %v: %v", c.toAddr, strings.TrimPrefix(err.Error(), "sockets: "))
	}
	if c.proxyProtocol {
		var tlvs []proxyproto.TLV
		if fp, ok := tc.Value.(string); ok {
			tlvs = append(tlvs, proxyproto.TLV{Type: proxyTLVClientKey, Value: fingerprintBytes(fp)})
		}
		hdr, err := proxyproto.AppendHeader(nil, tc.Accepted.RemoteAddr(), tc.Accepted.LocalAddr(), tlvs...)
		if err == nil {
			_, err = back.Write(hdr)
		}
		if err != nil {
			tunnel.Reset(back)
			return fmt.Errorf("sending the PROXY header to -to %v: %v", c.toAddr, err)
		}
	}
	tc.Back = back
	return nil
}

// proxyTLVClientKey is the type of the PROXY protocol TLV that carries
// the client key's fingerprint: the first of the custom range.
const proxyTLVClientKey = proxyproto.TypeMinCustom

// fingerprintBytes returns the 16 bytes of a fingerprint, "SHA256:" and
// their hex.
func fingerprintBytes(fp string) []byte {
	b, _ := hex.DecodeString(strings.TrimPrefix(fp, "SHA256:"))
	return b
}

// describe words a failed handshake for the log, with its cause.
func (c *serveCmd) describe(err error) (cause, text string) {
	p := c.keys.Load().config.Protocol
	if re, ok := errors.AsType[*refusedKeyError](err); ok {
		return "refused", re.Error()
	}
	if errors.Is(err, tunnel.ErrNoHandshake) {
		return "no-handshake", err.Error()
	}
	if errors.Is(err, noise.ErrAuthentication) {
		return "authentication", fmt.Sprintf("handshake failed: %v: the client's -pub may not be this server's key, or it runs another -cipher or -hash", err)
	}
	if se, ok := errors.AsType[*noise.MessageSizeError](err); ok {
		return "protocol", "handshake failed: " + se.Error() + sizeHint(se, p, c.allow != "")
	}
	if ne, ok := errors.AsType[net.Error](err); ok && ne.Timeout() || errors.Is(err, context.DeadlineExceeded) {
		return "timeout", "handshake failed: " + err.Error()
	}
	if isClosedDuringHandshake(err) {
		return "closed", "handshake failed: " + err.Error()
	}
	return "failed", "handshake failed: " + err.Error()
}

// sizeHint says what a first message of the size of the other pattern's
// means: the client has a -key and the server no -allow, or the other way
// round. The sizes are public.
func sizeHint(se *noise.MessageSizeError, p noise.Protocol, mutual bool) string {
	other := p
	other.Pattern = noise.PQIK
	hint := "; the client sent a pqIK handshake (it has a -key), but this server has no -allow list"
	if mutual {
		other.Pattern = noise.PQNK
		hint = "; the client sent a pqNK handshake (it has no -key), but this server wants a client key of its -allow list"
	}
	if sizes := other.MessageSizes(); se.Message == 0 && len(sizes) > 0 && se.Got == sizes[0] {
		return hint
	}
	if se.Message != 0 {
		return ""
	}
	// The first message holds the client's ephemeral key: name the
	// -ephemeral KEMs that give its size.
	current := p.KEM
	if p.EphemeralKEM != nil {
		current = p.EphemeralKEM
	}
	var names []string
	for _, e := range kem.All() {
		q := p
		q.EphemeralKEM = e
		if sizes := q.MessageSizes(); len(sizes) > 0 && se.Got == sizes[0] && e.Name() != current.Name() {
			names = append(names, e.Name())
		}
	}
	if len(names) == 0 {
		return ""
	}
	if n := len(names); n > 1 {
		names[n-2] += " or " + names[n-1]
		names = names[:n-1]
	}
	return "; the client's -ephemeral may be " + strings.Join(names, ", ")
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
