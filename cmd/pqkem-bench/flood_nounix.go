//go:build !unix

package main

// raiseFileLimit does nothing where there is no limit on open files to
// raise.
func raiseFileLimit() (uint64, bool) { return 0, false }
