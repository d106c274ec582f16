//go:build !goexperiment.runtimesecret

package secret

// Enabled reports whether Do erases what its function used: not in this
// build, which lacks GOEXPERIMENT=runtimesecret.
const Enabled = false

// Do calls f.
func Do(f func()) { f() }
