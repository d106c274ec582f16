package main

import (
	"bytes"
	"encoding/pem"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"strings"
	"syscall"
	"time"

	"github.com/pqkem/pqkem/internal/cli"
	"github.com/pqkem/pqkem/internal/tunnel"
	"github.com/pqkem/pqkem/kem"
	"github.com/pqkem/pqkem/keyfile"
	"github.com/pqkem/pqkem/noise"
)

// What pqkem serve and pqkem connect share: the flags that choose the
// protocol and bound the connections, the key files, the wording of
// failures, and the run of a listener that stops gracefully. The
// forwarding itself is package internal/tunnel's.

// tunnelConfig is the configuration both commands parse their shared
// flags into.
type tunnelConfig struct {
	cipher, hash string // as given; check parses them
	ephemeral    string // as given; check parses it
	timeout      time.Duration
	idle         time.Duration
	grace        time.Duration
	max          int
	quiet        bool
	status       string

	noiseCipher  noise.Cipher
	noiseHash    noise.Hash
	ephemeralKEM kem.Scheme // nil: the static key's scheme
}

// The defaults of the bounds.
const (
	defaultMaxConns      = 256
	defaultMaxHandshakes = 1024
	defaultPerSource     = 16
	defaultRate          = 5 // failed handshakes a second an address
	defaultBurst         = 10
	defaultGrace         = 5 * time.Second
)

func (f *tunnelConfig) addFlags(fs *flag.FlagSet) {
	fs.StringVar(&f.cipher, "cipher", noise.AESGCM.String(), "the Noise `cipher`: "+noiseNames(noise.Ciphers()))
	fs.StringVar(&f.hash, "hash", noise.SHA256.String(), "the Noise `hash`: "+noiseNames(noise.Hashes()))
	fs.StringVar(&f.ephemeral, "ephemeral", "", "ephemeral keys of this `KEM`, the same both sides")
	fs.DurationVar(&f.timeout, "timeout", noise.DefaultHandshakeTimeout, "limit on handshake, -max wait, -to dial")
	fs.DurationVar(&f.idle, "idle", 0, "end a connection idle this long; 0: no limit")
	fs.DurationVar(&f.grace, "grace", defaultGrace, "how long open connections go on at a stop")
	fs.IntVar(&f.max, "max", defaultMaxConns, "the most connections forwarded at once")
	fs.BoolVar(&f.quiet, "quiet", false, "log no line for the connections that succeed")
}

