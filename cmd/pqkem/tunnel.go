package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/pqkem/pqkem/internal/cli"
	"github.com/pqkem/pqkem/kem"
	"github.com/pqkem/pqkem/keyfile"
	"github.com/pqkem/pqkem/noise"
)

// What pqkem serve and pqkem connect share: the flags that choose the
// protocol and bound the connections, the key files, the forwarding of a
// connection both ways, the log, and the listener that stops gracefully.

// tunnelHelp is the part of both commands' help about the protocol, the
// bounds and the log.
const tunnelHelp = `

The protocol is PQNoise (package github.com/pqkem/pqkem/noise): pqNK, in
which the client knows the server's static public key beforehand (as a
pinned certificate), or pqIK, in which the client also has a static key,
sent encrypted in its first message, and the server accepts only the
client keys it lists. The KEM is the scheme of the server's key (see
'pqkem list'; eFrodoKEM is refused: its keys are not safe as long-term
keys; DHKEM-X25519-HKDF-SHA256 runs, as the classical baseline, but is
not post-quantum); the cipher and hash default to AESGCM and SHA256, and both sides
must use the same -cipher and -hash. The protocol name, such as
Noise_pqNK_MLKEM768_AESGCM_SHA256, is printed when the command starts.

The connections are served concurrently, at most -max at once: while
-max are open, further connections wait in the listening socket's queue
until one ends (the kernel may drop or refuse them when the queue is
full). Each handshake must complete within -timeout, which also bounds
connecting to -to; a peer that sends something else than the handshake,
or stalls, is dropped without affecting the other connections. With
-idle, a forwarded connection on which nothing has been read or written
for that long is closed; by default there is no idle limit. Each
direction of a forwarded connection ends with a half-close, so that a
request and its response both get through.

On SIGINT or SIGTERM the command stops accepting connections, lets those
open finish for -grace, then closes them, and exits with status 0; a
second signal closes them at once, and a third ends the command at once
(exit status 130 or 143).

Standard error has one line per event, with the UTC time and the remote
address: the start (listening address, protocol, key fingerprints), each
connection opened (with the client key's fingerprint in pqIK) and closed
(with its duration and the bytes each way), each failure (a handshake
that fails or times out, a refused client key, an unreachable -to) and
the stop. -quiet leaves out the lines of connections that succeed.
Connect without -listen logs only its start (the server, the protocol,
the key fingerprints), which -quiet leaves out, and the error that ends
it, if any. No key material and no forwarded data are logged: a
fingerprint is the first 16 bytes of the SHA-256 of a public key, in
hex.`

// tunnelFlags are the flags pqkem serve and pqkem connect share.
type tunnelFlags struct {
	cipher, hash  string
	timeout, idle time.Duration
	grace         time.Duration
	max           int
	quiet         bool
	noiseCipher   noise.Cipher
	noiseHash     noise.Hash
}

// The defaults of the bounds.
const (
	defaultMaxConns = 256
	defaultGrace    = 5 * time.Second
)

func (f *tunnelFlags) addFlags(fs *flag.FlagSet) {
	fs.StringVar(&f.cipher, "cipher", noise.AESGCM.String(), "the Noise `cipher`: "+noiseNames(noise.Ciphers())+" (the same on both sides)")
	fs.StringVar(&f.hash, "hash", noise.SHA256.String(), "the Noise `hash`: "+noiseNames(noise.Hashes())+" (the same on both sides)")
	fs.DurationVar(&f.timeout, "timeout", noise.DefaultHandshakeTimeout, "the longest a whole handshake, or connecting to -to, may take")
	fs.DurationVar(&f.idle, "idle", 0, "close a forwarded connection after this `duration` without traffic either way; 0 means no limit")
	fs.DurationVar(&f.grace, "grace", defaultGrace, "on SIGINT or SIGTERM, how long the open connections may go on before they are closed")
	fs.IntVar(&f.max, "max", defaultMaxConns, "the most connections served at once; more wait in the listening queue")
	fs.BoolVar(&f.quiet, "quiet", false, "log only failures and a listener's start and stop, not each connection that succeeds (connect without -listen: only failures)")
}

// check checks the shared flags and parses -cipher and -hash.
func (f *tunnelFlags) check() error {
	var err error
	// "-cipher: unknown cipher ...", not "-cipher: noise: unknown ...".
	if f.noiseCipher, err = noise.ParseCipher(f.cipher); err != nil {
		return cli.Usagef("-cipher: %s", strings.TrimPrefix(err.Error(), "noise: "))
	}
	if f.noiseHash, err = noise.ParseHash(f.hash); err != nil {
		return cli.Usagef("-hash: %s", strings.TrimPrefix(err.Error(), "noise: "))
	}
	switch {
	case f.timeout <= 0:
		return cli.Usagef("-timeout must be positive, got %v", f.timeout)
	case f.idle < 0:
		return cli.Usagef("-idle must not be negative, got %v", f.idle)
	case f.grace < 0:
		return cli.Usagef("-grace must not be negative, got %v", f.grace)
	case f.max < 1:
		return cli.Usagef("-max must be at least 1, got %d", f.max)
	}
	return nil
}

