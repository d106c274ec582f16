package tunnel

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
	"sync/atomic"
	"time"
)

// Errors a forwarded connection can end with, besides the connections'
// own.
var (
	// ErrIdle is the cause of a connection closed by the idle limit.
	ErrIdle = errors.New("idle timeout")
	// ErrCut is the cause of a connection cut by its context: the
	// command stopping once its grace period is over.
	ErrCut = errors.New("cut at shutdown")
	// errOtherSide is the outcome of a direction cut because the other
	// one failed.
	errOtherSide = errors.New("cut: the other direction failed")
)

// An Error is the failure of one direction of a forwarded connection:
// reading from its source, writing to its destination, or passing on the
// source's end to the destination.
type Error struct {
	Op   string // "reading from", "writing to" or "ending the stream to"
	Side string // the name of the end, such as "client"
	Err  error
}

func (e *Error) Error() string { return e.Op + " the " + e.Side + ": " + e.Err.Error() }
func (e *Error) Unwrap() error { return e.Err }

// A Direction is how one direction of a forwarded connection went.
type Direction struct {
	From, To string // the names of its source and destination
	Bytes    int64  // the bytes copied
	// SourceEnded is true if the source's clean end was read (io.EOF):
	// everything it sent was read.
	SourceEnded bool
	// Err is nil if the direction ended cleanly: the source's end was
	// read and passed on to the destination (a half-close). Otherwise it
	// says what failed: an *Error, ErrIdle, ErrCut, or the error that the
	// other direction's failure caused here.
	Err error
}

// Failed reports whether the direction failed on its own, rather than
// being cut by the other direction's failure.
func (d *Direction) Failed() bool { return d.Err != nil && !errors.Is(d.Err, errOtherSide) }

// A Result is how a forwarded connection went.
type Result struct {
	// AB is the direction from a to b, BA the other, as Forward was
	// called.
	AB, BA Direction
	// Err is the first failure, nil if both directions ended cleanly.
	Err error
	// Duration is how long the forwarding went on.
	Duration time.Duration
}

// Options are the settings of [Forward].
type Options struct {
	// Idle, if positive, ends the connection with ErrIdle when nothing
	// has been read or written either way for that long.
	Idle time.Duration
	// BufferSize is the size of each direction's buffer; 0 means 32 KiB.
	BufferSize int
	// OnBytes, if not nil, is called after each write with the bytes
	// written, ab telling the direction (from a to b, or the other).
	OnBytes func(ab bool, n int)
}

// initialBufferSize is the size a direction's buffer starts with.
const initialBufferSize = 4 << 10

// Forward copies a to b and b to a, and returns once both directions
// have ended, with both connections closed.
//
// A direction whose source ends cleanly (Read returns io.EOF: a TCP or
// Unix FIN, or a PQNoise connection's authenticated end) ends with a
// half-close of its destination (CloseWrite, if the destination has one:
// a PQNoise connection then sends its end marker). Any failure, in either
// direction (an error reading or writing, the idle limit, ctx ending),
// ends both connections with a failure: each is reset ([Reset]), so that
// neither peer can take the end for a clean one.
func Forward(ctx context.Context, a, b net.Conn, names [2]string, opts Options) *Result {
	size := opts.BufferSize
	if size <= 0 {
		size = 32 << 10
	}
	f := &forwarder{a: a, b: b}
	r := &Result{AB: Direction{From: names[0], To: names[1]}, BA: Direction{From: names[1], To: names[0]}}
	start := time.Now()
	ra, rb := net.Conn(a), net.Conn(b)
	if opts.Idle > 0 {
		var last atomic.Int64
		last.Store(start.UnixNano())
		ra, rb = &idleConn{a, opts.Idle, &last}, &idleConn{b, opts.Idle, &last}
	}
	stop := context.AfterFunc(ctx, func() { f.fail(ErrCut) })
	var wg sync.WaitGroup
	wg.Go(func() { f.copy(&r.AB, ra, rb, b, size, opts.OnBytes, true) })
	f.copy(&r.BA, rb, ra, a, size, opts.OnBytes, false)
	wg.Wait()
	stop()
	// Wait for a failure being recorded by the context's function, or
	// keep it from starting now that both directions are over.
	f.once.Do(func() {})
	if f.err == nil {
		a.Close()
		b.Close()
	}
	r.Err = f.err
	r.Duration = time.Since(start)
	return r
}

