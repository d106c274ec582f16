package noise

import (
	"bytes"
	"crypto/ecdh"
	"crypto/rand"
	"errors"
	"fmt"
	"slices"

	"github.com/pqkem/pqkem/internal/secret"
	"github.com/pqkem/pqkem/kem"
)

// HandshakeConfig configures one party of a handshake for
// [NewHandshakeState].
type HandshakeConfig struct {
	// Protocol is the protocol both parties run.
	Protocol Protocol
	// Initiator is true for the party that sends the first message.
	Initiator bool
	// Prologue is data both parties must agree on without sending it (for
	// example, what they negotiated beforehand); it may be empty. A
	// mismatch fails the handshake at the first authenticated message.
	Prologue []byte
	// StaticKey is this party's static key pair, of the protocol's KEM
	// (the static one, [Protocol.KEM], when the ephemeral KEM differs), a
	// [*HybridDecapsulationKey] of it in a hybrid pattern. It is required
	// exactly when [Pattern.NeedsStaticKey] says so.
	StaticKey kem.DecapsulationKey
	// PeerStaticKey is the peer's static public key, known beforehand,
	// of the same scheme as StaticKey (a [*HybridEncapsulationKey] in a
	// hybrid pattern).
	// It is required exactly when [Pattern.NeedsPeerStaticKey] says
	// so; in patterns where the peer sends its static key, read it with
	// [HandshakeState.PeerStaticKey] instead.
	PeerStaticKey kem.EncapsulationKey
	// PSKs are the pre-shared keys of a pattern with psk tokens
	// ([Pattern.WithPSK]), 32 bytes each, in the order the handshake uses
	// them (ascending positions: for pqXXpsk0+psk3, the psk0 one first).
	// There must be exactly [Pattern.PSKs] of them; both parties give the
	// same. A wrong PSK fails the handshake with [ErrAuthentication] at
	// the first message authenticated with it.
	PSKs [][]byte
}

// PSKSize is the size of a pre-shared key.
const PSKSize = 32

// A HandshakeState runs one party of a handshake message by message
// (Noise section 5.3), for applications that carry the messages over their
// own transport; [Conn] does it over a net.Conn. Call
// [HandshakeState.WriteMessage] and [HandshakeState.ReadMessage] in turn,
// the initiator writing first, until [HandshakeState.Complete]; then
// [HandshakeState.Split] gives the transport CipherStates.
//
// Any error other than a call out of turn or a too large payload aborts
// the handshake: every later call returns the same error. A
// HandshakeState is not safe for concurrent use.
type HandshakeState struct {
	ss        symmetricState
	protocol  Protocol
	initiator bool
	s         kem.DecapsulationKey // the KEM half of a hybrid key
	e         kem.DecapsulationKey
	rs, re    kem.EncapsulationKey // rs: the KEM half of a hybrid key
	peer      kem.EncapsulationKey // the peer's static key as given or received
	sizes     []int                // the messages' sizes with empty payloads
	msg       int                  // index of the next message
	err       error
	split     bool

	// The X25519 keys of a hybrid pattern.
	sDH, eDH   *ecdh.PrivateKey
	rsDH, reDH *ecdh.PublicKey

	psks       [][]byte // the PSKs not yet used
	pskApplied bool     // a psk token was processed (Clatter's PSK rule)
	ownRand    bool     // this party wrote an e, an ekem or an skem

	// generateKey and encapsulate are the KEM's, or (through
	// internal/derand, for noisetest) deterministic ones.
	generateKey func(kem.Scheme) (kem.DecapsulationKey, error)
	encapsulate func(kem.EncapsulationKey) (sharedKey, ciphertext []byte, err error)
	generateDH  func() (*ecdh.PrivateKey, error)
}

func generateDH() (*ecdh.PrivateKey, error) { return ecdh.X25519().GenerateKey(rand.Reader) }

func generateKey(s kem.Scheme) (kem.DecapsulationKey, error) { return s.GenerateKey() }

func encapsulate(ek kem.EncapsulationKey) (sharedKey, ciphertext []byte, err error) {
	sharedKey, ciphertext = ek.Encapsulate()
	return sharedKey, ciphertext, nil
}

