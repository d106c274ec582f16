package main

import (
	"runtime"
	"testing"

	"github.com/pqkem/pqkem/internal/leaktest"
	"github.com/pqkem/pqkem/noise"
)

// TestTunnelForwardedHeap measures the memory of forwarded connections
// that are open and idle after a round trip: 100 through serve in this
// process, with their clients and the echo service's ends in it too. It
// logs the figure and checks only that it stays under 1 MB a connection.
func TestTunnelForwardedHeap(t *testing.T) {
	if testing.Short() {
		t.Skip("a measurement")
	}
	leaktest.Check(t)
	dir := t.TempDir()
	tunnelKeys(t, dir, "ML-KEM-768", "server")
	srv := serveTunnel(t, dir, echoService(t), "-quiet")
	warm := dialNoise(t, dir, srv.addr)
	roundTrip(t, warm, "warm up")
	warm.Close()
	const n = 100
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	conns := make([]*noise.Conn, n)
	for i := range conns {
		conns[i] = dialNoise(t, dir, srv.addr)
		roundTrip(t, conns[i], "open")
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	heap := (float64(after.HeapInuse) - float64(before.HeapInuse)) / n
	stacks := (float64(after.StackInuse) - float64(before.StackInuse)) / n
	t.Logf("%d forwarded connections, idle: %.0f KB of heap and %.0f KB of goroutine stacks each, with their clients and the service's ends", n, heap/1e3, stacks/1e3)
	if heap+stacks > 1e6 {
		t.Errorf("%.0f KB a forwarded connection, want under 1 MB", (heap+stacks)/1e3)
	}
	for _, c := range conns {
		c.Close()
	}
}
