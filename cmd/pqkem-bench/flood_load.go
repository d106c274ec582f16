package main

import (
	"context"
	crand "crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/netip"
	"os"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/pqkem/pqkem/noise"
)

// The load of flood: the real client, the idle sockets and the
// random-bytes flood.

// clientAddr is the real client's source address; the attack comes from
// the ones after it where the system lets us bind them.
var clientAddr = &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1)}

// A realClient makes connections as a user of the tunnel would.
type realClient struct {
	dialer  noise.Dialer
	addr    string
	timeout time.Duration
}

func newRealClient(cfg *noise.Config, addr string, timeout time.Duration) *realClient {
	return &realClient{
		dialer:  noise.Dialer{NetDialer: &net.Dialer{LocalAddr: clientAddr}, Config: cfg},
		addr:    addr,
		timeout: timeout,
	}
}

// open connects, runs the handshake, sends one byte and reads its echo,
// within the client's timeout, and returns the connection and the time
// it took.
func (rc *realClient) open(ctx context.Context) (net.Conn, time.Duration, error) {
	ctx, cancel := context.WithTimeout(ctx, rc.timeout)
	defer cancel()
	start := time.Now()
	conn, err := rc.dialer.DialContext(ctx, "tcp", rc.addr)
	if err != nil {
		return nil, 0, err
	}
	stop := context.AfterFunc(ctx, func() { conn.SetDeadline(time.Now()) })
	defer stop()
	var b [1]byte
	if _, err := conn.Write([]byte{'x'}); err != nil {
		conn.Close()
		return nil, 0, err
	}
	if _, err := io.ReadFull(conn, b[:]); err != nil {
		conn.Close()
		return nil, 0, err
	}
	d := time.Since(start)
	if b[0] != 'x' {
		conn.Close()
		return nil, 0, fmt.Errorf("echo of %q, want %q", b[0], 'x')
	}
	return conn, d, nil
}

// once makes one connection and closes it.
func (rc *realClient) once(ctx context.Context) (time.Duration, error) {
	conn, d, err := rc.open(ctx)
	if err != nil {
		return 0, err
	}
	// End as pqkem connect does, so that serve sees a clean end: our end
	// of stream, then the server's, then the close.
	conn.SetDeadline(time.Now().Add(time.Second))
	if hc, ok := conn.(interface{ CloseWrite() error }); ok && hc.CloseWrite() == nil {
		io.Copy(io.Discard, conn)
	}
	conn.Close()
	return d, nil
}

// failureCause sorts an error of the real client.
func failureCause(err error) string {
	var ne net.Error
	switch {
	case errors.Is(err, context.DeadlineExceeded), errors.Is(err, os.ErrDeadlineExceeded),
		errors.As(err, &ne) && ne.Timeout():
		return "timeout"
	case errors.Is(err, syscall.ECONNREFUSED):
		return "refused"
	case errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.EPIPE):
		return "reset"
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return "closed"
	}
	return "other"
}

// attackSources returns the addresses the attack binds to, n of them
// from 127.0.0.2 on, or one nil (any) where the system cannot bind
// 127.0.0.2, as most but Linux cannot; probe is an address to connect
// to for the test.
func attackSources(n int, probe string) ([]net.Addr, bool) {
	first := netip.AddrFrom4([4]byte{127, 0, 0, 2})
	d := net.Dialer{Timeout: time.Second, LocalAddr: net.TCPAddrFromAddrPort(netip.AddrPortFrom(first, 0))}
	c, err := d.Dial("tcp", probe)
	if err != nil {
		return []net.Addr{nil}, false
	}
	c.Close()
	return loopbackSources(n), true
}

// idleDialTimeout bounds the connect of an idle socket: a listening queue
// that is full drops the SYN, and the kernel tries again only after a
// second.
const idleDialTimeout = time.Second

// idleDialers is how many idle sockets connect at once.
const idleDialers = 1000

// idleSockets are connections that never send a byte.
type idleSockets struct {
	mu       sync.Mutex
	conns    []net.Conn
	failed   int
	firstErr error

	open     atomic.Int64 // open now
	stopping atomic.Bool
	wg       sync.WaitGroup
}