// NewHandshakeState returns a party ready for the first message, after
// Initialize (Noise section 5.3): the protocol name, the prologue and the
// pre-message keys mixed into the handshake hash. It returns an error if
// the protocol is unknown, if a message of it cannot fit
// [MaxMessageSize], if the KEM is not safe for static keys and the
// pattern has some ([kem.EphemeralOnly]), or if a key the pattern needs is
// missing, one it does not use is given, or a key is of another scheme.
func NewHandshakeState(cfg *HandshakeConfig) (*HandshakeState, error) {
	p := cfg.Protocol
	if err := p.check(); err != nil {
		return nil, err
	}
	who := roleName(cfg.Initiator)
	var s, rs kem.Scheme
	if cfg.StaticKey != nil {
		s = cfg.StaticKey.Scheme()
	}
	if cfg.PeerStaticKey != nil {
		rs = cfg.PeerStaticKey.Scheme()
	}
	if err := checkKey(p, "static key", who, s, p.Pattern.NeedsStaticKey(cfg.Initiator)); err != nil {
		return nil, err
	}
	if err := checkKey(p, "peer static key", who, rs, p.Pattern.NeedsPeerStaticKey(cfg.Initiator)); err != nil {
		return nil, err
	}
	if err := checkPSKs(p.Pattern, cfg.PSKs); err != nil {
		return nil, err
	}
	hs := &HandshakeState{
		protocol:    p,
		initiator:   cfg.Initiator,
		peer:        cfg.PeerStaticKey,
		sizes:       p.MessageSizes(),
		generateKey: generateKey,
		encapsulate: encapsulate,
		generateDH:  generateDH,
	}
	hs.sDH, hs.s = splitStatic(cfg.StaticKey)
	hs.rsDH, hs.rs = splitRemote(cfg.PeerStaticKey)
	if p.Pattern.Hybrid() && ((cfg.StaticKey != nil && hs.sDH == nil) || (cfg.PeerStaticKey != nil && hs.rsDH == nil)) {
		return nil, errors.New("noise: hybrid pattern with a non-hybrid static key")
	}
	for _, k := range cfg.PSKs {
		hs.psks = append(hs.psks, bytes.Clone(k))
	}
	hs.ss.initializeSymmetric(p, p.String())
	hs.ss.mixHash(cfg.Prologue)
	// Pre-messages: the initiator's static key, then the responder's; in
	// a hybrid pattern each is its X25519 key, then its KEM key.
	sp := p.Pattern.spec()
	if sp.preInit {
		hs.mixHashStatic(true)
	}
	if sp.preResp {
		hs.mixHashStatic(false)
	}
	return hs, nil
}

// mixHashStatic mixes the static public key of the initiator (or the
// responder), as this party knows it, into h.
func (hs *HandshakeState) mixHashStatic(initiator bool) {
	if initiator == hs.initiator {
		if hs.sDH != nil {
			hs.ss.mixHash(hs.sDH.PublicKey().Bytes())
		}
		hs.ss.mixHashKey(hs.s.EncapsulationKey())
		return
	}
	if hs.rsDH != nil {
		hs.ss.mixHash(hs.rsDH.Bytes())
	}
	hs.ss.mixHashKey(hs.rs)
}

// checkPSKs checks the PSKs of a HandshakeConfig against the pattern.
func checkPSKs(p Pattern, psks [][]byte) error {
	switch n := p.PSKs(); {
	case n == 0 && len(psks) > 0:
		return fmt.Errorf("noise: %v has no psk token, but %d PSKs were given", p, len(psks))
	case len(psks) != n:
		return fmt.Errorf("noise: %v needs %d PSKs, got %d", p, n, len(psks))
	}
	for i, k := range psks {
		if len(k) != PSKSize {
			return fmt.Errorf("noise: PSK %d is %d bytes, want %d", i, len(k), PSKSize)
		}
	}
	return nil
}

// checkKey checks one key of a HandshakeConfig, given by its scheme (nil
// if there is no key), against what the pattern wants.
func checkKey(p Protocol, what, who string, k kem.Scheme, want bool) error {
	switch {
	case want && k == nil:
		return fmt.Errorf("noise: the %s needs a %s in %v", who, what, p.Pattern)
	case !want && k != nil:
		return fmt.Errorf("noise: the %s has no %s in %v, but one was given", who, what, p.Pattern)
	case k != nil && k.Name() != p.staticScheme().Name():
		return fmt.Errorf("noise: the %s's %s is of %s, want %s", who, what, k.Name(), p.staticScheme().Name())
	}
	return nil
}

