//go:build unix

package cli

import (
	"os"
	"os/signal"
	"syscall"
)

// notifySIGPIPE asks for SIGPIPE: the Go runtime then no longer kills the
// process when it writes to a closed pipe on standard output or standard
// error, and the write fails with EPIPE instead, which the frame reports.
// (signal.Ignore would do the same, but children would inherit SIG_IGN.)
// The signals themselves are dropped: the channel is never read.
func notifySIGPIPE() {
	signal.Notify(make(chan os.Signal, 1), syscall.SIGPIPE)
}
