package kem

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
// module's schemes, the eFrodoKEM sets are: a key must see fewer than 2^8
// ciphertexts. Every other scheme of this module is IND-CCA secure without
// such a limit. A scheme registered from elsewhere is ephemeral-only if it
// implements [EphemeralOnlyScheme] and says so.
func EphemeralOnly(s Scheme) bool {
	switch s := s.(type) {
	case *frodoScheme:
		return s.p.Ephemeral()
	case EphemeralOnlyScheme:
		return s.EphemeralOnly()
	}
	return false
}
