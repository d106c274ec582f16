package kem

import (
	"errors"

	"github.com/pqkem/pqkem/frodo"
	"github.com/pqkem/pqkem/hybrid"
	"github.com/pqkem/pqkem/internal/derand"
	"github.com/pqkem/pqkem/internal/mlkemlevel"
)

// Derandomized encapsulation of every scheme of this module is package
// kemtest's, through internal/derand: one hook that dispatches on this
// package's key types, and reaches hybrid's and frodo's derandomized
// encapsulation through their own hooks. So is derandomized key generation
// of the single-use schemes, whose NewDecapsulationKey refuses every input:
// one hook for the size of the randomness and one for the key, reaching
// frodo's Alice0 through its hook.

func init() {
	derand.Register("kem.Encapsulate", encapsulateDerand)
	derand.Register("kem.KeySeedSize", keySeedSizeDerand)
	derand.Register("kem.GenerateKey", generateKeyDerand)
}

// The hooks of packages hybrid and frodo, registered by their init
// functions, which run before this package's variables are initialized.
var (
	hybridEncapsulate = mustLookup[func(*hybrid.EncapsulationKey, []byte) ([]byte, []byte, error)]("hybrid.Encapsulate")
	frodoEncapsulate  = mustLookup[func(*frodo.EncapsulationKey, []byte) ([]byte, []byte)]("frodo.Encapsulate")
	ccsBob            = mustLookup[func(*frodo.KeyExchangeSet, []byte, []byte) ([]byte, []byte, error)]("frodo.CCS2016Bob")
	ccsAlice0         = mustLookup[func(*frodo.KeyExchangeSet, []byte) ([]byte, *frodo.AliceState, error)]("frodo.CCS2016Alice0")
)

func mustLookup[F any](name string) F {
	f, err := derand.Lookup[F](name)
	if err != nil {
		panic("kem: " + err.Error())
	}
	return f
}

// encapsulateDerand encapsulates to ek with random as the randomness,
// which is ek.Scheme().EncapsulationSeedSize() bytes long (kemtest checks).
// For a key of a scheme registered from outside this module it returns
// [errors.ErrUnsupported].
func encapsulateDerand(ek EncapsulationKey, random []byte) (sharedKey, ciphertext []byte, err error) {
	switch k := ek.(type) {
	case *mlkemEncapsulationKey:
		sharedKey, ciphertext = k.ek.EncapsulateInternal((*[mlkemlevel.MessageSize]byte)(random))
		return sharedKey, ciphertext, nil
	case *hybridEncapsulationKey:
		return hybridEncapsulate(k.EncapsulationKey, random)
	case *frodoEncapsulationKey:
		sharedKey, ciphertext = frodoEncapsulate(k.ek, random)
		return sharedKey, ciphertext, nil
	case *ccsEncapsulationKey:
		ciphertext, sharedKey, err = ccsBob(k.s.s, k.msg, random)
		return sharedKey, ciphertext, err
	case *dhkemEncapsulationKey:
		return dhkemEncapsulateDerand(k, random)
	}
	return nil, nil, errors.ErrUnsupported
}

// keySeedSizeDerand is the size of the randomness generateKeyDerand takes
// for s, a single-use scheme of this module, or 0 for any other scheme.
func keySeedSizeDerand(s Scheme) int {
	if _, ok := s.(*ccsScheme); ok {
		return ccsAliceRandomSize
	}
	return 0
}

// generateKeyDerand makes a decapsulation key of s, a single-use scheme of
// this module, with random as its key generation's randomness, which is
// keySeedSizeDerand(s) bytes long (kemtest checks, and so does frodo). For
// any other scheme it returns [errors.ErrUnsupported]: one that is not
// single-use has NewDecapsulationKey.
func generateKeyDerand(s Scheme, random []byte) (DecapsulationKey, error) {
	if s, ok := s.(*ccsScheme); ok {
		msg, st, err := ccsAlice0(s.s, random)
		if err != nil {
			return nil, err
		}
		return s.newKey(msg, st), nil
	}
	return nil, errors.ErrUnsupported
}
