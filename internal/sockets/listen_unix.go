//go:build unix

package sockets

import (
	"fmt"
	"net"
	"os"
	"strconv"
	"syscall"
)

// listenFD makes a listener of descriptor fd, which must be an open
// socket, and closes fd. name is the address, for errors.
func listenFD(fd int, name string) (net.Listener, error) {
	// A descriptor that is not a socket may be one this process uses for
	// something else: Listen must not close it.
	var st syscall.Stat_t
	if err := syscall.Fstat(fd, &st); err != nil {
		return nil, fmt.Errorf("sockets: %s: descriptor %d: %w", name, fd, err)
	}
	if st.Mode&syscall.S_IFMT != syscall.S_IFSOCK {
		return nil, fmt.Errorf("sockets: %s: descriptor %d is not a socket", name, fd)
	}
	f := os.NewFile(uintptr(fd), name)
	ln, err := net.FileListener(f)
	f.Close()
	if err != nil {
		return nil, fmt.Errorf("sockets: %s: %w", name, err)
	}
	return ln, nil
}

// The environment variables of socket activation (sd_listen_fds(3)).
const (
	envPID     = "LISTEN_PID"
	envFDs     = "LISTEN_FDS"
	envFDNames = "LISTEN_FDNAMES"
)

// listenFDsStart is SD_LISTEN_FDS_START, the first descriptor passed.
const listenFDsStart = 3

// listenSystemd listens on the first socket passed by systemd socket
// activation, as sd_listen_fds(3) with unset_environment set does.
func listenSystemd() (net.Listener, error) {
	pidText, havePID := os.LookupEnv(envPID)
	fdsText, haveFDs := os.LookupEnv(envFDs)
	os.Unsetenv(envPID)
	os.Unsetenv(envFDs)
	os.Unsetenv(envFDNames)
	if !havePID || !haveFDs {
		return nil, fmt.Errorf("sockets: systemd: %s or %s is not set: the process was not started by socket activation", envPID, envFDs)
	}
	pid, ok := parseNumber(pidText)
	if !ok {
		return nil, fmt.Errorf("sockets: systemd: %s=%q is not a number", envPID, pidText)
	}
	if pid != os.Getpid() {
		return nil, fmt.Errorf("sockets: systemd: %s=%d is another process's, this is %d", envPID, pid, os.Getpid())
	}
	n, ok := parseNumber(fdsText)
	if !ok {
		return nil, fmt.Errorf("sockets: systemd: %s=%q is not a number", envFDs, fdsText)
	}
	if n < 1 {
		return nil, fmt.Errorf("sockets: systemd: %s=%d: no socket was passed", envFDs, n)
	}
	// The other sockets are not for this process's children either.
	for fd := listenFDsStart + 1; fd < listenFDsStart+n && fd < 1<<16; fd++ {
		syscall.CloseOnExec(fd)
	}
	return listenFD(listenFDsStart, "systemd (descriptor "+strconv.Itoa(listenFDsStart)+")")
}
