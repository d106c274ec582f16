package pake

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strings"
	"sync"
	"syscall"
	"time"
)

// The exchange over a connection: [Client] and [Server] run the hello,
// the three messages and the verdict as the package documentation's
// "Over a connection" describes them.

const (
	// helloPrefix starts the client's hello; the scheme's name follows.
	helloPrefix = "pqkem pake v1\x00"
	// maxHello is the longest hello a server reads.
	maxHello = len(helloPrefix) + 64
	// maxFrame is the longest frame either side reads.
	maxFrame = 1 << 16
	// verdictMismatch, sent in place of msg3 or as the verdict, says that
	// the sender's check failed; verdictAccept is the server's verdict
	// when msg3 verified.
	verdictMismatch = 0x00
	verdictAccept   = 0x01
)

// DefaultTimeout is the time [Client] and [Server] give a whole exchange
// when [Config.Timeout] is zero.
const DefaultTimeout = 2 * time.Minute

// Config configures [Client] and [Server].
type Config struct {
	// Credentials are this side's: the scheme, pw and sid. Both sides
	// must have derived them from the same password and identities.
	Credentials *Credentials

	// Timeout bounds the whole exchange, from the call to its return:
	// zero means [DefaultTimeout], a negative value none (then the
	// context or a deadline already set on the connection should bound
	// it).
	Timeout time.Duration

	// Attempt, if not nil, is called by [Server] just before it sends
	// msg2, which lets the peer test one password. If it returns an
	// error, Server sends nothing more and returns an error that wraps
	// it. A server that answers many connections with the same password
	// passes the same [AttemptLimit]'s Take to each.
	Attempt func() error
}

// ErrProtocol is matched, with [errors.Is], by the errors of [Client] and
// [Server] that say the peer broke the protocol: a frame of a wrong
// length, a hello of another protocol or scheme, an unexpected verdict,
// or a connection closed before the end of the exchange.
var ErrProtocol = errors.New("pake: protocol error")

// ErrTimeout is matched, with [errors.Is], by the errors of [Client] and
// [Server] when the exchange did not complete within [Config.Timeout] or
// the context's deadline. Such an error also matches the cause:
// [os.ErrDeadlineExceeded] or [context.DeadlineExceeded].
var ErrTimeout = errors.New("pake: timed out")

// protocolError is an error that matches ErrProtocol.
type protocolError struct {
	msg   string
	cause error
}

func (e *protocolError) Error() string        { return "pake: " + e.msg }
func (e *protocolError) Is(target error) bool { return target == ErrProtocol }
func (e *protocolError) Unwrap() error        { return e.cause }

func protocolErrorf(format string, args ...any) error {
	return &protocolError{msg: fmt.Sprintf(format, args...)}
}

// timeoutError is an error that matches ErrTimeout and its causes.
type timeoutError struct {
	msg    string
	causes []error
}

func (e *timeoutError) Error() string        { return "pake: " + e.msg }
func (e *timeoutError) Is(target error) bool { return target == ErrTimeout }
func (e *timeoutError) Unwrap() []error      { return e.causes }
func (e *timeoutError) Timeout() bool        { return true }

// Client runs the exchange as the initiator on conn: it sends the hello
// and msg1, reads msg2, sends msg3 and reads the server's verdict. It
// returns the 32-byte session key when both sides have confirmed it.
//
// A wrong password on either side is an error matching
// [ErrPasswordMismatch]; a peer that breaks the protocol, one matching
// [ErrProtocol]; the timeout or the context's deadline, one matching
// [ErrTimeout]; a cancelled context, one matching [context.Canceled].
// Client sets conn's deadline to the earlier of the timeout and the
// context's deadline, if there is one, and clears it on return unless the
// context ended; it never closes conn. Close conn after an error.
func Client(ctx context.Context, conn net.Conn, config *Config) (key []byte, err error) {
	x, err := newExchange(ctx, conn, config)
	if err != nil {
		return nil, err
	}
	defer func() { err = x.finish(err) }()
	s := x.creds.Scheme()
	if err := x.write([]byte(helloPrefix + s.Name())); err != nil {
		return nil, err
	}
	st, msg1, err := x.creds.Start()
	if err != nil {
		return nil, err
	}
	if err := x.write(msg1); err != nil {
		return nil, err
	}
	msg2, err := x.read("msg2", s.Msg2Size())
	if err != nil {
		return nil, err
	}
	if len(msg2) != s.Msg2Size() {
		return nil, protocolErrorf("invalid msg2 length %d from the peer, want %d", len(msg2), s.Msg2Size())
	}
	key, msg3, err := st.Finish(msg2)
	if errors.Is(err, ErrPasswordMismatch) {
		x.write([]byte{verdictMismatch}) // tell the server; best effort
		return nil, ErrPasswordMismatch
	}
	if err != nil {
		return nil, err
	}
	if err := x.write(msg3); err != nil {
		clear(key)
		return nil, err
	}
	verdict, err := x.read("the verdict", 1)
	if err != nil {
		clear(key)
		return nil, err
	}
	switch verdict[0] {
	case verdictAccept:
		return key, nil
	case verdictMismatch:
		clear(key)
		return nil, ErrPasswordMismatch
	}
	clear(key)
	return nil, protocolErrorf("invalid verdict %#02x from the peer, want 0x00 or 0x01", verdict[0])
}

