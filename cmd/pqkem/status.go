package main

import (
	"context"
	"errors"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/pqkem/pqkem/internal/cli"
	"github.com/pqkem/pqkem/internal/sockets"
	"github.com/pqkem/pqkem/internal/tunnel"
)

// startStatus serves /healthz and /metrics on addr, a loopback HOST:PORT
// or unix:PATH, if not empty; stop ends it.
func startStatus(addr string, m *tunnel.Metrics, lg *tunnel.Log) (stop func(), err error) {
	if addr == "" {
		return func() {}, nil
	}
	a, err := checkStatus(addr)
	if err != nil {
		return nil, err
	}
	ln, err := sockets.Listen(a)
	if err != nil {
		return nil, errors.New("-status: " + strings.TrimPrefix(err.Error(), "sockets: "))
	}
	srv := &http.Server{Handler: m.Handler(), ReadHeaderTimeout: 5 * time.Second}
	done := make(chan struct{})
	go func() {
		defer close(done)
		srv.Serve(ln)
	}()
	lg.Printf("status on %v: /healthz, /metrics", ln.Addr())
	return func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		srv.Shutdown(ctx)
		srv.Close()
		<-done
	}, nil
}

// checkStatus parses -status, which must be a loopback HOST:PORT or a
// unix:PATH.
func checkStatus(addr string) (sockets.Addr, error) {
	a, err := parseListen("status", addr)
	if err != nil {
		return a, err
	}
	if !isLoopback(a) {
		return a, cli.Usagef("-status %s: want a loopback HOST:PORT (127.0.0.1, [::1], localhost) or unix:PATH: the metrics are not for the network", addr)
	}
	return a, nil
}

// isLoopback reports whether a is a Unix socket or a TCP address on a
// loopback address.
func isLoopback(a sockets.Addr) bool {
	switch a.Network {
	case "unix":
		return true
	case "tcp":
		host, _, err := net.SplitHostPort(a.Address)
		if err != nil {
			return false
		}
		if host == "localhost" {
			return true
		}
		ip := net.ParseIP(host)
		return ip != nil && ip.IsLoopback()
	}
	return false
}
