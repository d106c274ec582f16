package kem_test

import (
	"strings"
	"testing"

	"github.com/pqkem/pqkem/kem"
)

func TestEphemeralOnly(t *testing.T) {
	n := 0
	for _, s := range kem.All() {
		want := strings.HasPrefix(s.Name(), "eFrodoKEM-")
		if got := kem.EphemeralOnly(s); got != want {
			t.Errorf("EphemeralOnly(%s) = %v, want %v", s.Name(), got, want)
		}
		if want {
			n++
		}
	}
	if n != 6 {
		t.Errorf("%d ephemeral-only schemes, want the 6 eFrodoKEM sets", n)
	}
	if !kem.EphemeralOnly(passive{}) {
		t.Error("a scheme implementing EphemeralOnlyScheme is not ephemeral-only")
	}
}

// passive is a scheme from outside the module that says it is
// ephemeral-only; only its EphemeralOnly method is called.
type passive struct{ kem.Scheme }

func (passive) EphemeralOnly() bool { return true }