// Protocol returns the protocol the handshake runs.
func (hs *HandshakeState) Protocol() Protocol { return hs.protocol }

// Complete reports whether every handshake message has been written or
// read, so that [HandshakeState.Split] may be called.
func (hs *HandshakeState) Complete() bool {
	return hs.err == nil && hs.msg == hs.protocol.Pattern.Messages()
}

// WritesNext reports whether the next message is this party's to write;
// it is false once the handshake is complete.
func (hs *HandshakeState) WritesNext() bool {
	return hs.msg < hs.protocol.Pattern.Messages() && (hs.msg%2 == 0) == hs.initiator
}

// MessageIndex returns the index of the next handshake message, from 0.
func (hs *HandshakeState) MessageIndex() int { return hs.msg }

// HandshakeHash returns h, the hash of everything the handshake has mixed
// in so far: after the last message, the handshake hash that both parties
// share and that applications may use for channel binding (Noise section
// 11.2). It is not secret.
func (hs *HandshakeState) HandshakeHash() []byte {
	return bytes.Clone(hs.ss.h[:hs.ss.hlen])
}

// PeerStaticKey returns the peer's static public key: the one given in
// the HandshakeConfig, or the one the peer sent, once its message has
// been read; nil if there is none (yet). An application that accepts only
// some peers must check it before it trusts the session, and before it
// sends a payload it wants only them to read.
//
// In a hybrid pattern it is a [*HybridEncapsulationKey].
func (hs *HandshakeState) PeerStaticKey() kem.EncapsulationKey { return hs.peer }

// turn returns an error if the next message is not the caller's.
func (hs *HandshakeState) turn(writing bool) error {
	if hs.err != nil {
		return hs.err
	}
	switch {
	case hs.msg == hs.protocol.Pattern.Messages():
		return errors.New("noise: the handshake is complete")
	case writing && !hs.WritesNext():
		return fmt.Errorf("noise: WriteMessage out of turn: handshake message %d is the peer's to write", hs.msg)
	case !writing && hs.WritesNext():
		return fmt.Errorf("noise: ReadMessage out of turn: handshake message %d is ours to write", hs.msg)
	}
	return nil
}

// fail aborts the handshake with err, dropping the keys.
func (hs *HandshakeState) fail(err error) error {
	hs.err = err
	hs.ss.destroy()
	hs.e, hs.s, hs.eDH, hs.sDH = nil, nil, nil, nil
	clearPSKs(hs.psks)
	hs.psks = nil
	return err
}

// role names the sender of message i, for errors.
func (hs *HandshakeState) sender(i int) string {
	if i%2 == 0 {
		return "initiator"
	}
	return "responder"
}

// WriteMessage writes the next handshake message with the given payload,
// appends it to out and returns the extended buffer. The whole message,
// [Protocol.MessageSizes] plus the payload, must fit [MaxMessageSize]; a
// too large payload returns an error wrapping [ErrMessageTooLarge] and
// leaves the handshake as it was. The payload is encrypted only once the
// handshake has a key (from the first ekem, skem, DH token or psk on, and
// in a PSK pattern from the first e): in pqNN, pqNX, pqXN, pqXX, pqKN,
// pqKX, pqIN and pqIX (and their hybrid forms) the first message's payload
// is sent in clear, and no payload before the last message is
// authenticated to a peer whose static key has not been checked yet. In a
// PSK pattern, a non-empty payload after a psk and before any randomness
// of this party's is refused with [ErrPSKInvalid], as in Clatter (no
// pattern this package accepts reaches that case).
func (hs *HandshakeState) WriteMessage(out, payload []byte) (msg []byte, err error) {
	// The ephemeral key, the encapsulations and the symmetric state's
	// updates run inside secret.Do, which erases their temporaries in a
	// build with GOEXPERIMENT=runtimesecret (internal/secret).
	secret.Do(func() { msg, err = hs.writeMessage(out, payload) })
	return msg, err
}

