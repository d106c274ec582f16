package frodo_test

import (
	"testing"

	"github.com/pqkem/pqkem/frodo"
	"github.com/pqkem/pqkem/frodo/frodotest"
)

// The heap per party of the CCS 2016 key exchange: its messages, key and
// state, and beyond them the AES states of the sampler, under 12 KiB (the
// rule is 64 KiB; an n x n̄ temporary on the heap would cross 12). The
// operations' scratch space comes from a sync.Pool, which now and then
// misses (a goroutine that moved to another P cannot reach the space the
// other P holds), so the figures are the least of three measurements: the
// heap of an operation in the steady state.
func TestCCS2016Allocations(t *testing.T) {
	if testing.CoverMode() != "" || raceEnabled {
		t.Skip("allocation counts are off under -cover and -race")
	}
	const limit = 12 << 10
	for _, s := range []*frodo.KeyExchangeSet{frodo.CCS2016Recommended(), frodo.CCS2016Paranoid()} {
		msgA, _ := s.Alice0()
		msgB, _, _ := s.Bob(msgA)
		seed := make([]byte, 80)                  // Alice0's randomness: seedA, the sampler keys of S and E
		n := (s.AliceMessageSize() - 16) * 8 / 15 // n * n̄ entries
		for _, c := range []struct {
			what   string
			own    int // the results: messages, key, state S^T
			allocs float64
			f      func()
		}{
			// One more for Alice0 and Bob than the AES-NI path makes:
			// crypto/aes's block for A, without AES-NI.
			{"Alice0", s.AliceMessageSize() + 2*n, 13, func() { s.Alice0() }},
			{"Bob", s.BobMessageSize() + frodo.CCS2016KeySize, 16, func() { s.Bob(msgA) }},
			{"Alice1", frodo.CCS2016KeySize, 1, func() {
				_, st, _ := frodotest.CCS2016Alice0(s, seed)
				st.Alice1(msgB)
			}},
		} {
			allocs := leastOf3(func() float64 { return testing.AllocsPerRun(3, c.f) })
			bytes := int(leastOf3(func() float64 { return float64(heapPerOp(3, c.f)) }))
			if c.what == "Alice1" {
				// Less the Alice0 that made the state.
				alice0 := func() { frodotest.CCS2016Alice0(s, seed) }
				allocs -= leastOf3(func() float64 { return testing.AllocsPerRun(3, alice0) })
				bytes -= int(leastOf3(func() float64 { return float64(heapPerOp(3, alice0)) }))
			}
			t.Logf("%s %s: %.0f allocations, %d bytes per op (%d of them the results)", s.Name(), c.what, allocs, bytes, c.own)
			if allocs > c.allocs {
				t.Errorf("%s %s: %.0f allocations per op, want at most %.0f", s.Name(), c.what, allocs, c.allocs)
			}
			if bytes-c.own > limit {
				t.Errorf("%s %s: %d bytes per op beyond the %d bytes of results, want under 12 KiB", s.Name(), c.what, bytes-c.own, c.own)
			}
		}
	}
}

// leastOf3 returns the least of three calls of f.
func leastOf3(f func() float64) float64 {
	return min(f(), f(), f())
}
