package vzeroupper

// Dirty reports whether the upper halves of Y0 to Y15 are not all zero,
// which happens only with a dirty AVX upper state, and leaves them clean.
// It is false where [AfterOpen] does nothing. It is for tests that check
// a caller of AfterOpen.
func Dirty() bool { return useAVX2 && upperHalves() != 0 }