func (hs *HandshakeState) writeMessage(out, payload []byte) ([]byte, error) {
	if err := hs.turn(true); err != nil {
		return out, err
	}
	size := hs.sizes[hs.msg] + len(payload)
	if size > MaxMessageSize {
		return out, fmt.Errorf("%w: %d-byte payload, want at most %d", ErrMessageTooLarge, len(payload), MaxMessageSize-(size-len(payload)))
	}
	out = slices.Grow(out, size)
	out, err := hs.writeTokens(out)
	if err == nil && hs.pskApplied && !hs.ownRand && len(payload) > 0 {
		err = fmt.Errorf("%w: a payload after a psk with no randomness of this party's", ErrPSKInvalid)
	}
	if err == nil {
		out, err = hs.ss.encryptAndHash(out, payload)
	}
	if err != nil {
		return out, hs.fail(fmt.Errorf("noise: writing handshake message %d: %w", hs.msg, err))
	}
	hs.msg++
	return out, nil
}

// pskCheck is Clatter's PSK rule at an s or skem token of this party's.
func (hs *HandshakeState) pskCheck(t token) error {
	if hs.pskApplied && !hs.ownRand {
		return fmt.Errorf("%w: %v after a psk with no randomness of this party's", ErrPSKInvalid, t)
	}
	return nil
}

func (hs *HandshakeState) writeTokens(out []byte) ([]byte, error) {
	sp := hs.protocol.Pattern.spec()
	for _, t := range sp.messages[hs.msg] {
		var err error
		switch t {
		case tokenE:
			if hs.protocol.Pattern.Hybrid() {
				if hs.eDH, err = hs.generateDH(); err != nil {
					return out, err
				}
				pk := hs.eDH.PublicKey().Bytes()
				out = append(out, pk...)
				if err = hs.mixEphemeral(pk); err != nil {
					return out, err
				}
			}
			if hs.e, err = hs.generateKey(hs.protocol.ephemeralKEM()); err != nil {
				return out, err
			}
			start := len(out)
			out = appendKey(out, hs.e.EncapsulationKey())
			err = hs.mixEphemeral(out[start:])
			hs.ownRand = true
		case tokenS:
			if err = hs.pskCheck(t); err != nil {
				return out, err
			}
			if hs.sDH != nil {
				if out, err = hs.ss.encryptAndHash(out, hs.sDH.PublicKey().Bytes()); err != nil {
					return out, err
				}
			}
			out, err = hs.ss.encryptAndHashKey(out, hs.s.EncapsulationKey())
		case tokenEKEM, tokenSKEM:
			to := hs.re
			if t == tokenSKEM {
				if err = hs.pskCheck(t); err != nil {
					return out, err
				}
				to = hs.rs
			}
			var ss, ct []byte
			if ss, ct, err = hs.encapsulate(to); err != nil {
				return out, err
			}
			if t == tokenEKEM {
				out = append(out, ct...)
				hs.ss.mixHash(ct)
				err = hs.ss.mixKey(ss)
			} else if out, err = hs.ss.encryptAndHash(out, ct); err == nil {
				err = hs.ss.mixKeyAndHash(ss)
			}
			clear(ss)
			hs.ownRand = true
		default:
			err = hs.mixToken(t)
		}
		if err != nil {
			return out, err
		}
	}
	return out, nil
}

// mixEphemeral mixes an ephemeral public key (or one half of a hybrid
// one) into h and, in a PSK pattern, into the key.
func (hs *HandshakeState) mixEphemeral(pk []byte) error {
	hs.ss.mixHash(pk)
	if hs.protocol.Pattern.spec().psk {
		return hs.ss.mixKey(pk)
	}
	return nil
}

// mixToken processes the tokens that read and write nothing: psk and the
// DH tokens, the same for both parties.
func (hs *HandshakeState) mixToken(t token) error {
	if t == tokenPSK {
		if len(hs.psks) == 0 {
			return errors.New("no PSK left") // checked by NewHandshakeState
		}
		k := hs.psks[0]
		hs.psks = hs.psks[1:]
		err := hs.ss.mixKeyAndHash(k)
		clear(k)
		hs.pskApplied = true
		return err
	}
	// es is the initiator's e with the responder's s, se the reverse.
	var priv *ecdh.PrivateKey
	var pub *ecdh.PublicKey
	switch {
	case t == tokenEE:
		priv, pub = hs.eDH, hs.reDH
	case t == tokenSS:
		priv, pub = hs.sDH, hs.rsDH
	case (t == tokenES) == hs.initiator:
		priv, pub = hs.eDH, hs.rsDH
	default:
		priv, pub = hs.sDH, hs.reDH
	}
	if priv == nil || pub == nil {
		return fmt.Errorf("no key for %v", t)
	}
	shared, err := priv.ECDH(pub) // fails on an all-zero result
	if err != nil {
		return fmt.Errorf("%v: %w", t, err)
	}
	defer clear(shared)
	return hs.ss.mixKey(shared)
}

