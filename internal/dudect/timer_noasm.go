//go:build !amd64 || purego

package dudect

import "time"

// TimerUnit names the unit of Now: nanoseconds of the monotonic clock.
const TimerUnit = "ns"

var epoch = time.Now()

// Now returns a timestamp in TimerUnit: nanoseconds of the monotonic clock
// since the package was initialized.
func Now() uint64 { return uint64(time.Since(epoch)) }
