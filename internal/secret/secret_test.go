package secret

import (
	"runtime"
	"testing"
)

func TestDo(t *testing.T) {
	calls := 0
	Do(func() {
		calls++
		Do(func() { calls++ }) // nested
	})
	if calls != 2 {
		t.Fatalf("%d calls, want 2", calls)
	}
	defer func() {
		if r := recover(); r != "boom" {
			t.Errorf("recovered %v, want the panic of f", r)
		}
	}()
	Do(func() { panic("boom") })
}

// TestDoAllocs checks that Do with a closure over the caller's variables
// allocates nothing, with or without the experiment.
func TestDoAllocs(t *testing.T) {
	if runtime.GOARCH == "wasm" {
		t.Skip("no allocation count on wasm")
	}
	var x [32]byte
	n := testing.AllocsPerRun(100, func() {
		Do(func() { x[0]++ })
	})
	if n != 0 {
		t.Errorf("Do allocates %v times", n)
	}
}
