// Package tunnel is the proxy behind pqkem serve and pqkem connect
// -listen: an accept loop, a pool of the connections in their handshake
// apart from the pool of those being forwarded, a per-source limit of
// failed handshakes, and the copy loop ([Forward]) that passes on a clean
// end as a half-close and any failure as a reset on both sides.
//
// It knows nothing of PQNoise: the command gives it a Handshake function,
// which makes the end that faces the client (for serve, a PQNoise
// connection whose peer has proven it completed the handshake), and a
// Dial function, which opens the other end.
package tunnel

import (
	"context"
	"errors"
	"fmt"
	"net"
	"sync"
	"sync/atomic"
	"time"
)

// Limits bound the connections of a [Proxy].
type Limits struct {
	// MaxConns is the most connections forwarded at once. A connection
	// whose handshake has completed while MaxConns are forwarded waits,
	// in the handshake pool, up to Timeout for one to end.
	MaxConns int
	// MaxHandshakes is the most connections in their handshake at once
	// (from accept until they are forwarded); a new one takes the place
	// of the oldest that has sent nothing yet, or else of the oldest.
	MaxHandshakes int
	// MaxPerSource is the most connections in their handshake from one
	// source address (an IPv4 address, an IPv6 /64), handled as
	// MaxHandshakes is; 0 means no bound.
	MaxPerSource int
	// Rate is the failed handshakes a second allowed from one source
	// address, with bursts of Burst: once over it, the source's new
	// connections are reset at accept until it is under again. A
	// handshake that succeeds counts for nothing. 0 means no limit.
	Rate  float64
	Burst int
	// Timeout bounds the handshake, counted from accept; then the wait
	// for a place among the forwarded connections; then Dial.
	Timeout time.Duration
	// Idle is the idle limit of a forwarded connection ([Options]).
	Idle time.Duration
	// BufferSize is the size of each direction's buffer ([Options]).
	BufferSize int
}

// A Conn is one connection a [Proxy] serves.
type Conn struct {
	// Accepted is the connection as the listener returned it.
	Accepted net.Conn
	// Who names the connection in the log: its remote address, to which
	// Handshake may add (the client key's fingerprint).
	Who string
	// Front is the end that faces the accepted peer: Handshake sets it;
	// it starts as the accepted connection (with its first bytes, when
	// the proxy waited for them).
	Front net.Conn
	// Back is the other end, which Dial sets.
	Back net.Conn
	// Value is for the command's own use between Handshake and Dial.
	Value any
}

// A Proxy serves the connections of a listener. Its fields must be set
// before Start and not changed after.
type Proxy struct {
	Limits
	// WaitFirstBytes makes each connection wait for its peer's first
	// bytes before Handshake runs, with a buffer of two bytes: an idle
	// socket costs little more than its goroutine.
	WaitFirstBytes bool
	// Names are the names of the front and back ends, for the log: for
	// example "client" and "service".
	Names [2]string
	// Handshake sets c.Front to the end that faces the peer, once the
	// handshake is complete; nil keeps the accepted connection. It must
	// end when ctx does. On an error the proxy resets the connection.
	Handshake func(ctx context.Context, c *Conn) error
	// Dial sets c.Back, within ctx. Its error is logged as it is, after
	// c.Who.
	Dial func(ctx context.Context, c *Conn) error
	// Describe words a handshake error for the log, and gives its cause
	// for the metrics and the log's summary (a short word, one of
	// [HandshakeResults]); nil means the error itself, cause "failed".
	Describe func(err error) (cause, text string)
	// Cause, if not nil, gives the cause of a forwarded connection's
	// failure (one of [CloseResults]); nil means [Cause].
	Cause func(err error) string
	// Log is where the events go; it must not be nil.
	Log *Log
	// Metrics, if not nil, counts them.
	Metrics *Metrics

	ctx      context.Context
	cut      context.CancelFunc
	hs       *handshakes
	slots    chan struct{}
	limiter  *failureLimit
	ln       net.Listener
	quit     chan struct{}
	rejected chan net.Conn // to reset, off the accept loop
	once     sync.Once
	wg       sync.WaitGroup // the accept loop and the connections' goroutines
	open     atomic.Int64   // connections being handled
}

