package pake

import (
	"crypto/rand"
	"crypto/subtle"
	"errors"
	"fmt"
	"sync"

	"github.com/pqkem/pqkem/internal/derand"
	"github.com/pqkem/pqkem/internal/fips203"
	"github.com/pqkem/pqkem/internal/secret"
)

// The three messages: [Scheme.Start], [Scheme.Respond],
// [Initiator.Finish] and [Responder.Finish].

// ErrPasswordMismatch is what [Initiator.Finish] and [Responder.Finish]
// return when the peer's tag does not verify: the passwords (or session
// identifiers) differ, or a message was corrupted, forged or taken from
// another session. No key is released. It is a constant: compare with ==
// or [errors.Is].
const ErrPasswordMismatch = mismatchError("pake: key confirmation failed: password mismatch, or a corrupted or forged message")

// mismatchError is the type of ErrPasswordMismatch.
type mismatchError string

func (e mismatchError) Error() string { return string(e) }

// Initiator is the initiator's state between [Scheme.Start] and
// [Initiator.Finish]. It holds the ephemeral ML-KEM (or NoIC KEM)
// decapsulation key. Finish may be called once; the state is then spent.
type Initiator struct {
	s       *Scheme
	dk      *fips203.DecapsulationKey
	ek      []byte
	msg1Pre []byte // msg1[0 : 384k+32]
	sid     [SessionIDSize]byte
	spent   bool
	mu      sync.Mutex
}

// Scheme returns the scheme the state belongs to.
func (in *Initiator) Scheme() *Scheme { return in.s }

// Start runs the initiator's first step (initStart) with the 32-byte
// password pw and session identifier sid: it generates an ephemeral key
// pair, masks its encapsulation key with the password, and returns the
// state and msg1 ([Scheme.Msg1Size] bytes) to send to the responder.
//
// pw must be uniformly random or the output of a password hash (see
// [NewCredentials]), never a raw human password.
func (s *Scheme) Start(pw, sid []byte) (st *Initiator, msg1 []byte, err error) {
	secret.Do(func() { st, msg1, err = s.start(pw, sid, nil, nil) })
	return st, msg1, err
}

// start is Start with optional fixed randomness (seed = d || z, then the
// nonce), in the artifact's order, for the known-answer tests (through
// package paketest).
func (s *Scheme) start(pw, sid []byte, seed *[64]byte, nonce *[32]byte) (*Initiator, []byte, error) {
	if err := checkInputs(pw, sid); err != nil {
		return nil, nil, err
	}
	var rnd [64]byte
	if seed == nil {
		rand.Read(rnd[:])
		seed = &rnd
	}
	var nc [32]byte
	if nonce == nil {
		rand.Read(nc[:])
		nonce = &nc
	}
	ms := s.maskSeeds(pw, sid, nonce)
	msg1 := make([]byte, s.Msg1Size())
	dk, ek := s.startKey(seed, &ms, msg1)
	nm := s.nonceMask(pw, sid, msg1)
	subtle.XORBytes(msg1[:32], nonce[:], nm[:])
	clear(rnd[:])
	clear(nc[:])
	ms.clear()
	in := &Initiator{s: s, dk: dk, ek: ek, msg1Pre: append([]byte(nil), msg1[:384*s.k+32]...)}
	copy(in.sid[:], sid)
	return in, msg1, nil
}

// startKey generates the initiator's key from seed (d || z), returns it
// and its encoding ek, and writes msg1[32:] = T' || rho' (NoIC) or
// T' || rho (Tempo), ek masked with the mask seeds.
func (s *Scheme) startKey(seed *[64]byte, ms *maskSeedsT, msg1 []byte) (*fips203.DecapsulationKey, []byte) {
	var pre *presampled
	if s.presamples() {
		pre = s.presample(kpkeRho(seed, s.k), &ms.s)
	}
	defer pre.clear()
	dk := s.newKey(seed, pre)
	tLen := 384 * s.k
	ek := dk.EncapsulationKey().Bytes(nil)
	copy(msg1[32:], ek) // T || rho
	var maskBuf [4][256]uint16
	mask := maskBuf[:s.k]
	if pre != nil {
		mask = pre.mask
	} else {
		maskVecTo(&maskBuf, s.sampler, &ms.s, s.k)
	}
	maskT(msg1[32:32+tLen], mask, false)
	clear(mask)
	if s.proto == NoIC {
		subtle.XORBytes(msg1[32+tLen:], msg1[32+tLen:], ms.r[:])
	}
	return dk, ek
}

