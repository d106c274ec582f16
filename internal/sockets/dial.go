package sockets

import (
	"context"
	"fmt"
	"net"
)

// Dial connects to a, a TCP or Unix socket address (see [Addr.CanDial]),
// until ctx is done.
func Dial(ctx context.Context, a Addr) (net.Conn, error) {
	if !a.CanDial() {
		return nil, fmt.Errorf("sockets: cannot connect to %s: want HOST:PORT or unix:PATH", a)
	}
	var d net.Dialer
	c, err := d.DialContext(ctx, a.Network, a.Address)
	if err != nil {
		return nil, fmt.Errorf("sockets: %w", err)
	}
	return c, nil
}
