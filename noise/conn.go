package noise

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/pqkem/pqkem/kem"
)

// A Conn is a Noise session over a stream connection, shaped like
// crypto/tls's Conn: the handshake runs on the first Read or Write, or
// when [Conn.Handshake] is called, and every message is framed with a
// 2-byte big-endian length. A Write is sent as transport messages of at
// most [MaxPlaintextSize] bytes each; a Read returns the plaintext of
// the messages in order. Handshake messages carry empty payloads, so each
// has the size [Protocol.MessageSizes] gives, and a frame of another size
// ends the handshake before its body is read.
//
// The end of each side's stream is authenticated, as close_notify is in
// TLS: [Conn.CloseWrite] and [Conn.Close] send an end marker, an empty
// transport message (a Write never sends one), and Read returns io.EOF
// only after the peer's. A connection that ends without it, at a message
// boundary or inside one, makes Read fail with [ErrTruncated]: an
// attacker on the path who cuts the connection cannot make a stream look
// complete.
//
// In patterns whose last handshake message is the responder's (pqNK,
// pqIK, ...), the client proves that it completed the handshake with a
// confirmation, an empty transport message sent with its first data or
// end marker, when it first reads, or two milliseconds after the
// handshake, whichever comes first; the server's
// handshake ends only when the client's first transport message (that
// confirmation, or data from an implementation that sends none) has been
// read and authenticated, so that a replayed first message gets a server
// no further than its handshake. See the package documentation for the
// wire format.
//
// Read and Write may be called concurrently with each other, and Close
// with anything.
type Conn struct {
	conn     net.Conn
	config   *Config
	isClient bool

	handshakeMu   sync.Mutex
	handshakeDone atomic.Bool // the handshake was attempted; handshakeErr says how it went
	handshakeErr  error
	state         ConnectionState // set once, under handshakeMu, before handshakeDone

	in struct {
		sync.Mutex
		frames  frameReader
		cs      *CipherState
		pending []byte // decrypted and not yet read
		err     error  // io.EOF after the peer's end marker
	}
	out struct {
		sync.Mutex
		buf []byte
		cs  *CipherState
		err error // errWriteAfterEnd once the end marker is sent
		end error // the result of sending the end marker, once sent
		// confirm is the client's confirmation frame, encrypted at the
		// end of the handshake and sent with the first data, end marker or
		// Read, or by confirmTimer, whichever comes first.
		confirm []byte
	}
	confirmPending atomic.Bool
	confirmTimer   atomic.Pointer[time.Timer]
}

// confirmDelay is how long a client's confirmation waits for data to go
// with it, so that a client that writes at once (as an HTTP client does)
// sends both in one segment, and one that neither writes nor reads still
// completes the server's handshake.
var confirmDelay = 2 * time.Millisecond // a variable for the tests

// ErrTruncated is the error (wrapped, with the detail) of a Read whose
// peer's stream ended without its end marker: the connection was closed
// or cut at a message boundary or inside a message. It wraps
// io.ErrUnexpectedEOF.
var ErrTruncated error = errTruncated{}

type errTruncated struct{}

func (errTruncated) Error() string { return "noise: stream truncated (no end marker)" }
func (errTruncated) Unwrap() error { return io.ErrUnexpectedEOF }

var errWriteAfterEnd = errors.New("noise: write after CloseWrite")

// endMarkerTimeout bounds the write of the end marker in Close, for a
// peer that reads nothing.
const endMarkerTimeout = 5 * time.Second

// ConnectionState describes a connection.
type ConnectionState struct {
	// HandshakeComplete is true once the handshake has succeeded.
	HandshakeComplete bool
	// Protocol is the protocol of the connection, with the defaults of
	// [Config.Protocol] filled in.
	Protocol Protocol
	// HandshakeHash is the handshake hash, which both sides share, for
	// channel binding. It is not secret.
	HandshakeHash []byte
	// PeerStaticKey is the peer's static public key, or nil if the
	// pattern gives the peer none.
	PeerStaticKey kem.EncapsulationKey
}

// Client returns a client-side (initiator) connection over conn.
// The configuration must not be nil; it is checked at the handshake.
func Client(conn net.Conn, config *Config) *Conn {
	return &Conn{conn: conn, config: config, isClient: true}
}

// Server returns a server-side (responder) connection over conn.
// The configuration must not be nil; it is checked at the handshake.
func Server(conn net.Conn, config *Config) *Conn {
	return &Conn{conn: conn, config: config}
}

// NetConn returns the underlying connection. Writing to or reading from it
// directly corrupts the session.
func (c *Conn) NetConn() net.Conn { return c.conn }

// LocalAddr returns the local network address.
func (c *Conn) LocalAddr() net.Addr { return c.conn.LocalAddr() }