// Server runs the exchange as the responder on conn: it reads the hello
// and msg1, calls [Config.Attempt], sends msg2, reads msg3 and sends its
// verdict. It returns the 32-byte session key when msg3 verified.
//
// The errors, the timeout and the use of conn are as for [Client]. A
// hello for another scheme is a protocol error, and Server sends nothing
// back.
func Server(ctx context.Context, conn net.Conn, config *Config) (key []byte, err error) {
	x, err := newExchange(ctx, conn, config)
	if err != nil {
		return nil, err
	}
	defer func() { err = x.finish(err) }()
	s := x.creds.Scheme()
	hello, err := x.read("the hello", maxHello)
	if err != nil {
		return nil, err
	}
	name, ok := strings.CutPrefix(string(hello), helloPrefix)
	if !ok {
		return nil, protocolErrorf("the peer does not speak pqkem pake v1")
	}
	if name != s.Name() {
		return nil, protocolErrorf("scheme mismatch: the peer uses %q, this side %q", name, s.Name())
	}
	msg1, err := x.read("msg1", s.Msg1Size())
	if err != nil {
		return nil, err
	}
	if len(msg1) != s.Msg1Size() {
		return nil, protocolErrorf("invalid msg1 length %d from the peer, want %d", len(msg1), s.Msg1Size())
	}
	if config.Attempt != nil {
		if err := config.Attempt(); errors.Is(err, ErrNoAttempts) {
			return nil, err
		} else if err != nil {
			return nil, fmt.Errorf("pake: attempt refused: %w", err)
		}
	}
	r, msg2, err := x.creds.Respond(msg1)
	if err != nil {
		return nil, err
	}
	if err := x.write(msg2); err != nil {
		return nil, err
	}
	msg3, err := x.read("msg3", Msg3Size)
	if err != nil {
		return nil, err
	}
	if len(msg3) == 1 && msg3[0] == verdictMismatch {
		return nil, ErrPasswordMismatch // the client's check of msg2 failed
	}
	if len(msg3) != Msg3Size {
		return nil, protocolErrorf("invalid msg3 length %d from the peer, want %d", len(msg3), Msg3Size)
	}
	key, err = r.Finish(msg3)
	if errors.Is(err, ErrPasswordMismatch) {
		x.write([]byte{verdictMismatch}) // tell the client; best effort
		return nil, ErrPasswordMismatch
	}
	if err != nil {
		return nil, err
	}
	if err := x.write([]byte{verdictAccept}); err != nil {
		clear(key)
		return nil, err
	}
	return key, nil
}

// exchange is one run of Client or Server on a connection.
type exchange struct {
	ctx   context.Context
	conn  net.Conn
	creds *Credentials
	stop  func() bool // stops the context's watcher
	// ctxDeadline is set when the context's deadline is the connection's.
	ctxDeadline bool
	// deadline is set when the exchange set the connection's deadline.
	deadline bool
}

// longAgo is a deadline in the past, which interrupts pending I/O.
var longAgo = time.Unix(1, 0)