func clearPSKs(psks [][]byte) {
	for _, k := range psks {
		clear(k)
	}
}

// ReadMessage reads the next handshake message, which must be exactly one
// whole message as the peer's WriteMessage produced it, appends its
// payload to out and returns the extended buffer. The payload may be
// empty. out must not overlap message.
//
// A message that fails authentication returns an error wrapping
// [ErrAuthentication]: it was altered, or the peers do not agree on the
// protocol, the prologue or the static keys. Where no key exists yet (the
// first message of pqNN, for example), an altered message is detected at
// the first authenticated message after it.
func (hs *HandshakeState) ReadMessage(out, message []byte) (payload []byte, err error) {
	secret.Do(func() { payload, err = hs.readMessage(out, message) })
	return payload, err
}

func (hs *HandshakeState) readMessage(out, message []byte) ([]byte, error) {
	if err := hs.turn(false); err != nil {
		return out, err
	}
	i := hs.msg
	if len(message) > MaxMessageSize {
		return out, hs.fail(fmt.Errorf("%w: %d bytes, over %d", ErrMessageTooLarge, len(message), MaxMessageSize))
	}
	if want := hs.sizes[i]; len(message) < want {
		return out, hs.fail(&MessageSizeError{Protocol: hs.protocol, Message: i, Got: len(message), Want: want, AtLeast: true})
	}
	rest, err := hs.readTokens(message)
	if err == nil {
		if out, err = hs.ss.decryptAndHash(out, rest); err != nil {
			err = partError("its payload", err)
		}
	}
	if err != nil {
		if ae := (*authError)(nil); errors.As(err, &ae) {
			return out, hs.fail(fmt.Errorf("%w: handshake message %d from the %s, %s", ErrAuthentication, i, hs.sender(i), ae.part))
		}
		return out, hs.fail(fmt.Errorf("noise: handshake message %d from the %s: %w", i, hs.sender(i), err))
	}
	hs.msg++
	return out, nil
}

// A MessageSizeError is the error for a handshake message whose size is
// not the one its protocol gives it ([Protocol.MessageSizes]): the peer
// most likely runs another protocol, such as another pattern or KEM.
// [HandshakeState.ReadMessage] returns it for a message too short, and
// [Conn] for a handshake frame of another size than the protocol's. The
// sizes are public.
type MessageSizeError struct {
	Protocol Protocol // the protocol of the side that read the message
	Message  int      // the message's index in the handshake, from 0
	Got      int      // the message's size in bytes
	Want     int      // the protocol's size of the message, with AtLeast its smallest
	AtLeast  bool     // the message may be longer than Want (it has a payload)

	from string // the sender, "client" or "server", for Conn's error
}

func (e *MessageSizeError) Error() string {
	if e.AtLeast {
		return fmt.Sprintf("noise: handshake message %d is %d bytes, want at least %d", e.Message, e.Got, e.Want)
	}
	from := ""
	if e.from != "" {
		from = " from the " + e.from
	}
	return fmt.Sprintf("noise: handshake message %d%s is %d bytes, want %d", e.Message, from, e.Got, e.Want)
}

