//go:build !unix

package sockets

import (
	"fmt"
	"net"
)

func listenFD(fd int, name string) (net.Listener, error) {
	return nil, fmt.Errorf("sockets: %s: inherited descriptors work on Unix systems only", name)
}

func listenSystemd() (net.Listener, error) {
	return nil, fmt.Errorf("sockets: systemd: socket activation works on Unix systems only")
}
