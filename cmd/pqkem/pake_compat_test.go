package main

import (
	"net"

	"github.com/pqkem/pqkem/pake"
)

// The command's two sides of the exchange, as TestPakeWireCompat runs
// them.
func pakeRespondCompat(conn net.Conn, creds *pake.Credentials) ([]byte, error) {
	return pakeRespond(conn, creds, func() error { return nil })
}

func pakeInitiateCompat(conn net.Conn, creds *pake.Credentials) ([]byte, error) {
	return pakeInitiate(conn, creds)
}
