// Package derand connects each production package of pqkem to its test
// package (mlkemtest, frodotest, hybridtest, kemtest, paketest), so that
// derandomized operations for known-answer tests exist only in the test
// packages' APIs and never in a production type's method set.
//
// A production package registers, from an init function, an unexported
// derandomized operation under a name and its function type:
//
//	func init() {
//		derand.Register("frodo.Encapsulate", func(ek *EncapsulationKey, random []byte) ([]byte, []byte, error) {
//			return ek.encapsulate(random)
//		})
//	}
//
// and its test package looks it up with the same name and type:
//
//	f, err := derand.Lookup[func(*frodo.EncapsulationKey, []byte) ([]byte, []byte, error)]("frodo.Encapsulate")
//
// The key is the pair (name, function type), so a hook can only be called
// with the arguments it was written for. The package imports nothing of
// pqkem.
package derand

import (
	"fmt"
	"reflect"
	"sync"
)

type key struct {
	name string
	typ  reflect.Type
}

var hooks sync.Map // key -> F

// Register records f as the hook name of type F. It panics if a hook of
// that name and type is already registered: registration happens once,
// from the init function of the package that owns the operation.
func Register[F any](name string, f F) {
	if _, loaded := hooks.LoadOrStore(key{name, reflect.TypeFor[F]()}, f); loaded {
		panic("derand: hook " + name + " registered twice")
	}
}

// Lookup returns the hook name of type F, or an error if the package that
// owns it did not register one of that type.
func Lookup[F any](name string) (F, error) {
	v, ok := hooks.Load(key{name, reflect.TypeFor[F]()})
	if !ok {
		var zero F
		return zero, fmt.Errorf("derand: no hook %s of type %v", name, reflect.TypeFor[F]())
	}
	return v.(F), nil
}