// openIdle opens n idle sockets to addr from sources, and returns once
// each has connected or failed to.
func openIdle(ctx context.Context, addr string, n int, sources []net.Addr) *idleSockets {
	is := new(idleSockets)
	sem := make(chan struct{}, idleDialers)
	var wg sync.WaitGroup
	for i := range n {
		select {
		case sem <- struct{}{}:
		case <-ctx.Done():
		}
		if ctx.Err() != nil {
			break
		}
		wg.Go(func() {
			defer func() { <-sem }()
			d := net.Dialer{Timeout: idleDialTimeout, LocalAddr: sources[i%len(sources)]}
			c, err := d.DialContext(ctx, "tcp", addr)
			is.mu.Lock()
			defer is.mu.Unlock()
			if err != nil {
				is.failed++
				if is.firstErr == nil {
					is.firstErr = err
				}
				return
			}
			is.conns = append(is.conns, c)
			is.open.Add(1)
			is.wg.Go(func() {
				io.Copy(io.Discard, c) // until the server closes it, or we do
				if !is.stopping.Load() {
					is.open.Add(-1)
				}
			})
		})
	}
	wg.Wait()
	return is
}

func (is *idleSockets) opened() int {
	is.mu.Lock()
	defer is.mu.Unlock()
	return len(is.conns)
}

// close closes the sockets.
func (is *idleSockets) close() {
	is.stopping.Store(true)
	is.mu.Lock()
	for _, c := range is.conns {
		c.Close()
	}
	is.mu.Unlock()
	is.wg.Wait()
}

// floodWait is how long a flood connection waits for the server to
// close it.
const floodWait = time.Second

// floodInFlight is how many bogus handshakes a flood worker keeps in
// flight: enough that the server always has one to work on.
const floodInFlight = 64

// A flood is workers sending random first handshake messages.
type flood struct {
	sent     atomic.Int64 // first messages sent
	dialErrs atomic.Int64
	cancel   context.CancelFunc
	wg       sync.WaitGroup
}

// startFlood starts workers goroutines that each connect to addr from
// sources and send a first message of size bytes (and its length) of
// random bytes, over and over, with up to floodInFlight connections open
// at once, each waiting for the server to close it; until stop.
func startFlood(ctx context.Context, addr string, workers, size int, sources []net.Addr) *flood {
	ctx, cancel := context.WithCancel(ctx)
	f := &flood{cancel: cancel}
	for w := range workers {
		f.wg.Go(func() {
			var seed [32]byte
			crand.Read(seed[:])
			rng := rand.NewChaCha8(seed)
			msg := make([]byte, 2+size)
			binary.BigEndian.PutUint16(msg, uint16(size))
			slots := make(chan struct{}, floodInFlight)
			for k := w; ; k += workers {
				select {
				case slots <- struct{}{}:
				case <-ctx.Done():
				}
				if ctx.Err() != nil {
					return
				}
				d := net.Dialer{Timeout: time.Second, LocalAddr: sources[k%len(sources)]}
				c, err := d.DialContext(ctx, "tcp", addr)
				if err != nil {
					<-slots
					f.dialErrs.Add(1)
					sleepCtx(ctx, 10*time.Millisecond) // out of ports or files, say: do not spin
					continue
				}
				rng.Read(msg[2:])
				c.SetDeadline(time.Now().Add(floodWait))
				if _, err := c.Write(msg); err != nil {
					c.Close()
					<-slots
					continue
				}
				f.sent.Add(1)
				// The server closes first, so that the TIME_WAIT is its,
				// and our ports are free again at once.
				f.wg.Go(func() {
					stop := context.AfterFunc(ctx, func() { c.Close() })
					io.Copy(io.Discard, c)
					stop()
					c.Close()
					<-slots
				})
			}
		})
	}
	return f
}

// stop stops the workers and waits for them.
func (f *flood) stop() {
	f.cancel()
	f.wg.Wait()
}
