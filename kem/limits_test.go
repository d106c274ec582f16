package kem_test

import (
	"strings"
	"testing"

	"github.com/pqkem/pqkem/kem"
)

func TestEphemeralOnly(t *testing.T) {
	n := 0
	for _, s := range kem.All() {
		single := strings.HasPrefix(s.Name(), "Frodo-CCS2016-")
		want := strings.HasPrefix(s.Name(), "eFrodoKEM-") || single
		if got := kem.EphemeralOnly(s); got != want {
			t.Errorf("EphemeralOnly(%s) = %v, want %v", s.Name(), got, want)
		}
		if got := kem.SingleUse(s); got != single {
			t.Errorf("SingleUse(%s) = %v, want %v", s.Name(), got, single)
		}
		if want {
			n++
		}
	}
	if n != 8 {
		t.Errorf("%d ephemeral-only schemes, want the 6 eFrodoKEM sets and the 2 CCS 2016 sets", n)
	}
	if !kem.EphemeralOnly(passive{}) || kem.SingleUse(passive{}) {
		t.Error("a scheme implementing EphemeralOnlyScheme is not ephemeral-only, or is single-use")
	}
	if !kem.EphemeralOnly(singleUse{}) || !kem.SingleUse(singleUse{}) {
		t.Error("a scheme implementing SingleUseScheme is not single-use and ephemeral-only")
	}
}

// singleUse is a scheme from outside the module that says it is
// single-use; only its SingleUse method is called.
type singleUse struct{ kem.Scheme }

func (singleUse) SingleUse() bool { return true }

// passive is a scheme from outside the module that says it is
// ephemeral-only; only its EphemeralOnly method is called.
type passive struct{ kem.Scheme }

func (passive) EphemeralOnly() bool { return true }