// RemoteAddr returns the remote network address.
func (c *Conn) RemoteAddr() net.Addr { return c.conn.RemoteAddr() }

// SetDeadline sets the read and write deadlines of the underlying
// connection. A Write that times out may have sent part of a message, and
// every later Write fails; a Read that times out may be retried.
func (c *Conn) SetDeadline(t time.Time) error { return c.conn.SetDeadline(t) }

// SetReadDeadline sets the read deadline of the underlying connection.
func (c *Conn) SetReadDeadline(t time.Time) error { return c.conn.SetReadDeadline(t) }

// SetWriteDeadline sets the write deadline of the underlying connection.
func (c *Conn) SetWriteDeadline(t time.Time) error { return c.conn.SetWriteDeadline(t) }

// ConnectionState returns the state of the connection.
func (c *Conn) ConnectionState() ConnectionState {
	if !c.handshakeDone.Load() || c.handshakeErr != nil {
		if c.config == nil {
			return ConnectionState{}
		}
		return ConnectionState{Protocol: c.config.protocol()}
	}
	return c.state
}

// Handshake runs the handshake if it has not run yet; see
// [Conn.HandshakeContext].
func (c *Conn) Handshake() error { return c.HandshakeContext(context.Background()) }

// HandshakeContext runs the handshake if it has not run yet, and returns
// its result: every call after the first returns the first one's. The
// handshake is bounded by ctx and by [Config.HandshakeTimeout]; when
// either ends it, the underlying connection's deadline is set in the past
// to stop it, and the error wraps the context's error. After an error the
// connection is unusable and should be closed. The server side fails if
// the client's static key is refused; closing the connection then tells
// the client.
func (c *Conn) HandshakeContext(ctx context.Context) error {
	if c.handshakeDone.Load() {
		return c.handshakeErr
	}
	c.handshakeMu.Lock()
	defer c.handshakeMu.Unlock()
	if c.handshakeDone.Load() {
		return c.handshakeErr
	}
	c.handshakeErr = c.handshake(ctx)
	c.handshakeDone.Store(true)
	return c.handshakeErr
}

func (c *Conn) handshake(ctx context.Context) error {
	if c.config == nil {
		return errors.New("noise: nil Config")
	}
	if d := c.config.handshakeTimeout(); d > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, d)
		defer cancel()
	}
	interrupted := make(chan struct{})
	stop := context.AfterFunc(ctx, func() {
		c.conn.SetDeadline(time.Unix(1, 0))
		close(interrupted)
	})
	err := c.runHandshake()
	if !stop() {
		// The context ended during the handshake: whatever runHandshake
		// returned, the connection's deadline is now in the past.
		<-interrupted
		if errors.Is(ctx.Err(), context.DeadlineExceeded) && c.config.handshakeTimeout() > 0 {
			return fmt.Errorf("noise: handshake timed out after %v: %w", c.config.handshakeTimeout(), ctx.Err())
		}
		return fmt.Errorf("noise: handshake interrupted: %w", ctx.Err())
	}
	return err
}

// side names this side, or with peer true the other.
func (c *Conn) side(peer bool) string { return sideName(c.isClient != peer) }

// runHandshake exchanges the handshake messages, with empty payloads.
func (c *Conn) runHandshake() error {
	reserveStack()
	c.in.Lock()
	defer c.in.Unlock()
	c.out.Lock()
	defer c.out.Unlock()
	hs, err := NewHandshakeState(c.config.handshakeConfig(c.isClient))
	if err != nil {
		return err
	}
	if err := c.config.checkPeer(c.isClient); err != nil {
		return err
	}
	c.config.precompute(c.isClient)
	c.in.frames.r = c.conn
	p := c.config.protocol()
	sizes := p.MessageSizes()
	// The buffers start with room for the largest handshake message each
	// holds, so that they do not grow (and allocate again) during the
	// handshake: with FrodoKEM a message is up to 64,960 bytes (the
	// package doc's table gives each).
	var largestRead, largestWrite int
	for i, n := range sizes {
		if (i%2 == 0) == c.isClient { // the initiator writes the even ones
			largestWrite = max(largestWrite, n)
		} else {
			largestRead = max(largestRead, n)
		}
	}
	c.in.frames.reserve(frameHeaderSize + largestRead)
	if c.out.buf == nil {
		c.out.buf = make([]byte, 0, frameHeaderSize+largestWrite)
	}
	for !hs.Complete() {
		i := hs.MessageIndex()
		if hs.WritesNext() {
			frame, err := hs.WriteMessage(appendFrameHeader(c.out.buf[:0]), nil)
			if err != nil {
				return err
			}
			c.out.buf = frame[:0]
			if _, err := c.conn.Write(finishFrame(frame)); err != nil {
				return fmt.Errorf("noise: sending handshake message %d: %w", i, err)
			}
			continue
		}
		var sizeErr error
		msg, err := c.in.frames.next(func(n int) error {
			if n != sizes[i] {
				sizeErr = &MessageSizeError{Protocol: p, Message: i, Got: n, Want: sizes[i], from: c.side(true)}
			}
			return sizeErr
		})
		if err != nil {
			if sizeErr != nil {
				return sizeErr
			}
			if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
				return fmt.Errorf("noise: the %s closed the connection in handshake message %d: %w", c.side(true), i, io.ErrUnexpectedEOF)
			}
			return fmt.Errorf("noise: reading handshake message %d: %w", i, err)
		}
		had := hs.PeerStaticKey() != nil
		if _, err := hs.ReadMessage(nil, msg); err != nil {
			return err
		}
		if rs := hs.PeerStaticKey(); !had && rs != nil {
			if err := c.config.verifyPeer(rs, c.side(true)); err != nil {
				return err
			}
		}
	}
	send, recv, err := hs.Split()
	if err != nil {
		return err
	}
	c.in.cs, c.out.cs = recv, send
	if len(sizes)%2 == 0 { // the responder wrote the last message
		if err := c.confirm(); err != nil {
			return err
		}
	}
	c.state = ConnectionState{
		HandshakeComplete: true,
		Protocol:          p,
		HandshakeHash:     hs.HandshakeHash(),
		PeerStaticKey:     hs.PeerStaticKey(),
	}
	return nil
}

