//go:build !unix

package cli

// notifySIGPIPE does nothing where there is no SIGPIPE: a write to a
// closed pipe fails with an error.
func notifySIGPIPE() {}
