// Package leaktest checks that a test leaves no goroutine behind. It is
// for tests only: no production package imports it.
package leaktest

import (
	"runtime"
	"testing"
	"time"
)

// Check fails t if, when t ends, more goroutines run than when Check was
// called: it counts them now and, in t's cleanup, waits up to five seconds
// for the count to come back down (a closed connection's goroutines take a
// moment to return), then reports the extra goroutines' stacks. Tests that
// use it must not run in parallel, whose goroutines it would count.
func Check(t testing.TB) {
	t.Helper()
	before := runtime.NumGoroutine()
	t.Cleanup(func() {
		deadline := time.Now().Add(5 * time.Second)
		for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
			time.Sleep(5 * time.Millisecond)
		}
		if n := runtime.NumGoroutine(); n > before {
			buf := make([]byte, 1<<16)
			t.Errorf("%d goroutines left behind:\n%s", n-before, buf[:runtime.Stack(buf, true)])
		}
	})
}
