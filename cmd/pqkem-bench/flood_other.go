//go:build !linux

package main

import (
	"syscall"
	"time"
)

// Without Linux's /proc, flood does not measure serve's CPU time and
// memory.

func procCPU(pid int) (time.Duration, bool) { return 0, false }

func procRSS(pid int) (int64, bool) { return 0, false }

func childSysProcAttr() *syscall.SysProcAttr { return nil }

func listenBacklog() (int, bool) { return 0, false }
