//go:build goexperiment.runtimesecret

package secret

import "runtime/secret"

// Enabled reports whether Do erases what its function used (the build has
// GOEXPERIMENT=runtimesecret; runtime/secret erases only on linux/amd64
// and linux/arm64).
const Enabled = true

// Do calls f inside runtime/secret's Do. Inside another Do it calls f
// directly: the outer one erases what f used.
func Do(f func()) {
	if secret.Enabled() {
		f()
		return
	}
	secret.Do(f)
}
