//go:build !unix

package main

import "os"

// notifyReload returns a channel that never receives: there is no SIGHUP.
func notifyReload() (<-chan os.Signal, func()) { return nil, func() {} }