// confirm completes a handshake whose last message the responder wrote:
// the client sends its confirmation, and the server reads the client's
// first transport message (keeping any data it holds for Read). Both
// hold the in and out locks.
func (c *Conn) confirm() error {
	if c.isClient {
		frame, err := c.out.cs.Encrypt(appendFrameHeader(nil), nil, nil)
		if err != nil {
			return err
		}
		c.out.confirm = finishFrame(frame)
		c.confirmPending.Store(true)
		// Stored before it can fire, so that a firing while this
		// handshake still holds the writing side can re-arm it.
		t := time.AfterFunc(time.Hour, c.flushConfirm)
		c.confirmTimer.Store(t)
		t.Reset(confirmDelay)
		return nil
	}
	if err := c.readMessage(); err != nil {
		if errors.Is(err, ErrTruncated) {
			return fmt.Errorf("noise: the client closed the connection unconfirmed: %w", io.ErrUnexpectedEOF)
		}
		return fmt.Errorf("noise: reading the client's handshake confirmation: %w", err)
	}
	if c.in.err == io.EOF {
		c.in.err = nil // an empty message first is the confirmation
	}
	return nil
}

// readMessage reads and decrypts the next transport message into
// c.in.pending, or, for an empty one, sets c.in.err to io.EOF. Errors
// other than a timeout stay in c.in.err. It holds c.in.
func (c *Conn) readMessage() error {
	msg, err := c.in.frames.next(checkTransportSize)
	if err != nil {
		if errors.Is(err, io.EOF) {
			err = ErrTruncated
		}
		if ne, ok := err.(net.Error); !ok || !ne.Timeout() {
			c.in.err = err
		}
		return err
	}
	if c.in.pending, err = c.in.cs.Decrypt(msg[:0], nil, msg); err != nil {
		c.in.err = err
		return err
	}
	if len(c.in.pending) == 0 {
		c.in.err = io.EOF // the end marker
	}
	return nil
}

// Read reads plaintext, running the handshake first if needed. It
// returns io.EOF after the peer's end marker, and an error wrapping
// [ErrTruncated] if the connection ends without it. A message that fails
// authentication returns an error wrapping [ErrAuthentication]. Every
// later Read returns the same error; a timeout may be retried.
func (c *Conn) Read(b []byte) (int, error) {
	if err := c.Handshake(); err != nil {
		return 0, err
	}
	if len(b) == 0 {
		return 0, nil
	}
	c.flushConfirm() // a client that reads first may wait for the server
	c.in.Lock()
	defer c.in.Unlock()
	for len(c.in.pending) == 0 {
		if c.in.err != nil {
			return 0, c.in.err
		}
		if err := c.readMessage(); err != nil {
			return 0, err
		}
	}
	n := copy(b, c.in.pending)
	c.in.pending = c.in.pending[n:]
	return n, nil
}

func checkTransportSize(n int) error {
	if n < tagSize {
		return fmt.Errorf("noise: transport message of %d bytes, shorter than the %d-byte tag", n, tagSize)
	}
	return nil
}

