// Package leaktest checks that a test leaves no goroutine behind. It is
// for tests only: no production package imports it.
package leaktest

import (
	"bytes"
	"runtime"
	"strconv"
	"testing"
	"time"
)

// Check fails t if, when t ends, a goroutine runs that was started after
// Check was called: it records the goroutines running now and, in t's
// cleanup, waits up to five seconds for every later one to end (a closed
// connection's goroutines take a moment to return), then reports the
// stacks of those still running. Goroutines are told apart by their ids,
// which the runtime never reuses, so a goroutine of an earlier test that
// ends meanwhile cannot hide a new one. Tests that use it must not run in
// parallel, whose goroutines it would count.
func Check(t testing.TB) {
	t.Helper()
	before := make(map[uint64]bool)
	for _, g := range goroutines() {
		before[g.id] = true
	}
	t.Cleanup(func() {
		deadline := time.Now().Add(grace)
		for {
			left := started(before)
			if len(left) == 0 {
				return
			}
			if time.Now().After(deadline) {
				var stacks []byte
				for _, g := range left {
					stacks = append(stacks, g.stack...)
					stacks = append(stacks, "\n\n"...)
				}
				t.Errorf("%d goroutines left behind:\n%s", len(left), stacks)
				return
			}
			time.Sleep(5 * time.Millisecond)
		}
	})
}

// grace is how long Check waits for new goroutines to end; the package's
// own tests shorten it.
var grace = 5 * time.Second

// started returns the goroutines running now whose ids are not in before.
func started(before map[uint64]bool) []goroutine {
	var gs []goroutine
	for _, g := range goroutines() {
		if !before[g.id] {
			gs = append(gs, g)
		}
	}
	return gs
}

type goroutine struct {
	id    uint64
	stack []byte
}

// goroutines returns every goroutine's id and stack, parsed from
// runtime.Stack's dump: records separated by a blank line, each opening
// with "goroutine ID [state]:".
func goroutines() []goroutine {
	buf := make([]byte, 1<<16)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			buf = buf[:n]
			break
		}
		buf = make([]byte, 2*len(buf))
	}
	var gs []goroutine
	for _, rec := range bytes.Split(buf, []byte("\n\n")) {
		rest, ok := bytes.CutPrefix(rec, []byte("goroutine "))
		if !ok {
			continue
		}
		idText, _, ok := bytes.Cut(rest, []byte(" "))
		if !ok {
			continue
		}
		id, err := strconv.ParseUint(string(idText), 10, 64)
		if err != nil {
			continue
		}
		gs = append(gs, goroutine{id, rec})
	}
	return gs
}