// readTokens processes the message's tokens, returning what is left of
// it: the encrypted payload. The length was checked, so every token finds
// its bytes.
func (hs *HandshakeState) readTokens(msg []byte) ([]byte, error) {
	ek, sk := hs.protocol.ephemeralKEM(), hs.protocol.KEM
	hybrid := hs.protocol.Pattern.Hybrid()
	take := func(n int) []byte {
		b := msg[:n]
		msg = msg[n:]
		return b
	}
	for _, t := range hs.protocol.Pattern.spec().messages[hs.msg] {
		var err error
		switch t {
		case tokenE:
			if hybrid {
				b := take(dhSize)
				if hs.reDH, err = ecdh.X25519().NewPublicKey(b); err != nil {
					return nil, fmt.Errorf("its ephemeral X25519 key: %w", err)
				}
				if err = hs.mixEphemeral(b); err != nil {
					return nil, err
				}
			}
			b := take(ek.EncapsulationKeySize())
			if hs.re, err = ek.NewEncapsulationKey(b); err != nil {
				return nil, fmt.Errorf("its ephemeral key: %w", err)
			}
			if err = hs.mixEphemeral(b); err != nil {
				return nil, err
			}
		case tokenS:
			tag := tagIf(hs.ss.cs.hasKey())
			if hybrid {
				var pk []byte
				if pk, err = hs.ss.decryptAndHash(nil, take(dhSize+tag)); err != nil {
					return nil, partError("its static key", err)
				}
				if hs.rsDH, err = ecdh.X25519().NewPublicKey(pk); err != nil {
					return nil, fmt.Errorf("its static X25519 key: %w", err)
				}
			}
			var pk []byte
			if pk, err = hs.ss.decryptAndHash(nil, take(sk.EncapsulationKeySize()+tag)); err != nil {
				return nil, partError("its static key", err)
			}
			if hs.rs, err = sk.NewEncapsulationKey(pk); err != nil {
				return nil, fmt.Errorf("its static key: %w", err)
			}
			hs.peer = hs.rs
			if hybrid {
				hs.peer = &HybridEncapsulationKey{hs.rsDH, hs.rs}
			}
		case tokenEKEM:
			ct := take(ek.CiphertextSize())
			hs.ss.mixHash(ct)
			if err = hs.decapsulate(hs.e, ct, hs.ss.mixKey); err != nil {
				return nil, err
			}
		case tokenSKEM:
			var ct []byte
			if ct, err = hs.ss.decryptAndHash(nil, take(sk.CiphertextSize()+tagIf(hs.ss.cs.hasKey()))); err != nil {
				return nil, partError("its encapsulation to the static key", err)
			}
			if err = hs.decapsulate(hs.s, ct, hs.ss.mixKeyAndHash); err != nil {
				return nil, err
			}
		default:
			if err = hs.mixToken(t); err != nil {
				return nil, err
			}
		}
	}
	return msg, nil
}

// decapsulate decapsulates ct with dk and mixes the shared key with mix.
// A well-sized ciphertext always decapsulates (ML-KEM and FrodoKEM
// reject implicitly); a forged one makes the next decryption fail.
func (hs *HandshakeState) decapsulate(dk kem.DecapsulationKey, ct []byte, mix func([]byte) error) error {
	ss, err := dk.Decapsulate(ct)
	if err != nil {
		return err
	}
	defer clear(ss)
	return mix(ss)
}

// Split returns the transport CipherStates once the handshake is complete
// (Noise section 5.2, Split), in this party's directions: send encrypts
// what this party sends, receive decrypts what it receives (for the
// initiator, Noise's c1 and c2; for the responder, c2 and c1). The
// handshake's secrets are wiped; [HandshakeState.HandshakeHash] and
// [HandshakeState.PeerStaticKey] stay. Split may be called once.
func (hs *HandshakeState) Split() (send, receive *CipherState, err error) {
	secret.Do(func() { send, receive, err = hs.splitCipherStates() })
	return send, receive, err
}

func (hs *HandshakeState) splitCipherStates() (send, receive *CipherState, err error) {
	if hs.err != nil {
		return nil, nil, hs.err
	}
	if hs.msg != hs.protocol.Pattern.Messages() {
		return nil, nil, fmt.Errorf("noise: Split before the handshake is complete (next message %d of %d)", hs.msg, hs.protocol.Pattern.Messages())
	}
	if hs.split {
		return nil, nil, errors.New("noise: Split called twice")
	}
	c1, c2, err := hs.ss.split()
	if err != nil {
		return nil, nil, hs.fail(err)
	}
	hs.split = true
	hs.ss.destroy()
	hs.e, hs.s, hs.re = nil, nil, nil
	hs.eDH, hs.sDH, hs.reDH = nil, nil, nil
	if hs.initiator {
		return c1, c2, nil
	}
	return c2, c1, nil
}

// authError is a failed decryption of one part of a handshake message.
type authError struct{ part string }

func (e *authError) Error() string { return ErrAuthentication.Error() + ": " + e.part }
func (e *authError) Unwrap() error { return ErrAuthentication }

// partError names the part of a message whose decryption failed with err.
func partError(part string, err error) error {
	if err == ErrAuthentication {
		return &authError{part}
	}
	return err
}
