package main

import (
	"context"

	"github.com/pqkem/pqkem/noise"
)

// waitConfirmation waits for the client's proof that it completed the
// handshake, where package noise has it.
func waitConfirmation(ctx context.Context, c *noise.Conn) error {
	if w, ok := any(c).(interface{ WaitConfirmation(context.Context) error }); ok {
		return w.WaitConfirmation(ctx)
	}
	return nil
}
