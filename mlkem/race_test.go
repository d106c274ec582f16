//go:build race

package mlkem_test

// raceEnabled reports whether the race detector is on: its instrumentation
// changes allocation counts, so the allocation tests skip.
const raceEnabled = true