func newExchange(ctx context.Context, conn net.Conn, config *Config) (*exchange, error) {
	switch {
	case ctx == nil:
		return nil, errors.New("pake: nil context")
	case conn == nil:
		return nil, errors.New("pake: nil connection")
	case config == nil || config.Credentials == nil:
		return nil, errors.New("pake: no credentials in the Config")
	case config.Credentials.Scheme() == nil:
		return nil, errDestroyed
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	var deadline time.Time
	switch {
	case config.Timeout == 0:
		deadline = time.Now().Add(DefaultTimeout)
	case config.Timeout > 0:
		deadline = time.Now().Add(config.Timeout)
	}
	d, ok := ctx.Deadline()
	ctxDeadline := ok && (deadline.IsZero() || !d.After(deadline))
	if ctxDeadline {
		deadline = d
	}
	if !deadline.IsZero() {
		if err := conn.SetDeadline(deadline); err != nil {
			return nil, fmt.Errorf("pake: setting the connection's deadline: %w", err)
		}
	}
	x := &exchange{ctx: ctx, conn: conn, creds: config.Credentials, ctxDeadline: ctxDeadline, deadline: !deadline.IsZero()}
	x.stop = context.AfterFunc(ctx, func() { conn.SetDeadline(longAgo) })
	return x, nil
}

// finish stops the context's watcher, clears the deadline it set if the
// context did not end, and turns an error caused by the context into its
// error.
func (x *exchange) finish(err error) error {
	if x.stop() && x.deadline {
		x.conn.SetDeadline(time.Time{})
	} else if ctxErr := x.ctx.Err(); ctxErr != nil && err != nil && !errors.Is(ctxErr, context.DeadlineExceeded) {
		return fmt.Errorf("pake: %w", ctxErr)
	}
	if te, ok := err.(*timeoutError); ok && x.ctxDeadline {
		te.causes = append(te.causes, context.DeadlineExceeded)
	}
	return err
}

// write sends payload as one frame.
func (x *exchange) write(payload []byte) error {
	buf := binary.BigEndian.AppendUint32(make([]byte, 0, 4+len(payload)), uint32(len(payload)))
	_, err := x.conn.Write(append(buf, payload...))
	if err != nil {
		return ioError("sending to the peer", err)
	}
	return nil
}

// read reads one frame of 1 to max bytes, what.
func (x *exchange) read(what string, max int) ([]byte, error) {
	var hdr [4]byte
	if _, err := io.ReadFull(x.conn, hdr[:]); err != nil {
		return nil, ioError("waiting for "+what, err)
	}
	n := binary.BigEndian.Uint32(hdr[:])
	if n == 0 || n > uint32(max) || n > maxFrame {
		return nil, protocolErrorf("invalid frame length %d from the peer for %s, want 1 to %d", n, what, max)
	}
	buf := make([]byte, n)
	if _, err := io.ReadFull(x.conn, buf); err != nil {
		return nil, ioError("waiting for "+what, err)
	}
	return buf, nil
}

// ioError says what an error of the connection means for the exchange.
func ioError(doing string, err error) error {
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE) {
		return &protocolError{msg: doing + ": the peer closed the connection", cause: err}
	}
	if errors.Is(err, os.ErrDeadlineExceeded) {
		return &timeoutError{msg: "timed out " + doing, causes: []error{os.ErrDeadlineExceeded}}
	}
	return fmt.Errorf("pake: %s: %w", doing, err)
}

// AttemptLimit counts the msg2s a server sends across connections: each
// lets its peer test one password, so a server that answers many peers
// with the same password should stop after a few exchanges that failed.
// Pass its Take as [Config.Attempt] to every [Server] call. It is safe for
// concurrent use.
type AttemptLimit struct {
	mu      sync.Mutex
	left    int
	stopped bool
}

// NewAttemptLimit returns a limit of n msg2s.
func NewAttemptLimit(n int) *AttemptLimit { return &AttemptLimit{left: max(n, 0)} }

// ErrNoAttempts is what [AttemptLimit.Take] returns once the limit is
// spent or stopped.
var ErrNoAttempts = errors.New("pake: no attempts left")

// Take uses up one attempt, or returns [ErrNoAttempts] if none is left.
func (l *AttemptLimit) Take() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.stopped || l.left == 0 {
		return ErrNoAttempts
	}
	l.left--
	return nil
}

// Remaining returns how many attempts are left.
func (l *AttemptLimit) Remaining() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.stopped {
		return 0
	}
	return l.left
}

// Stop spends every attempt left: a server that has its verdict calls it
// so that no other connection gets a msg2.
func (l *AttemptLimit) Stop() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.stopped = true
}
