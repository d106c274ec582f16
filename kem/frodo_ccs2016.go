package kem

import (
	"crypto"
	"fmt"
	"sync/atomic"

	"github.com/pqkem/pqkem/frodo"
)

// The two sets of the CCS 2016 Frodo key exchange
// ([frodo.KeyExchangeSet]), "Frodo-CCS2016-Recommended" and
// "Frodo-CCS2016-Paranoid", as KEMs: Alice's message is the encapsulation
// key, GenerateKey is her first step (Alice0) and the decapsulation key
// holds her state; Encapsulate is Bob's step and his message is the
// ciphertext; Decapsulate is Alice's second step (Alice1).
//
// They are passively secure: nothing is hashed, nothing is checked, and a
// reused key leaks its secret to an active peer. So they are
// ephemeral-only and single-use ([EphemeralOnly], [SingleUse]): a
// decapsulation key serves one Decapsulate, which erases its state (a
// second is [ErrKeyUsed]). A decapsulation key exists only as made by
// GenerateKey, from fresh randomness: it has no encoding (its Bytes is
// nil, DecapsulationKeySize 0), NewDecapsulationKey refuses every input
// ([ErrSingleUse]), and package keyfile refuses to store its keys, so no
// key can be copied and used twice.
//
// The encapsulation seed is the 96 bytes Bob draws (the sampler keys of
// S', E' and E”), and package kemtest's derandomized key generation takes
// the 80 Alice0 draws (seedA, then the sampler keys of S and E): exactly
// what the authors' code reads from its random source, so that their
// vectors run through this interface and kemtest.
func registerFrodoCCS2016() {
	Register(&ccsScheme{frodo.CCS2016Recommended()})
	Register(&ccsScheme{frodo.CCS2016Paranoid()})
}

type ccsScheme struct{ s *frodo.KeyExchangeSet }

func (s *ccsScheme) Name() string { return s.s.Name() }

// Specification names the paper and the scheme's limits.
func (s *ccsScheme) Specification() string {
	return "Bos et al., ACM CCS 2016: passively secure; ephemeral only; no key files"
}

// EphemeralOnly reports true: the scheme is passively secure.
func (s *ccsScheme) EphemeralOnly() bool { return true }

// SingleUse reports true: a decapsulation key serves one decapsulation.
func (s *ccsScheme) SingleUse() bool { return true }

func (s *ccsScheme) EncapsulationKeySize() int { return s.s.AliceMessageSize() }

// DecapsulationKeySize is 0: a decapsulation key has no encoding.
func (s *ccsScheme) DecapsulationKeySize() int  { return 0 }
func (s *ccsScheme) CiphertextSize() int        { return s.s.BobMessageSize() }
func (s *ccsScheme) SharedKeySize() int         { return frodo.CCS2016KeySize }
func (s *ccsScheme) EncapsulationSeedSize() int { return ccsBobRandomSize }

// The randomness of Bob's step (three sampler keys) and of Alice0 (seedA
// and two sampler keys), as kemtest takes them.
const (
	ccsBobRandomSize   = 96
	ccsAliceRandomSize = 80
)

// GenerateKey is Alice0, on fresh randomness.
func (s *ccsScheme) GenerateKey() (DecapsulationKey, error) {
	msg, st := s.s.Alice0()
	return s.newKey(msg, st), nil
}

func (s *ccsScheme) newKey(msg []byte, st *frodo.AliceState) *ccsDecapsulationKey {
	k := &ccsDecapsulationKey{s: s, ek: &ccsEncapsulationKey{s, msg}}
	k.st.Store(st)
	return k
}

// NewDecapsulationKey always fails, with an error wrapping [ErrSingleUse]:
// a key made from bytes could be made twice and serve two exchanges.
func (s *ccsScheme) NewDecapsulationKey(b []byte) (DecapsulationKey, error) {
	return nil, fmt.Errorf("kem: %s: %w (got %d bytes), want GenerateKey", s.Name(), ErrSingleUse, len(b))
}

// NewEncapsulationKey takes Alice's message. Only its length is checked:
// every 15-bit field is an element of Z_q.
func (s *ccsScheme) NewEncapsulationKey(b []byte) (EncapsulationKey, error) {
	if len(b) != s.s.AliceMessageSize() {
		return nil, fmt.Errorf("kem: invalid %s encapsulation key length %d, want %d", s.Name(), len(b), s.s.AliceMessageSize())
	}
	return &ccsEncapsulationKey{s, append([]byte{}, b...)}, nil
}

// ccsDecapsulationKey is Alice between her two steps.
type ccsDecapsulationKey struct {
	s  *ccsScheme
	ek *ccsEncapsulationKey

	st atomic.Pointer[frodo.AliceState] // nil once spent
}

func (k *ccsDecapsulationKey) Scheme() Scheme { return k.s }

// Bytes returns nil: the key has no encoding.
func (k *ccsDecapsulationKey) Bytes() []byte { return nil }

func (k *ccsDecapsulationKey) EncapsulationKey() EncapsulationKey { return k.ek }
func (k *ccsDecapsulationKey) Encapsulator() crypto.Encapsulator  { return k.ek }

// Decapsulate is Alice1. A ciphertext of the wrong length is an error that
// leaves the key as it was; any other spends it, erasing its state, and a
// second Decapsulate returns [ErrKeyUsed]. A key that differs
// from Bob's (a failed exchange, or a tampered ciphertext) is not detected.
func (k *ccsDecapsulationKey) Decapsulate(ciphertext []byte) ([]byte, error) {
	if want := k.s.CiphertextSize(); len(ciphertext) != want {
		return nil, fmt.Errorf("kem: invalid %s ciphertext length %d, want %d", k.s.Name(), len(ciphertext), want)
	}
	st := k.st.Swap(nil)
	if st == nil {
		return nil, fmt.Errorf("kem: %s: %w", k.s.Name(), ErrKeyUsed)
	}
	key, err := st.Alice1(ciphertext)
	if err != nil {
		return nil, fmt.Errorf("kem: %w", err)
	}
	return key, nil
}

type ccsEncapsulationKey struct {
	s   *ccsScheme
	msg []byte // Alice's message
}

func (k *ccsEncapsulationKey) Scheme() Scheme { return k.s }
func (k *ccsEncapsulationKey) Bytes() []byte  { return append([]byte{}, k.msg...) }

// Encapsulate is Bob's step: the shared key and Bob's message.
func (k *ccsEncapsulationKey) Encapsulate() (sharedKey, ciphertext []byte) {
	ciphertext, sharedKey, err := k.s.s.Bob(k.msg)
	if err != nil {
		panic("kem: " + err.Error()) // NewEncapsulationKey checked the length
	}
	return sharedKey, ciphertext
}
