package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"runtime"
	"sync"
	"time"
)

// A serveRun is what one timed run of one contender on one page size
// gave: how many requests completed, in how long, and the latency of
// each.
type serveRun struct {
	conns   int
	elapsed time.Duration
	cpu     time.Duration // the process's CPU time during the run, both sides
	lats    []float64     // ms, one a request
}

// run has clients goroutines fetch the page of n bytes, each request on a
// new connection, one after another until d has passed; the run ends when
// the last request started before then has completed. Any failed request
// fails the run.
func (ps *pageServer) run(n, clients int, d time.Duration) (serveRun, error) {
	runtime.GC() // the last run's garbage is not this one's to collect
	lats := make([][]float64, clients)
	errs := make([]error, clients)
	var wg sync.WaitGroup
	cpu0 := processCPU()
	start := time.Now()
	deadline := start.Add(d)
	for i := range clients {
		wg.Go(func() {
			for {
				t0 := time.Now()
				if !t0.Before(deadline) {
					return
				}
				if err := ps.get(n); err != nil {
					errs[i] = err
					return
				}
				lats[i] = append(lats[i], float64(time.Since(t0))/float64(time.Millisecond))
			}
		})
	}
	wg.Wait()
	r := serveRun{elapsed: time.Since(start), cpu: processCPU() - cpu0}
	if err := errors.Join(errs...); err != nil {
		return r, fmt.Errorf("pages: %s, %d-byte page: %w", ps.sec.label, n, err)
	}
	for _, l := range lats {
		r.lats = append(r.lats, l...)
	}
	r.conns = len(r.lats)
	return r, nil
}

// countingConn counts the bytes read and written through it.
type countingConn struct {
	net.Conn
	read, written int64
}

func (c *countingConn) Read(b []byte) (int, error) {
	n, err := c.Conn.Read(b)
	c.read += int64(n)
	return n, err
}

func (c *countingConn) Write(b []byte) (int, error) {
	n, err := c.Conn.Write(b)
	c.written += int64(n)
	return n, err
}

// handshakeOnce runs one handshake of sec in memory, both sides, and
// returns the bytes the client sent and received: the handshake on the
// wire, framing and record headers included. They are counted on the
// server's side, whose handshake ends once it has read the client's last
// message (a TLS client's Finished, a Noise client's confirmation, which
// the client may send from another goroutine).
func handshakeOnce(sec *security) (sent, received int64, err error) {
	a, b := net.Pipe()
	defer a.Close()
	defer b.Close()
	ctx, cancel := context.WithTimeout(context.Background(), pagesRequestTimeout)
	defer cancel()
	cb := &countingConn{Conn: b}
	client, server := sec.client(a), sec.server(cb)
	serr := make(chan error, 1)
	go func() { serr <- server.HandshakeContext(ctx) }()
	cerr := client.HandshakeContext(ctx)
	if cerr != nil {
		// Unblock the server, which may be waiting for a message.
		a.Close()
		b.Close()
	}
	if err := errors.Join(cerr, <-serr); err != nil {
		return 0, 0, fmt.Errorf("pages: %s: handshake: %w", sec.label, err)
	}
	sec.noteSuite(client)
	return cb.read, cb.written, nil
}

// handshakeCost is what one handshake costs beside the time: the bytes
// each way on the wire and the heap both sides allocate.
type handshakeCost struct {
	ClientToServer int64   `json:"client_to_server_bytes"`
	ServerToClient int64   `json:"server_to_client_bytes"`
	HeapBytes      float64 `json:"heap_bytes"`  // allocated per handshake, both sides
	HeapAllocs     float64 `json:"heap_allocs"` // allocations per handshake, both sides
}

// measureHandshake runs n handshakes of sec one after another in memory
// (net.Pipe), both sides, and returns the bytes of one and the heap
// allocated per handshake (runtime.MemStats over the n, the in-memory
// pipe and the server's goroutine included).
func measureHandshake(sec *security, n int) (handshakeCost, error) {
	var hc handshakeCost
	var err error
	if hc.ClientToServer, hc.ServerToClient, err = handshakeOnce(sec); err != nil {
		return hc, err
	}
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for range n {
		if _, _, err := handshakeOnce(sec); err != nil {
			return hc, err
		}
	}
	runtime.ReadMemStats(&after)
	hc.HeapBytes = float64(after.TotalAlloc-before.TotalAlloc) / float64(n)
	hc.HeapAllocs = float64(after.Mallocs-before.Mallocs) / float64(n)
	return hc, nil
}

// A bulkServer sends size bytes on every connection it accepts, after
// the handshake, then closes it.
type bulkServer struct {
	sec  *security
	l    net.Listener
	size int64
	done chan struct{}
}

// bulkWriteSize and bulkReadSize are the sizes of the writes and reads of
// the bulk transfer, an application's large buffers: each Write is cut
// into records (TLS, 16 KiB) or messages (Noise, 64 KiB) by the
// protocol.
const (
	bulkWriteSize = 1 << 20
	bulkReadSize  = 64 << 10
)

func startBulkServer(sec *security, size int64) (*bulkServer, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("pages: %w", err)
	}
	bs := &bulkServer{sec: sec, l: l, size: size, done: make(chan struct{})}
	buf := make([]byte, bulkWriteSize)
	go func() {
		defer close(bs.done)
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			s := sec.server(c)
			for left := size; left > 0; {
				n, err := s.Write(buf[:min(left, int64(len(buf)))])
				if err != nil {
					break
				}
				left -= int64(n)
			}
			s.Close()
		}
	}()
	return bs, nil
}

// transfer connects, runs the handshake, and returns the throughput in
// MiB/s of receiving the size bytes, from the end of the handshake to the
// last byte, and the CPU time per MiB that both sides used meanwhile.
func (bs *bulkServer) transfer() (mibps float64, cpuPerMiB time.Duration, err error) {
	runtime.GC()
	raw, err := net.Dial("tcp", bs.l.Addr().String())
	if err != nil {
		return 0, 0, fmt.Errorf("pages: bulk: %w", err)
	}
	c := bs.sec.client(raw)
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), pagesRequestTimeout)
	defer cancel()
	if err := c.HandshakeContext(ctx); err != nil {
		return 0, 0, fmt.Errorf("pages: bulk, %s: handshake: %w", bs.sec.label, err)
	}
	bs.sec.noteSuite(c)
	// A transfer slower than 1 MiB/s has gone wrong.
	c.SetDeadline(time.Now().Add(pagesRequestTimeout + time.Duration(bs.size>>20)*time.Second))
	buf := make([]byte, bulkReadSize)
	cpu0 := processCPU()
	start := time.Now()
	var got int64
	for got < bs.size {
		n, err := c.Read(buf)
		got += int64(n)
		if err != nil {
			if err == io.EOF && got == bs.size {
				break
			}
			return 0, 0, fmt.Errorf("pages: bulk, %s: after %d of %d bytes: %w", bs.sec.label, got, bs.size, err)
		}
	}
	el, cpu := time.Since(start), processCPU()-cpu0
	mib := float64(bs.size) / (1 << 20)
	return mib / el.Seconds(), time.Duration(float64(cpu) / mib), nil
}

func (bs *bulkServer) close() {
	bs.l.Close()
	<-bs.done
}
