package leaktest

import (
	"sync"
	"testing"
)

// recorder is a testing.TB that records failures and runs its cleanups
// when told, so that Check's verdict can itself be tested.
type recorder struct {
	testing.TB
	mu       sync.Mutex
	failed   bool
	cleanups []func()
}

func (r *recorder) Helper()               {}
func (r *recorder) Cleanup(f func())      { r.cleanups = append(r.cleanups, f) }
func (r *recorder) Errorf(string, ...any) { r.mu.Lock(); r.failed = true; r.mu.Unlock() }
func (r *recorder) end() {
	for i := len(r.cleanups) - 1; i >= 0; i-- {
		r.cleanups[i]()
	}
}

func TestCheckClean(t *testing.T) {
	r := &recorder{TB: t}
	Check(r)
	done := make(chan struct{})
	go func() { <-done }()
	close(done) // the goroutine ends; Check waits for it
	r.end()
	if r.failed {
		t.Error("Check reported a leak for a goroutine that ended")
	}
}

func TestCheckLeak(t *testing.T) {
	if testing.Short() {
		t.Skip("waits five seconds for a goroutine that never ends")
	}
	r := &recorder{TB: t}
	Check(r)
	stop := make(chan struct{})
	go func() { <-stop }()
	r.end()
	close(stop)
	if !r.failed {
		t.Error("Check did not report a goroutine left running")
	}
}
