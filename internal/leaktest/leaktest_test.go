package leaktest

import (
	"bytes"
	"runtime"
	"sync"
	"testing"
	"time"
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

// shortGrace makes Check wait 200 ms instead of five seconds, for the tests
// that leave a goroutine running on purpose.
func shortGrace(t *testing.T) {
	old := grace
	grace = 200 * time.Millisecond
	t.Cleanup(func() { grace = old })
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
	shortGrace(t)
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

// TestCheckLeakWhileAnotherEnds is the case a count of goroutines gets
// wrong: a goroutine that was running when Check was called ends while a
// new one is left behind, so the number is the same at the end.
func TestCheckLeakWhileAnotherEnds(t *testing.T) {
	shortGrace(t)
	old := make(chan struct{})
	oldDone := make(chan struct{})
	go func() { <-old; close(oldDone) }()
	r := &recorder{TB: t}
	Check(r)
	close(old)
	<-oldDone
	stop := make(chan struct{})
	go func() { <-stop }()
	r.end()
	close(stop)
	if !r.failed {
		t.Error("Check did not report a goroutine left running while an older one ended")
	}
}

func TestGoroutines(t *testing.T) {
	gs := goroutines()
	if len(gs) == 0 {
		t.Fatal("no goroutines parsed from runtime.Stack")
	}
	if n := runtime.NumGoroutine(); len(gs) < n/2 {
		t.Errorf("parsed %d goroutines, runtime counts %d", len(gs), n)
	}
	seen := make(map[uint64]bool)
	for _, g := range gs {
		if seen[g.id] {
			t.Errorf("goroutine id %d parsed twice", g.id)
		}
		seen[g.id] = true
		if !bytes.HasPrefix(g.stack, []byte("goroutine ")) {
			t.Errorf("stack of goroutine %d does not open with its header: %.40q", g.id, g.stack)
		}
	}
}
