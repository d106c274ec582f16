//go:build !linux

package main

// openFileLimit is not known here; the tests that need it skip anyway
// (they need Linux's loopback addresses).
func openFileLimit() uint64 { return 0 }