// noiseNames lists the Noise names of values, for the flags' help.
func noiseNames[T fmt.Stringer](values []T) string {
	names := make([]string, len(values))
	for i, v := range values {
		names[i] = v.String()
	}
	return strings.Join(names, ", ")
}

// protocol returns the protocol of a tunnel with the flags' cipher and
// hash and KEM s: pqIK if the client has a static key (mutual), else
// pqNK.
func (f *tunnelFlags) protocol(mutual bool, s kem.Scheme) noise.Protocol {
	p := noise.Protocol{Pattern: noise.PQNK, KEM: s, Cipher: f.noiseCipher, Hash: f.noiseHash}
	if mutual {
		p.Pattern = noise.PQIK
	}
	return p
}

// readTunnelPrivateKey reads the static key in the file name, which the
// flag flagName names.
func readTunnelPrivateKey(flagName, name string) (kem.DecapsulationKey, error) {
	k := &keyFlags{inform: ptr("auto"), alg: ptr("")}
	priv, err := k.readPrivateKey(name)
	if err != nil {
		return nil, tunnelKeyError(flagName, err)
	}
	return priv.Key, nil
}

// readTunnelPublicKey reads the public key in the file name.
func readTunnelPublicKey(flagName, name string) (kem.EncapsulationKey, error) {
	k := &keyFlags{inform: ptr("auto"), alg: ptr("")}
	pub, err := k.readPublicKey(name)
	if err != nil {
		return nil, tunnelKeyError(flagName, err)
	}
	return pub.Key, nil
}

func ptr[T any](v T) *T { return &v }

// tunnelKeyError words an error reading the key file of a flag.
func tunnelKeyError(flagName string, err error) error {
	return fmt.Errorf("%s %w", flagName, err)
}

// maxAllowFile is the largest -allow file: thousands of keys.
const maxAllowFile = 16 << 20

// readAllowedKeys reads the public keys of the PEM blocks in the file
// name, each as a public key file would hold it; text between the blocks
// is ignored. It needs at least one.
func readAllowedKeys(name string) ([]kem.EncapsulationKey, error) {
	data, err := readInput(name, maxAllowFile, "-allow files")
	if err != nil {
		return nil, fmt.Errorf("-allow %w", err)
	}
	var keys []kem.EncapsulationKey
	for i := 1; ; i++ {
		start := bytes.Index(data, []byte("-----BEGIN "))
		if start < 0 {
			break
		}
		end := bytes.Index(data[start:], []byte("-----END "))
		if end < 0 {
			return nil, fmt.Errorf("-allow %s: key %d: a PEM block without its END line", displayName(name), i)
		}
		end += start
		if eol := bytes.IndexByte(data[end:], '\n'); eol >= 0 {
			end += eol + 1
		} else {
			end = len(data)
		}
		pub, err := keyfile.DecodePublicKey(data[start:end], nil)
		if err != nil {
			return nil, fmt.Errorf("-allow %s: key %d: %w", displayName(name), i, err)
		}
		keys = append(keys, pub.Key)
		data = data[end:]
	}
	if len(keys) == 0 {
		return nil, fmt.Errorf("-allow %s: no PEM public key in it, want one or more client public keys", displayName(name))
	}
	return keys, nil
}

// tunnelLog writes the log lines of a tunnel to standard error, one line
// an event, with the UTC time.
type tunnelLog struct {
	l     *log.Logger
	quiet bool
}

func newTunnelLog(w io.Writer, command string, quiet bool) *tunnelLog {
	return &tunnelLog{log.New(w, "pqkem "+command+": ", log.LstdFlags|log.LUTC|log.Lmsgprefix), quiet}
}

// printf logs an event that is always logged: the start, the stop, a
// failure.
func (t *tunnelLog) printf(format string, args ...any) { t.l.Printf(format, args...) }

// infof logs an event of a connection that succeeds, unless -quiet.
func (t *tunnelLog) infof(format string, args ...any) {
	if !t.quiet {
		t.l.Printf(format, args...)
	}
}

// runTunnelListener serves the connections of ln with handle, at most
// f.max at once, until Accept fails or a signal stops it (see the
// command's doc); stop is called when the connections left must end.
// It returns nil after a signal.
func runTunnelListener(lg *tunnelLog, ln net.Listener, f *tunnelFlags, handle func(net.Conn), stop func()) error {
	signals, release := notifyStop()
	defer release()
	pool := newConnPool(f.max)
	accepting := pool.start(ln, handle)
	finished := make(chan struct{})
	var err error
	var sig os.Signal
	select {
	case err = <-accepting:
		err = fmt.Errorf("accepting connections on %v: %w", ln.Addr(), err)
		pool.stopAccepting()
	case sig = <-signals:
		pool.stopAccepting()
		lg.printf("%v: stopping: no new connections, %d open may finish within %v", sig, pool.active(), f.grace)
	}
	go func() {
		pool.wait()
		close(finished)
	}()
	if sig != nil {
		grace := time.NewTimer(f.grace)
		defer grace.Stop()
		select {
		case <-finished:
		case <-grace.C:
			lg.printf("closing the %d connections still open after %v", pool.active(), f.grace)
		case sig = <-signals:
			lg.printf("%v: closing the %d connections still open", sig, pool.active())
		}
	}
	stop()
	pool.closeAll()
	<-finished
	if err == nil {
		lg.printf("stopped")
	}
	return err
}

