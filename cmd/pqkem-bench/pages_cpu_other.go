//go:build !unix

package main

import "time"

// processCPU is the CPU time this process has used so far, or 0 where
// the system does not say, as here.
func processCPU() time.Duration { return 0 }
