package kem

import "errors"

// EphemeralOnlyScheme is implemented by schemes whose keys are not safe as
// long-term keys: a scheme registered from outside this module that is
// only passively secure (IND-CPA), or that bounds the number of
// ciphertexts per key, implements it to say so.
type EphemeralOnlyScheme interface {
	Scheme
	// EphemeralOnly reports whether a key of the scheme must be used for
	// one exchange (or a few) only, and never as a static key.
	EphemeralOnly() bool
}

// EphemeralOnly reports whether keys of s are not safe as long-term
// (static) keys, so that protocols such as package
// [github.com/pqkem/pqkem/noise] refuse them as static keys. Of this
// module's schemes, the eFrodoKEM sets are (a key must see fewer than 2^8
// ciphertexts), and so are the two sets of the CCS 2016 Frodo key
// exchange, which are passively secure and single-use ([SingleUse]).
// Every other scheme of this module is IND-CCA secure without such a
// limit. A scheme registered from elsewhere is ephemeral-only if it
// implements [EphemeralOnlyScheme] or [SingleUseScheme] and says so.
func EphemeralOnly(s Scheme) bool {
	switch s := s.(type) {
	case *frodoScheme:
		return s.p.Ephemeral()
	case EphemeralOnlyScheme:
		if s.EphemeralOnly() {
			return true
		}
	}
	return SingleUse(s)
}

// SingleUseScheme is implemented by schemes whose decapsulation keys serve
// one decapsulation only, such as a passively secure key exchange cast as
// a KEM.
type SingleUseScheme interface {
	Scheme
	// SingleUse reports whether a decapsulation key of the scheme serves
	// one decapsulation only.
	SingleUse() bool
}

// SingleUse reports whether a decapsulation key of s serves one
// decapsulation only: the first Decapsulate (of a ciphertext of the right
// length) erases the key's state, and a second returns [ErrKeyUsed]. Such
// a key is made only by GenerateKey and has no encoding, so that it cannot
// be copied: its Bytes is nil, s.DecapsulationKeySize() is 0, and
// s.NewDecapsulationKey refuses every input with an error wrapping
// [ErrSingleUse]. Nor are the keys of such a scheme stored or published:
// package [github.com/pqkem/pqkem/keyfile] refuses them. A single-use scheme is
// ephemeral-only ([EphemeralOnly]). Of this module's schemes, the two sets
// of the CCS 2016 Frodo key exchange are single-use
// ("Frodo-CCS2016-Recommended", "Frodo-CCS2016-Paranoid"). A scheme
// registered from elsewhere is single-use if it implements
// [SingleUseScheme] and says so.
func SingleUse(s Scheme) bool {
	u, ok := s.(SingleUseScheme)
	return ok && u.SingleUse()
}

// ErrKeyUsed is returned (wrapped) by the second Decapsulate of a
// decapsulation key of a single-use scheme ([SingleUse]).
var ErrKeyUsed = errors.New("single-use decapsulation key already used")

// ErrSingleUse is returned (wrapped) by NewDecapsulationKey of a
// single-use scheme ([SingleUse]), for any input: such a key comes only
// from GenerateKey.
var ErrSingleUse = errors.New("single-use decapsulation keys cannot be made from bytes")
