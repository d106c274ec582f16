//go:build !linux

package tunnel

// openFileLimit is not known here: the tests assume enough.
func openFileLimit() uint64 { return 1 << 20 }