// Start accepts the connections of ln and serves each in a goroutine of
// its own, until Accept fails or StopAccepting is called. The channel
// receives the error that ended the accept loop: Accept's, or nil after
// StopAccepting. A temporary error of Accept (too many open files) is
// retried after a pause.
func (p *Proxy) Start(ln net.Listener) <-chan error {
	p.ctx, p.cut = context.WithCancel(context.Background())
	p.hs = newHandshakes(max(p.MaxHandshakes, 1), p.MaxPerSource)
	p.slots = make(chan struct{}, max(p.MaxConns, 1))
	if p.Rate > 0 {
		p.limiter = newFailureLimit(p.Rate, max(p.Burst, 1), 4*max(p.MaxHandshakes, 1024))
	}
	p.ln = ln
	p.quit = make(chan struct{})
	p.rejected = make(chan net.Conn, rejectQueue)
	p.wg.Go(func() {
		for c := range p.rejected {
			Reset(c)
		}
	})
	done := make(chan error, 1)
	p.wg.Go(func() {
		err := p.acceptLoop()
		close(p.rejected)
		done <- err
	})
	return done
}

// rejectQueue is how many connections refused at once (their address
// over the rate) may wait for their reset: the accept loop hands them on,
// so that a flood's resets do not keep it from the next connection,
// which may be a real client's.
const rejectQueue = 256

func (p *Proxy) acceptLoop() error {
	for {
		conn, err := Accept(p.ln, p.quit)
		if conn == nil {
			return err
		}
		p.admit(conn)
	}
}

// Accept returns the next connection of ln. It retries a temporary error
// (see [IsTemporary]: too many open files, say) after a pause that doubles
// from 5 ms up to a second, and returns nil, nil once quit is closed.
func Accept(ln net.Listener, quit <-chan struct{}) (net.Conn, error) {
	pause := 5 * time.Millisecond
	for {
		conn, err := ln.Accept()
		if err == nil {
			return conn, nil
		}
		select {
		case <-quit:
			return nil, nil
		default:
		}
		if !IsTemporary(err) {
			return nil, err
		}
		select {
		case <-time.After(pause):
		case <-quit:
			return nil, nil
		}
		pause = min(2*pause, time.Second)
	}
}

// admit enters a new connection into the handshake pool and starts its
// goroutine, or resets it at once if its source is over the rate.
func (p *Proxy) admit(conn net.Conn) {
	now := time.Now()
	source := sourceKey(conn.RemoteAddr())
	if p.limiter != nil && source != "" && !p.limiter.allow(source, now) {
		p.Metrics.rateLimited()
		p.Log.Failure("rate-limited", fmt.Sprintf("%s: its address's failed handshakes over %g/s (burst %d): connection reset", addrName(conn.RemoteAddr()), p.Rate, p.Burst))
		select {
		case p.rejected <- conn:
		default:
			Reset(conn) // the queue is full: here, then
		}
		return
	}
	e, victim := p.hs.add(conn, source)
	if e == nil {
		Reset(conn) // stopping
		return
	}
	if victim != nil {
		Reset(victim.conn)
	}
	p.open.Add(1)
	p.Metrics.handshakeStarted()
	p.wg.Go(func() {
		defer p.open.Add(-1)
		p.serve(e, now)
	})
}

// serve runs one connection: its handshake, the wait for a place among
// the forwarded connections, Dial, then Forward.
func (p *Proxy) serve(e *pending, accepted time.Time) {
	c := &Conn{Accepted: e.conn, Who: addrName(e.conn.RemoteAddr()), Front: e.conn}
	inPool := true
	leave := func() {
		if inPool {
			inPool = false
			p.hs.remove(e)
			p.Metrics.handshakeEnded()
		}
	}
	defer leave()
	failHandshake := func(err error) {
		cause, text := "failed", err.Error()
		select {
		case <-e.evicted:
			cause, text = "dropped", "in its handshake, reset for a newer connection (-max-handshakes or -max-per-source reached)"
		default:
			if p.ctx.Err() != nil {
				cause, text = "shutdown", "handshake cut by the shutdown"
			} else if p.Describe != nil {
				cause, text = p.Describe(err)
			}
		}
		Reset(c.Front)
		Reset(e.conn)
		if p.limiter != nil && e.source != "" && cause != "dropped" && cause != "shutdown" {
			p.limiter.failed(e.source, time.Now())
		}
		p.Metrics.handshake(cause, 0)
		p.Log.Failure(cause, c.Who+": "+text)
	}
	ctx, cancel := context.WithDeadline(p.ctx, accepted.Add(p.Timeout))
	defer cancel()
	if p.WaitFirstBytes {
		head, err := readFirst(e.conn, accepted.Add(p.Timeout))
		if err != nil {
			failHandshake(firstBytesError(err, p.Timeout))
			return
		}
		p.hs.start(e)
		c.Front = &replayConn{Conn: e.conn, head: head}
	}
	started := time.Now()
	if p.Handshake != nil {
		if err := p.Handshake(ctx, c); err != nil {
			failHandshake(err)
			return
		}
	}
	// A place among the forwarded connections, waited for in the
	// handshake pool, so that it can be displaced like any handshake.
	wait, cancelWait := context.WithTimeout(p.ctx, p.Timeout)
	defer cancelWait()
	select {
	case p.slots <- struct{}{}:
	case <-e.evicted:
		failHandshake(errDropped)
		return
	case <-wait.Done():
		if p.ctx.Err() != nil {
			failHandshake(context.Canceled)
		} else {
			p.Metrics.handshake("busy", 0)
			p.Log.Failure("busy", fmt.Sprintf("%s: no place among the %d forwarded connections (-max) within %v: connection reset", c.Who, cap(p.slots), p.Timeout))
			Reset(c.Front)
		}
		return
	}
	defer func() { <-p.slots }()
	stillIn := p.hs.remove(e)
	inPool = false
	p.Metrics.handshakeEnded()
	if !stillIn {
		failHandshake(errDropped)
		return
	}
	if p.Handshake != nil {
		p.Metrics.handshake("ok", time.Since(started))
	}

	dctx, cancelDial := context.WithTimeout(p.ctx, p.Timeout)
	err := p.Dial(dctx, c)
	cancelDial()
	if err != nil {
		Reset(c.Front)
		p.Metrics.dialFailed()
		p.Log.Failure("dial", c.Who+": "+err.Error())
		return
	}
	p.Log.Infof("%s: connected to %s", c.Who, addrName(c.Back.RemoteAddr()))
	p.Metrics.connOpened()
	r := Forward(p.ctx, c.Front, c.Back, p.Names, Options{Idle: p.Idle, BufferSize: p.BufferSize, OnBytes: p.Metrics.countBytes})
	cause := Cause(r.Err)
	if r.Err != nil && p.Cause != nil {
		cause = p.Cause(r.Err)
	}
	p.Metrics.connClosed(cause)
	line := c.Who + ": " + Summarize(r)
	if r.Err != nil {
		p.Log.Failure(cause, line)
	} else {
		p.Log.Infof("%s", line)
	}
}