// Responder is the responder's state between [Scheme.Respond] and
// [Responder.Finish]. It holds the session key until the initiator's
// confirmation (msg3) verifies. Finish may be called once; the state is
// then spent.
type Responder struct {
	s       *Scheme
	key     [SessionKeySize]byte
	confirm [Msg3Size]byte // the msg3 the initiator sends if it has key
	spent   bool
	mu      sync.Mutex
}

// Scheme returns the scheme the state belongs to.
func (r *Responder) Scheme() *Scheme { return r.s }

// Respond runs the responder's step (resp) with the 32-byte password pw
// and session identifier sid on msg1: it recovers the initiator's
// encapsulation key, encapsulates to it, and returns the state and msg2
// ([Scheme.Msg2Size] bytes) to send to the initiator. The session key
// comes from [Responder.Finish], once the initiator has proved in msg3
// that it has it too.
//
// The responder never aborts here: any msg1 of the right length decodes
// to some valid encapsulation key, and with a wrong password the key it
// holds is one nobody else knows; msg3 then fails to verify. Only wrong
// input lengths are errors.
//
// The 12-bit fields of msg1 are not checked against q (an honest msg1 has
// none at or above q); they are reduced, as the artifact does, so that
// there is no abort path.
func (s *Scheme) Respond(pw, sid, msg1 []byte) (r *Responder, msg2 []byte, err error) {
	secret.Do(func() { r, msg2, err = s.respond(pw, sid, msg1, nil) })
	return r, msg2, err
}

// respond is Respond with FIPS 203's encapsulation randomness m fixed, or
// fresh if m is nil (known-answer tests, through package paketest).
func (s *Scheme) respond(pw, sid, msg1 []byte, m *[32]byte) (*Responder, []byte, error) {
	if err := checkInputs(pw, sid); err != nil {
		return nil, nil, err
	}
	if len(msg1) != s.Msg1Size() {
		return nil, nil, fmt.Errorf("pake: invalid %s msg1 length %d, want %d", s.name, len(msg1), s.Msg1Size())
	}
	ek, pre := s.recoverKey(pw, sid, msg1)
	K, ct, err := s.encapsulate(ek, m, pre)
	pre.clear()
	if err != nil {
		// Unreachable: a recovered key is always canonical.
		return nil, nil, err
	}
	key, tag := s.keyAndTag(&K, sid, ek, msg1[:384*s.k+32], ct)
	clear(K[:])
	msg2 := make([]byte, 0, s.Msg2Size())
	msg2 = append(append(msg2, tag[:]...), ct...)
	r := &Responder{s: s, key: key, confirm: s.confirmation(&key, &tag)}
	clear(key[:])
	return r, msg2, nil
}

// recoverKey unmasks the initiator's encapsulation key from msg1. For
// NoIC with a constant-time sampler it also returns the matrix of the
// recovered key, sampled in one batch with the mask (see presample).
func (s *Scheme) recoverKey(pw, sid, msg1 []byte) ([]byte, *presampled) {
	tLen := 384 * s.k
	nm := s.nonceMask(pw, sid, msg1)
	var nonce [32]byte
	subtle.XORBytes(nonce[:], msg1[:32], nm[:])
	ms := s.maskSeeds(pw, sid, &nonce)
	clear(nonce[:])
	ek := make([]byte, tLen+32)
	copy(ek, msg1[32:])
	if s.proto == NoIC {
		subtle.XORBytes(ek[tLen:], ek[tLen:], ms.r[:])
	}
	var pre *presampled
	var maskBuf [4][256]uint16
	var mask [][256]uint16
	if s.presamples() {
		pre = s.presample((*[32]byte)(ek[tLen:]), &ms.s)
		mask = pre.mask
	} else {
		maskVecTo(&maskBuf, s.sampler, &ms.s, s.k)
		mask = maskBuf[:s.k]
	}
	maskT(ek[:tLen], mask, true)
	clear(mask)
	ms.clear()
	return ek, pre
}

