package noise

import (
	"bytes"
	"errors"
	"fmt"
	"time"

	"github.com/pqkem/pqkem/kem"
)

// DefaultHandshakeTimeout is the handshake timeout of a [Config] whose
// HandshakeTimeout is zero.
const DefaultHandshakeTimeout = 10 * time.Second

// ErrPeerKeyRefused is returned (wrapped, with the reason) by a handshake
// whose peer's static key is not the expected one, or was refused by
// [Config.VerifyPeerStaticKey].
var ErrPeerKeyRefused = errors.New("noise: peer static key refused")

// A Config configures a [Conn]: the client's or the server's side of one
// protocol. A Config may be shared by many connections and must not be
// changed while they use it.
type Config struct {
	// Protocol is the protocol both sides run; the client is the
	// initiator, the server the responder. Its zero fields take defaults,
	// so that a zero Config with keys works: a zero Cipher is AESGCM and
	// a zero Hash SHA256 (the defaults of `pqkem serve` and `pqkem
	// connect`); a nil KEM is the scheme of StaticKey, or else of
	// PeerStaticKey (of its KEM half for a hybrid key); a zero Pattern is
	// PQNK (HybridNK with hybrid keys), in which the server has a static
	// key and the client knows it beforehand: give the server StaticKey
	// and the client PeerStaticKey. [Conn.ConnectionState] reports the
	// protocol with its defaults filled in.
	Protocol Protocol

	// Prologue is data both sides must agree on without sending it; it
	// may be empty. A mismatch fails the handshake.
	Prologue []byte

	// StaticKey is this side's static key pair, required exactly when
	// [Pattern.NeedsStaticKey] says so for this side: for example the
	// server's in pqNK, and both sides' in pqIK and pqKK. It is of the
	// protocol's static KEM, [Protocol.KEM] (a [*HybridDecapsulationKey]
	// of it in a hybrid pattern), which must not be an ephemeral-only KEM
	// ([kem.EphemeralOnly]). Since it serves
	// every handshake of the Config, [Listen], [NewListener], [Dial] and
	// [Dialer] precompute it, or else the first handshake does, if its
	// scheme can ([kem.Precomputer]), once: a FrodoKEM key then keeps its
	// matrix A, 800 KiB to 3.4 MiB, which makes each handshake's
	// operations with it up to a quarter faster with the AES sets, about
	// five times with SHAKE.
	StaticKey kem.DecapsulationKey

	// PeerStaticKey is the peer's static public key, if this side knows
	// it. In a pattern where it is known beforehand
	// ([Pattern.NeedsPeerStaticKey]: the server's key for a client in
	// pqNK, pqXK, pqIK and pqKK; the client's key for a server in pqKN,
	// pqKK and pqKX) it is required. In a pattern where the peer sends its
	// static key, it is optional, and if set the key the peer sends must
	// be this one (pinning). A key known beforehand is precomputed as
	// StaticKey is.
	PeerStaticKey kem.EncapsulationKey

	// VerifyPeerStaticKey, if not nil, is called with the static key the
	// peer sends, as soon as the message that carries it has been read
	// and authenticated, and before this side sends anything more; an
	// error aborts the handshake: ErrPeerKeyRefused itself to say that
	// the key is not allowed, or any error that says why. A server that accepts a set of client
	// keys (in pqXN, pqXK, pqXX, pqIN, pqIK or pqIX) sets it, for example
	// to [AllowPeers]. It is not called for a PeerStaticKey known
	// beforehand.
	VerifyPeerStaticKey func(kem.EncapsulationKey) error

	// PSKs are the pre-shared keys of a pattern with psk tokens
	// ([Pattern.WithPSK], such as pqXXpsk3), 32 bytes each, in the order
	// the handshake uses them (ascending psk positions); see
	// [HandshakeConfig.PSKs]. Both sides give the same; with another PSK
	// the handshake fails with [ErrAuthentication].
	PSKs [][]byte

	// HandshakeTimeout bounds the whole handshake, so that a peer that
	// stalls cannot hold a connection and its goroutine: zero means
	// DefaultHandshakeTimeout, a negative value no timeout (then a
	// context or a deadline should bound it).
	HandshakeTimeout time.Duration
}

// protocol returns c.Protocol with its zero fields filled in (see
// [Config.Protocol]).
func (c *Config) protocol() Protocol {
	p := c.Protocol
	if p.Cipher == 0 {
		p.Cipher = AESGCM
	}
	if p.Hash == 0 {
		p.Hash = SHA256
	}
	var key kem.Scheme
	hybrid := false
	if c.StaticKey != nil {
		key = c.StaticKey.Scheme()
		_, hybrid = c.StaticKey.(*HybridDecapsulationKey)
	} else if c.PeerStaticKey != nil {
		key = c.PeerStaticKey.Scheme()
		_, hybrid = c.PeerStaticKey.(*HybridEncapsulationKey)
	}
	if h, ok := key.(hybridScheme); ok {
		key = h.k
	}
	if p.KEM == nil {
		p.KEM = key
	}
	if p.Pattern == 0 {
		p.Pattern = PQNK
		if hybrid {
			p.Pattern = HybridNK
		}
	}
	return p
}