var errDropped = errors.New("dropped for a newer connection")

// addrName names a connection's address for the log; a Unix socket's
// peer usually has no name.
func addrName(a net.Addr) string {
	if u, ok := a.(*net.UnixAddr); ok && u != nil && (u.Name == "" || u.Name == "@") {
		return "unnamed Unix socket" // a client's, usually: "@" in package net
	}
	if a == nil || a.String() == "" {
		return "unnamed peer"
	}
	return a.String()
}

// firstBytesError words the failure of waiting for a peer's first bytes.
func firstBytesError(err error, timeout time.Duration) error {
	if ne, ok := errors.AsType[net.Error](err); ok && ne.Timeout() {
		return fmt.Errorf("%w: nothing sent within %v", ErrNoHandshake, timeout)
	}
	return fmt.Errorf("%w: %w", ErrNoHandshake, err)
}

// ErrNoHandshake is the cause of a connection that sent nothing within
// Timeout, or closed before sending anything.
var ErrNoHandshake = errors.New("no handshake")

// Summarize words how a forwarded connection went, for the log: its
// duration, the bytes each way, and the failure if any.
func Summarize(r *Result) string {
	s := fmt.Sprintf("closed after %v, %d bytes from the %s, %d bytes from the %s",
		r.Duration.Round(time.Millisecond), r.AB.Bytes, r.AB.From, r.BA.Bytes, r.BA.From)
	if r.Err != nil {
		s += ": " + r.Err.Error() + ": both sides reset"
	}
	return s
}

// Cause returns the cause of a forwarding failure, one word for the
// metrics and the log's summary.
func Cause(err error) string {
	switch {
	case err == nil:
		return "ok"
	case errors.Is(err, ErrIdle):
		return "idle"
	case errors.Is(err, ErrCut):
		return "shutdown"
	}
	return "failed"
}

// StopAccepting ends the accept loop and closes the listener; the
// connections being served go on.
func (p *Proxy) StopAccepting() {
	p.once.Do(func() {
		close(p.quit)
		p.ln.Close()
	})
}

// Open returns the number of connections being served: in their
// handshake or forwarded.
func (p *Proxy) Open() int { return int(p.open.Load()) }

// Cut ends every connection being served, with a failure: the forwarded
// ones are reset on both sides ([ErrCut]), the handshakes closed.
func (p *Proxy) Cut() {
	p.cut()
	p.hs.closeAll()
}

// Wait waits for the accept loop, once stopped, and for every
// connection's goroutine.
func (p *Proxy) Wait() { p.wg.Wait() }

// IsTemporary reports whether an error of Accept is worth retrying: not a
// timeout, but a condition such as EMFILE or ENFILE that the net
// package calls temporary.
func IsTemporary(err error) bool {
	if ne, ok := errors.AsType[net.Error](err); ok && ne.Timeout() {
		return false
	}
	t, ok := errors.AsType[interface {
		error
		Temporary() bool
	}](err)
	return ok && t.Temporary()
}