// Write encrypts and sends b, running the handshake first if needed, as
// messages of at most [MaxPlaintextSize] bytes of plaintext each. An
// error leaves the connection unusable for writing.
func (c *Conn) Write(b []byte) (int, error) {
	if err := c.Handshake(); err != nil {
		return 0, err
	}
	c.out.Lock()
	defer c.out.Unlock()
	if c.out.err != nil {
		return 0, c.out.err
	}
	n := 0
	for len(b) > 0 { // an empty b sends nothing: empty is the end marker
		chunk := b[:min(len(b), MaxPlaintextSize)]
		if err := c.writeMessage(chunk); err != nil {
			c.out.err = err
			return n, err
		}
		n += len(chunk)
		b = b[len(chunk):]
	}
	return n, nil
}

// writeMessage encrypts and sends one transport message. It holds c.out.
// The confirmation pending, if any, goes first, in the same write.
func (c *Conn) writeMessage(plaintext []byte) error {
	b := append(c.out.buf[:0], c.out.confirm...)
	start := len(b)
	b, err := c.out.cs.Encrypt(appendFrameHeader(b), nil, plaintext)
	if err != nil {
		return err
	}
	c.out.buf = b[:0]
	finishFrame(b[start:])
	c.confirmSent()
	_, err = c.conn.Write(b)
	return err
}

// confirmSent records that the confirmation, if one was pending, is
// being sent. It holds c.out.
func (c *Conn) confirmSent() {
	if c.out.confirm == nil {
		return
	}
	c.out.confirm = nil
	c.confirmPending.Store(false)
	if t := c.confirmTimer.Load(); t != nil {
		t.Stop()
	}
}

// flushConfirm sends the client's confirmation if it is still pending and
// nothing else holds the writing side: what does (a Write, CloseWrite or
// Close) sends it first.
func (c *Conn) flushConfirm() {
	if !c.confirmPending.Load() {
		return
	}
	if !c.out.TryLock() {
		// A Write, CloseWrite or Close holding the writing side sends the
		// confirmation first; the handshake that made it, still finishing,
		// does not: try again later.
		if t := c.confirmTimer.Load(); t != nil && c.confirmPending.Load() {
			t.Reset(confirmDelay)
		}
		return
	}
	defer c.out.Unlock()
	if c.out.confirm == nil || c.out.err != nil {
		return
	}
	frame := c.out.confirm
	c.confirmSent()
	if _, err := c.conn.Write(frame); err != nil {
		c.out.err = err
	}
}

// sendEnd sends the end marker once; later calls return the first's
// result. It holds c.out.
func (c *Conn) sendEnd() error {
	if c.out.end != nil || c.out.err == errWriteAfterEnd {
		return c.out.end
	}
	if c.out.err != nil {
		return c.out.err
	}
	c.out.end = c.writeMessage(nil)
	c.out.err = errWriteAfterEnd
	return c.out.end
}

// Close sends the end marker, unless it was sent already, the handshake
// has not completed or a Write is in progress, and closes the
// connection; a Read or Write blocked on it returns. The session's keys
// are dropped. The end marker's write is bounded by a few seconds, for a
// peer that reads nothing.
//
// To end a connection as failed, so that the peer's Read reports
// [ErrTruncated] or a reset rather than io.EOF, close the underlying
// connection ([Conn.NetConn]) first.
func (c *Conn) Close() error {
	if c.handshakeDone.Load() && c.handshakeErr == nil && c.out.TryLock() {
		if c.out.err == nil {
			c.conn.SetWriteDeadline(time.Now().Add(endMarkerTimeout))
			c.sendEnd()
		}
		c.out.Unlock()
	}
	if t := c.confirmTimer.Load(); t != nil {
		t.Stop()
	}
	err := c.conn.Close()
	c.in.Lock()
	c.in.cs, c.in.pending = nil, nil
	if c.in.err == nil {
		c.in.err = net.ErrClosed
	}
	c.in.Unlock()
	c.out.Lock()
	c.out.cs = nil
	c.out.confirm = nil
	c.confirmPending.Store(false)
	if c.out.err == nil || c.out.err == errWriteAfterEnd {
		c.out.err = net.ErrClosed
	}
	c.out.Unlock()
	return err
}

// CloseWrite sends the end marker, so that the peer's Read returns io.EOF
// once it has read everything sent before, and then shuts down the
// writing side of the underlying connection if it has one (as
// *net.TCPConn does). Later Writes fail; calling it again returns the
// first call's result.
func (c *Conn) CloseWrite() error {
	if !c.handshakeDone.Load() || c.handshakeErr != nil {
		return errors.New("noise: CloseWrite before the handshake completed")
	}
	c.out.Lock()
	defer c.out.Unlock()
	if c.out.end != nil || c.out.err == errWriteAfterEnd {
		return c.out.end
	}
	if err := c.sendEnd(); err != nil {
		return err
	}
	if cw, ok := c.conn.(interface{ CloseWrite() error }); ok {
		c.out.end = cw.CloseWrite()
	}
	return c.out.end
}
