package noise

// SetClearUpperAfterOpen turns the VZEROUPPER after ChaChaPoly's Open on
// or off, for benchmarks, and returns the function that restores it.
func SetClearUpperAfterOpen(on bool) (restore func()) {
	old := clearUpperAfterOpen
	clearUpperAfterOpen = on
	return func() { clearUpperAfterOpen = old }
}