func (c *Config) handshakeTimeout() time.Duration {
	if c.HandshakeTimeout == 0 {
		return DefaultHandshakeTimeout
	}
	return c.HandshakeTimeout
}

// handshakeConfig returns the HandshakeConfig of the client or the server.
func (c *Config) handshakeConfig(client bool) *HandshakeConfig {
	hc := &HandshakeConfig{
		Protocol:  c.protocol(),
		Initiator: client,
		Prologue:  c.Prologue,
		StaticKey: c.StaticKey,
		PSKs:      c.PSKs,
	}
	if hc.Protocol.Pattern.NeedsPeerStaticKey(client) {
		hc.PeerStaticKey = c.PeerStaticKey
	}
	return hc
}

// precompute has the static keys that every handshake of c uses (this
// side's, and the peer's when it is known beforehand) keep what their
// operations would otherwise compute each time, if their schemes can.
// Precompute does the work once per key, however many handshakes ask at
// the same time; later calls cost an atomic load.
func (c *Config) precompute(client bool) {
	if k, ok := c.StaticKey.(kem.Precomputer); ok {
		k.Precompute()
	}
	if c.protocol().Pattern.NeedsPeerStaticKey(client) {
		if k, ok := c.PeerStaticKey.(kem.Precomputer); ok {
			k.Precompute()
		}
	}
}

// check returns the error that a handshake with c would fail with before
// any message, so that Listen and Dial report a wrong Config at once.
func (c *Config) check(client bool) error {
	if c == nil {
		return errors.New("noise: nil Config")
	}
	if _, err := NewHandshakeState(c.handshakeConfig(client)); err != nil {
		return err
	}
	return c.checkPeer(client)
}

// checkPeer checks what the Config says about the peer's static key
// against the pattern; NewHandshakeState checks the rest.
func (c *Config) checkPeer(client bool) error {
	p := c.protocol()
	peerHasKey := p.Pattern.NeedsPeerStaticKey(client) || p.Pattern.receivesStaticKey(client)
	switch {
	case !peerHasKey && (c.PeerStaticKey != nil || c.VerifyPeerStaticKey != nil):
		return fmt.Errorf("noise: PeerStaticKey set, but the %s has no static key in %v", sideName(!client), p.Pattern)
	case c.PeerStaticKey != nil && c.PeerStaticKey.Scheme().Name() != p.staticScheme().Name():
		return fmt.Errorf("noise: PeerStaticKey is of %s, want %s", c.PeerStaticKey.Scheme().Name(), p.staticScheme().Name())
	}
	return nil
}

func sideName(client bool) string {
	if client {
		return "client"
	}
	return "server"
}

// verifyPeer checks a static key the peer (named by side) sent.
// Public keys are public: comparing them in variable time is fine.
func (c *Config) verifyPeer(peer kem.EncapsulationKey, side string) error {
	if c.PeerStaticKey != nil && !bytes.Equal(peer.Bytes(), c.PeerStaticKey.Bytes()) {
		return fmt.Errorf("%w: the %s's key is not Config.PeerStaticKey", ErrPeerKeyRefused, side)
	}
	if c.VerifyPeerStaticKey == nil {
		return nil
	}
	switch err := c.VerifyPeerStaticKey(peer); {
	case err == nil:
		return nil
	case err == ErrPeerKeyRefused:
		return fmt.Errorf("%w: the %s's key is not allowed", ErrPeerKeyRefused, side)
	case errors.Is(err, ErrPeerKeyRefused):
		return err
	default:
		return fmt.Errorf("%w: the %s's key: %w", ErrPeerKeyRefused, side, err)
	}
}

// AllowPeers returns a [Config.VerifyPeerStaticKey] function that accepts
// exactly the given keys (compared by their schemes and encodings) and
// refuses every other key with [ErrPeerKeyRefused].
func AllowPeers(keys ...kem.EncapsulationKey) func(kem.EncapsulationKey) error {
	// A map of public keys: the variable-time lookup handles public data.
	allowed := make(map[string]bool, len(keys))
	for _, k := range keys {
		allowed[k.Scheme().Name()+"\x00"+string(k.Bytes())] = true
	}
	return func(peer kem.EncapsulationKey) error {
		if !allowed[peer.Scheme().Name()+"\x00"+string(peer.Bytes())] {
			return ErrPeerKeyRefused
		}
		return nil
	}
}