// Finish runs the initiator's last step (initEnd) on msg2: it
// decapsulates, recomputes the responder's tag and compares it with
// msg2's in constant time. If they match, the passwords matched: it
// returns the 32-byte session key and msg3 ([Msg3Size] bytes), the
// confirmation to send to the responder. Otherwise it returns
// [ErrPasswordMismatch] and nothing else.
//
// It may be called once: a second call is an error, whatever the first
// returned. A msg2 of the wrong length is an error and also spends the
// state.
func (in *Initiator) Finish(msg2 []byte) (key, msg3 []byte, err error) {
	secret.Do(func() { key, msg3, err = in.finish(msg2) })
	return key, msg3, err
}

func (in *Initiator) finish(msg2 []byte) (key, msg3 []byte, err error) {
	in.mu.Lock()
	defer in.mu.Unlock()
	if in.spent {
		return nil, nil, errors.New("pake: Initiator.Finish called twice: the state is spent")
	}
	if in.dk == nil {
		return nil, nil, errors.New("pake: uninitialized initiator state")
	}
	in.spent = true
	dk := in.dk
	in.dk = nil
	s := in.s
	if len(msg2) != s.Msg2Size() {
		return nil, nil, fmt.Errorf("pake: invalid %s msg2 length %d, want %d", s.name, len(msg2), s.Msg2Size())
	}
	ct := msg2[32:]
	var K [32]byte
	if err := dk.Decapsulate(&K, ct); err != nil {
		return nil, nil, err
	}
	k, tag := s.keyAndTag(&K, in.sid[:], in.ek, in.msg1Pre, ct)
	clear(K[:])
	if subtle.ConstantTimeCompare(tag[:], msg2[:32]) != 1 {
		clear(k[:])
		return nil, nil, ErrPasswordMismatch
	}
	c := s.confirmation(&k, &tag)
	key = append([]byte(nil), k[:]...)
	clear(k[:])
	return key, c[:], nil
}

// Finish checks the initiator's confirmation msg3 in constant time and
// returns the 32-byte session key if it verifies: the initiator had the
// same password and the same key. Otherwise it returns
// [ErrPasswordMismatch] (or, for a msg3 of the wrong length, an error
// saying so) and no key.
//
// It may be called once: a second call is an error, whatever the first
// returned. The state holds the key until then.
func (r *Responder) Finish(msg3 []byte) (key []byte, err error) {
	secret.Do(func() { key, err = r.finish(msg3) })
	return key, err
}

func (r *Responder) finish(msg3 []byte) ([]byte, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.spent {
		return nil, errors.New("pake: Responder.Finish called twice: the state is spent")
	}
	if r.s == nil {
		return nil, errors.New("pake: uninitialized responder state")
	}
	r.spent = true
	defer func() {
		clear(r.key[:])
		clear(r.confirm[:])
	}()
	if len(msg3) != Msg3Size {
		return nil, fmt.Errorf("pake: invalid %s msg3 length %d, want %d", r.s.name, len(msg3), Msg3Size)
	}
	if subtle.ConstantTimeCompare(msg3, r.confirm[:]) != 1 {
		return nil, ErrPasswordMismatch
	}
	return append([]byte(nil), r.key[:]...), nil
}

func checkInputs(pw, sid []byte) error {
	if len(pw) != PasswordSize {
		return fmt.Errorf("pake: invalid password length %d, want %d (hash a human password with NewCredentials)", len(pw), PasswordSize)
	}
	if len(sid) != SessionIDSize {
		return fmt.Errorf("pake: invalid session identifier length %d, want %d", len(sid), SessionIDSize)
	}
	return nil
}

// The derandomized steps, for the known-answer tests of package paketest
// and nothing else.
func init() {
	derand.Register("pake.Start", (*Scheme).start)
	derand.Register("pake.Respond", (*Scheme).respond)
}
