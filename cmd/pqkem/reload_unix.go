//go:build unix

package main

import (
	"os"
	"os/signal"
	"syscall"
)

// notifyReload makes SIGHUP send on the returned channel, instead of
// ending the process, until stop is called.
func notifyReload() (<-chan os.Signal, func()) {
	c := make(chan os.Signal, 1)
	signal.Notify(c, syscall.SIGHUP)
	return c, func() { signal.Stop(c) }
}
