//go:build unix

package main

import "syscall"

// raiseFileLimit raises the soft limit on open files to the hard limit,
// which the children inherit, and returns the soft limit.
func raiseFileLimit() (uint64, bool) {
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		return 0, false
	}
	if lim.Cur < lim.Max {
		want := lim
		want.Cur = lim.Max
		if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &want); err == nil {
			lim = want
		}
	}
	return uint64(lim.Cur), true
}