// halfCloser is a connection whose writing side can be shut down alone:
// *net.TCPConn and *noise.Conn.
type halfCloser interface {
	net.Conn
	CloseWrite() error
}

// forwardBufferSize is the size of the buffers of forward: one transport
// message of Noise's largest plaintext.
const forwardBufferSize = noise.MaxPlaintextSize

// forward copies a to b and b to a until both directions have ended, each
// with a half-close of its destination once its source has sent
// everything, or until one fails, which closes both. With idle > 0, a
// connection on which nothing is read or written for idle is closed. It
// returns the bytes copied each way and the first error, and closes
// both connections.
func forward(a, b halfCloser, idle time.Duration) (aToB, bToA int64, err error) {
	var last atomic.Int64 // the last activity, in Unix nanoseconds
	last.Store(time.Now().UnixNano())
	ra, rb := withIdle(a, idle, &last), withIdle(b, idle, &last)
	var once sync.Once
	var first error
	fail := func(err error) {
		once.Do(func() {
			first = err
			a.Close()
			b.Close()
		})
	}
	copyHalf := func(dst halfCloser, w, r net.Conn, n *int64) {
		buf := make([]byte, forwardBufferSize)
		var err error
		*n, err = io.CopyBuffer(struct{ io.Writer }{w}, struct{ io.Reader }{r}, buf)
		if err == nil {
			err = dst.CloseWrite()
		}
		if err != nil {
			fail(err)
		}
	}
	var wg sync.WaitGroup
	wg.Go(func() { copyHalf(b, rb, ra, &aToB) })
	copyHalf(a, ra, rb, &bToA)
	wg.Wait()
	a.Close()
	b.Close()
	return aToB, bToA, first
}

// withIdle returns c with each Read and Write bounded by idle, and
// retried while the other direction has been active within idle; with
// idle 0, c itself.
func withIdle(c net.Conn, idle time.Duration, last *atomic.Int64) net.Conn {
	if idle <= 0 {
		return c
	}
	return &idleConn{c, idle, last}
}

type idleConn struct {
	net.Conn
	idle time.Duration
	last *atomic.Int64
}

var errIdle = errors.New("idle timeout")

func (c *idleConn) Read(b []byte) (int, error) {
	for {
		c.Conn.SetReadDeadline(time.Now().Add(c.idle))
		n, err := c.Conn.Read(b)
		if n > 0 {
			c.last.Store(time.Now().UnixNano())
		}
		if ne, ok := errors.AsType[net.Error](err); ok && ne.Timeout() && n == 0 {
			if time.Since(time.Unix(0, c.last.Load())) < c.idle {
				continue // the other direction is active
			}
			return 0, fmt.Errorf("%w: nothing either way for %v", errIdle, c.idle)
		}
		return n, err
	}
}

func (c *idleConn) Write(b []byte) (int, error) {
	c.Conn.SetWriteDeadline(time.Now().Add(c.idle))
	n, err := c.Conn.Write(b)
	c.last.Store(time.Now().UnixNano())
	if ne, ok := errors.AsType[net.Error](err); ok && ne.Timeout() {
		return n, fmt.Errorf("%w: the peer read nothing for %v", errIdle, c.idle)
	}
	return n, err
}

// forwardEnd words how a forwarded connection ended, for the log.
func forwardEnd(start time.Time, in, out int64, err error, inName, outName string) string {
	s := fmt.Sprintf("closed after %v, %d bytes from the %s, %d bytes from the %s", time.Since(start).Round(time.Millisecond), in, inName, out, outName)
	if err != nil && !errors.Is(err, net.ErrClosed) {
		s += ": " + err.Error()
	}
	return s
}

// isClosedDuringHandshake reports whether a handshake error is the peer
// closing or resetting the connection.
func isClosedDuringHandshake(err error) bool {
	return errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) || isReset(err)
}

// isReset reports whether err is the peer resetting the connection: a
// write or a shutdown after the peer closed with unread data, or a read
// that the reset interrupted.
func isReset(err error) bool {
	return errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE) || errors.Is(err, syscall.ENOTCONN)
}

// dialTimeout dials the TCP address addr within timeout, or until ctx ends.
func dialTimeout(ctx context.Context, addr string, timeout time.Duration) (*net.TCPConn, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	var d net.Dialer
	c, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return nil, err
	}
	tc, ok := c.(*net.TCPConn)
	if !ok {
		c.Close()
		return nil, fmt.Errorf("%s: not a TCP connection", addr)
	}
	return tc, nil
}