// check checks the shared flags and parses -cipher and -hash.
func (f *tunnelConfig) check() error {
	var err error
	// "-cipher: unknown cipher ...", not "-cipher: noise: unknown ...".
	if f.noiseCipher, err = noise.ParseCipher(f.cipher); err != nil {
		return cli.Usagef("-cipher: %s", strings.TrimPrefix(err.Error(), "noise: "))
	}
	if f.noiseHash, err = noise.ParseHash(f.hash); err != nil {
		return cli.Usagef("-hash: %s", strings.TrimPrefix(err.Error(), "noise: "))
	}
	if f.ephemeral != "" {
		if f.ephemeralKEM, err = kem.ByName(f.ephemeral); err != nil {
			return cli.Usagef("-ephemeral: unknown KEM %q (see 'pqkem list')", f.ephemeral)
		}
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

// protocol returns the protocol of a tunnel with the flags' cipher, hash
// and ephemeral KEM and the static KEM s: pqIK if the client has a static
// key (mutual), else pqNK.
func (f *tunnelConfig) protocol(mutual bool, s kem.Scheme) noise.Protocol {
	p := noise.Protocol{Pattern: noise.PQNK, KEM: s, Cipher: f.noiseCipher, Hash: f.noiseHash}
	if e := f.ephemeralKEM; e != nil && e.Name() != s.Name() {
		p.EphemeralKEM = e
	}
	if mutual {
		p.Pattern = noise.PQIK
	}
	return p
}

// readTunnelPrivateKey reads the static key in the file name, which the
// flag flagName names.
func readTunnelPrivateKey(flagName, name string) (kem.DecapsulationKey, error) {
	data, err := readInput(name, maxPrivateKeyFile, "private key files")
	if err != nil {
		return nil, fmt.Errorf("%s %w", flagName, err)
	}
	priv, err := keyfile.DecodePrivateKey(data, nil)
	if err != nil {
		return nil, cli.WithHint(fmt.Errorf("%s %s: %w", flagName, displayName(name), err), keyHint(data, nil, true))
	}
	return priv.Key, nil
}

// readTunnelPublicKey reads the public key in the file name.
func readTunnelPublicKey(flagName, name string) (kem.EncapsulationKey, error) {
	data, err := readInput(name, maxPublicKeyFile, "public key files and certificates")
	if err != nil {
		return nil, fmt.Errorf("%s %w", flagName, err)
	}
	pub, err := keyfile.DecodePublicKey(data, nil)
	if err != nil {
		return nil, cli.WithHint(fmt.Errorf("%s %s: %w", flagName, displayName(name), err), keyHint(data, nil, false))
	}
	return pub.Key, nil
}

// maxAllowFile is the largest -allow file: thousands of keys.
const maxAllowFile = 16 << 20

// readAllowedKeys reads the public keys of the PEM blocks in the file
// name, each decoded as a public key file; text between the blocks is
// ignored. It needs at least one.
func readAllowedKeys(name string) ([]kem.EncapsulationKey, error) {
	data, err := readInput(name, maxAllowFile, "-allow files")
	if err != nil {
		return nil, fmt.Errorf("-allow %w", err)
	}
	var keys []kem.EncapsulationKey
	for rest := data; ; {
		var block *pem.Block
		block, rest = pem.Decode(rest)
		if block == nil {
			if bytes.Contains(rest, []byte("-----BEGIN ")) {
				return nil, fmt.Errorf("-allow %s: key %d: malformed PEM block", displayName(name), len(keys)+1)
			}
			break
		}
		pub, err := keyfile.DecodePublicKey(pem.EncodeToMemory(block), nil)
		if err != nil {
			return nil, fmt.Errorf("-allow %s: key %d: %w", displayName(name), len(keys)+1, err)
		}
		keys = append(keys, pub.Key)
	}
	if len(keys) == 0 {
		return nil, fmt.Errorf("-allow %s: no PEM public key in it, want one or more", displayName(name))
	}
	return keys, nil
}

// failureLogInterval is the interval of the failures' summary in the
// log of a listener. Tests shorten it.
var failureLogInterval = time.Minute

// newTunnelLog returns the log of a tunnel command: with a summary of
// the failures if it listens (see topicTunnel).
func newTunnelLog(w io.Writer, command string, quiet, listens bool) *tunnel.Log {
	interval := time.Duration(0)
	if listens {
		interval = failureLogInterval
	}
	return tunnel.NewLog(w, "pqkem "+command+": ", quiet, interval)
}

// runProxy serves the connections of ln with p until Accept fails or a
// signal stops it (see the commands' help); reload, if not nil, is
// called on each signal of reloads. It returns nil after a stop signal.
func runProxy(lg *tunnel.Log, ln net.Listener, p *tunnel.Proxy, grace time.Duration, reloads <-chan os.Signal, reload func()) error {
	signals, release := notifyStop()
	defer release()
	if listenHook != nil {
		listenHook(ln.Addr())
	}
	accepting := p.Start(ln)
	var err error
	var sig os.Signal
wait:
	for {
		select {
		case err = <-accepting:
			err = fmt.Errorf("accepting connections on %v: %w", ln.Addr(), err)
			p.StopAccepting()
			break wait
		case sig = <-signals:
			p.StopAccepting()
			lg.Printf("%v: stopping: no new connections, %d open may finish within %v", sig, p.Open(), grace)
			break wait
		case <-reloads:
			reload()
		}
	}
	finished := make(chan struct{})
	go func() {
		p.Wait()
		close(finished)
	}()
	if sig != nil {
		timer := time.NewTimer(grace)
		defer timer.Stop()
	grace:
		for {
			select {
			case <-finished:
				break grace
			case <-timer.C:
				lg.Printf("cutting %s still open after %v", count(p.Open(), "connection"), grace)
				break grace
			case sig = <-signals:
				lg.Printf("%v: cutting %s still open", sig, count(p.Open(), "connection"))
				break grace
			case <-reloads:
				reload()
			}
		}
	}
	p.Cut()
	<-finished
	lg.Close()
	if err == nil {
		lg.Printf("stopped")
	}
	return err
}

// failureCause returns the cause of a failure of a forwarded connection
// or a handshake, one word for the metrics and the log's summary, and
// what it means.
func failureCause(err error) (cause, meaning string) {
	switch {
	case err == nil:
		return "ok", ""
	case errors.Is(err, tunnel.ErrIdle):
		return "idle", "idle timeout"
	case errors.Is(err, tunnel.ErrCut):
		return "shutdown", "cut at shutdown"
	case errors.Is(err, noise.ErrAuthentication):
		return "tampered", "a message failed authentication (tampered, replayed or reordered)"
	case errors.Is(err, io.ErrUnexpectedEOF):
		return "truncated", "the stream ended without its end marker (truncated)"
	case isReset(err):
		return "reset", "connection reset"
	}
	if ne, ok := errors.AsType[net.Error](err); ok && ne.Timeout() {
		return "timeout", "timeout"
	}
	return "failed", ""
}

// forwardCause is failureCause's cause alone, for tunnel.Proxy.
func forwardCause(err error) string {
	cause, _ := failureCause(err)
	return cause
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

// staticKeyHint suggests, for a tunnel key of scheme s that Noise refused,
// a scheme whose keys may serve as static keys.
func staticKeyHint(s kem.Scheme) string {
	if !kem.EphemeralOnly(s) {
		return ""
	}
	if salted, ok := strings.CutPrefix(s.Name(), "e"); ok {
		if _, err := kem.ByName(salted); err == nil {
			return "a tunnel needs a key without a ciphertext limit: 'pqkem keygen -alg " + salted + "' makes one of the same level"
		}
	}
	return "a tunnel needs a key without a ciphertext limit, such as 'pqkem keygen -alg ML-KEM-768'"
}
