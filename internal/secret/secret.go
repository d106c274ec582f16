// Package secret runs the module's operations on secrets through the
// standard library's runtime/secret when the program is built with
// GOEXPERIMENT=runtimesecret, and calls them directly otherwise.
//
// With the experiment, on linux/amd64 and linux/arm64, Do erases the
// registers and the stack its function used before it returns, and the
// heap memory the function allocated once the garbage collector finds it
// unreachable. Elsewhere, and without the experiment, Do only calls its
// function: nothing changes.
package secret
