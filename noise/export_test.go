package noise

import "time"

// SetClearUpperAfterOpen turns the VZEROUPPER after ChaChaPoly's Open on
// or off, for benchmarks, and returns the function that restores it.
func SetClearUpperAfterOpen(on bool) (restore func()) {
	old := clearUpperAfterOpen
	clearUpperAfterOpen = on
	return func() { clearUpperAfterOpen = old }
}

// SetConfirmDelay sets how long a client's confirmation waits for data,
// and returns the function that restores it.
func SetConfirmDelay(d time.Duration) (restore func()) {
	old := confirmDelay
	confirmDelay = d
	return func() { confirmDelay = old }
}
