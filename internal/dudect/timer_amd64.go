//go:build amd64 && !purego

package dudect

// TimerUnit names the unit of Now: the time-stamp counter's cycles.
const TimerUnit = "cycles"

// cycles returns the time-stamp counter after an LFENCE, so that the
// instructions before it have completed (Intel SDM, RDTSC).
//
//go:noescape
func cycles() uint64

// Now returns a timestamp in TimerUnit. On amd64 it is the time-stamp
// counter, which is invariant (constant rate, not stopped in idle states)
// on every CPU with AVX2, so a difference of two readings is a duration.
func Now() uint64 { return cycles() }
