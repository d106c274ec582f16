package sockets

import (
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"syscall"
	"time"
)

// Listen opens a listener on a:
//
//   - "tcp": as [net.Listen].
//   - "unix": a Unix domain socket at the path. A socket file left there
//     by a process that ended (one on which a connection is refused) is
//     removed first; a socket on which a process accepts, or a file of
//     another kind, is an error. Closing the listener removes the file.
//   - "fd": the listening socket inherited as that file descriptor, which
//     the listener takes over: Listen closes the descriptor, keeping a
//     duplicate, and an open descriptor that is not a socket is left
//     alone and an error.
//   - "systemd": the first socket passed by systemd socket activation, as
//     sd_listen_fds(3) finds it: LISTEN_PID must be this process's id and
//     LISTEN_FDS 1 or more; the socket is descriptor 3. Listen unsets
//     LISTEN_PID, LISTEN_FDS and LISTEN_FDNAMES, so that processes started
//     later do not take them for theirs, and marks the passed descriptors
//     close-on-exec.
//
// Inherited descriptors ("fd", "systemd") work on Unix systems only.
func Listen(a Addr) (net.Listener, error) {
	switch a.Network {
	case "tcp":
		ln, err := net.Listen("tcp", a.Address)
		if err != nil {
			return nil, fmt.Errorf("sockets: %w", err)
		}
		return ln, nil
	case "unix":
		return listenUnix(a.Address)
	case "fd":
		fd, ok := parseNumber(a.Address)
		if !ok || fd < minFD {
			return nil, fmt.Errorf("sockets: invalid address %q: want fd:N with N a number from %d", a, minFD)
		}
		return listenFD(fd, a.String())
	case "systemd":
		return listenSystemd()
	}
	return nil, fmt.Errorf("sockets: cannot listen on %q: unknown network %q", a, a.Network)
}

// staleTimeout bounds the connection attempt with which listenUnix tells
// a socket file left behind from one in use.
const staleTimeout = time.Second

// listenUnix listens on a Unix domain socket at path, first removing a
// socket file there on which nobody accepts.
func listenUnix(path string) (net.Listener, error) {
	fi, err := os.Lstat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return nil, fmt.Errorf("sockets: %w", err)
	case fi.Mode().Type() != fs.ModeSocket:
		return nil, fmt.Errorf("sockets: cannot listen on unix:%s: the file exists and is not a socket", path)
	default:
		c, err := net.DialTimeout("unix", path, staleTimeout)
		if err == nil {
			c.Close()
			return nil, fmt.Errorf("sockets: cannot listen on unix:%s: another process is listening on it", path)
		}
		if !errors.Is(err, syscall.ECONNREFUSED) {
			return nil, fmt.Errorf("sockets: cannot listen on unix:%s: the socket exists and connecting to it failed: %w", path, err)
		}
		if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("sockets: removing the stale socket: %w", err)
		}
	}
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: path, Net: "unix"})
	if err != nil {
		return nil, fmt.Errorf("sockets: %w", err)
	}
	return ln, nil
}