// forwarder is the state the two directions of Forward share.
type forwarder struct {
	a, b   net.Conn
	once   sync.Once
	failed atomic.Bool
	err    error // the first failure, set once before failed
}

// fail records the first failure and resets both connections, which ends
// the other direction too.
func (f *forwarder) fail(err error) {
	f.once.Do(func() {
		f.err = err
		f.failed.Store(true)
		Reset(f.a)
		Reset(f.b)
	})
}

// copy copies src to dst (through r and w, which may add the idle
// limit), then passes on src's end with dst's CloseWrite.
// The buffer starts small, so that a connection that carries little (a
// terminal session, an idle pool connection) holds little, and grows to
// size at the first read that fills it.
func (f *forwarder) copy(d *Direction, r, w, dst net.Conn, size int, onBytes func(bool, int), ab bool) {
	buf := make([]byte, min(size, initialBufferSize))
	for {
		n, rerr := r.Read(buf)
		if n > 0 {
			m, werr := w.Write(buf[:n])
			d.Bytes += int64(m)
			if onBytes != nil && m > 0 {
				onBytes(ab, m)
			}
			if werr != nil {
				f.end(d, &Error{"writing to", d.To, werr})
				return
			}
		}
		if n == len(buf) && n < size {
			buf = make([]byte, size)
		}
		if rerr == io.EOF {
			d.SourceEnded = true
			if err := closeWrite(dst); err != nil {
				f.end(d, &Error{"ending the stream to", d.To, err})
			}
			return
		}
		if rerr != nil {
			f.end(d, &Error{"reading from", d.From, rerr})
			return
		}
	}
}

// end records how a direction failed: on its own, or because the other
// direction (or the context) failed first and reset the connections.
func (f *forwarder) end(d *Direction, err error) {
	if f.failed.Load() {
		d.Err = errOtherSide
		if errors.Is(f.err, ErrCut) || errors.Is(f.err, ErrIdle) {
			d.Err = f.err
		}
		return
	}
	d.Err = err
	f.fail(err)
	if f.err != err {
		// The other direction failed at the same moment, first.
		d.Err = errOtherSide
	}
}

// closeWrite passes on the end of the stream to c, if c can take it.
func closeWrite(c net.Conn) error {
	if cw, ok := c.(interface{ CloseWrite() error }); ok {
		return cw.CloseWrite()
	}
	return nil
}

// Reset closes c so that its peer sees a failure, not a clean end: a TCP
// connection is reset (RST, not FIN); a connection that wraps another,
// as a PQNoise connection does (it has a NetConn method), has the inner
// one reset first, so that the outer one can send nothing more (no end
// marker), then is closed. A Unix socket has no reset: closing it is the
// most it can do, and its peer may see a clean end.
func Reset(c net.Conn) {
	inner := c
	for {
		u, ok := inner.(interface{ NetConn() net.Conn })
		if !ok {
			break
		}
		n := u.NetConn()
		if n == nil || n == inner {
			break
		}
		inner = n
	}
	if l, ok := inner.(interface{ SetLinger(int) error }); ok {
		l.SetLinger(0)
	}
	inner.Close()
	if inner != c {
		c.Close()
	}
}

// idleConn bounds each Read and Write of a connection by the idle limit,
// and retries a Read that timed out while the other direction has been
// active within the limit.
type idleConn struct {
	net.Conn
	idle time.Duration
	last *atomic.Int64 // the last activity either way, in Unix nanoseconds
}

func (c *idleConn) Read(b []byte) (int, error) {
	for {
		c.Conn.SetReadDeadline(time.Now().Add(c.idle))
		n, err := c.Conn.Read(b)
		if n > 0 {
			c.last.Store(time.Now().UnixNano())
		}
		if ne, ok := errors.AsType[net.Error](err); ok && ne.Timeout() && n == 0 {
			if time.Since(time.Unix(0, c.last.Load())) < c.idle {
				continue // the other direction is active
			}
			return 0, fmt.Errorf("%w: nothing either way for %v", ErrIdle, c.idle)
		}
		return n, err
	}
}

func (c *idleConn) Write(b []byte) (int, error) {
	c.Conn.SetWriteDeadline(time.Now().Add(c.idle))
	n, err := c.Conn.Write(b)
	c.last.Store(time.Now().UnixNano())
	if ne, ok := errors.AsType[net.Error](err); ok && ne.Timeout() {
		return n, fmt.Errorf("%w: the peer read nothing for %v", ErrIdle, c.idle)
	}
	return n, err
}
