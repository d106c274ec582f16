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
// Noise has no closing message: a Read returns io.EOF when the peer
// closes its side at a message boundary, which an attacker on the path
// can also cause, so an application that must tell a complete stream from
// a truncated one says where it ends in its own data (as HTTP does).
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
		empty   int    // consecutive empty messages
		err     error
	}
	out struct {
		sync.Mutex
		buf []byte
		cs  *CipherState
		err error
	}
}

// maxEmptyMessages is how many consecutive empty transport messages a Read
// accepts, so that a peer cannot keep it busy without data.
const maxEmptyMessages = 16

// ConnectionState describes a connection.
type ConnectionState struct {
	// HandshakeComplete is true once the handshake has succeeded.
	HandshakeComplete bool
	// Protocol is the protocol of the connection.
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
		return ConnectionState{Protocol: c.config.Protocol}
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
			return fmt.Errorf("noise: handshake not complete within %v (or by the context's deadline): %w", c.config.handshakeTimeout(), ctx.Err())
		}
		return fmt.Errorf("noise: handshake interrupted: %w", ctx.Err())
	}
	return err
}

// side names this side, or with peer true the other.
func (c *Conn) side(peer bool) string { return sideName(c.isClient != peer) }

// runHandshake exchanges the handshake messages, with empty payloads.
func (c *Conn) runHandshake() error {
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
	p := c.config.Protocol
	sizes := p.MessageSizes()
	// The buffers start with room for the largest handshake message each
	// holds, so that they do not grow (and allocate again) during the
	// handshake: with FrodoKEM the messages are 10 to 43 KB.
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
				return fmt.Errorf("noise: the %s closed the connection during the handshake, before message %d was complete (it refused this %s's static key or handshake, or it does not run %v): %w",
					c.side(true), i, c.side(false), p, io.ErrUnexpectedEOF)
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
	c.state = ConnectionState{
		HandshakeComplete: true,
		Protocol:          p,
		HandshakeHash:     hs.HandshakeHash(),
		PeerStaticKey:     hs.PeerStaticKey(),
	}
	return nil
}

// Read reads plaintext, running the handshake first if needed. It
// returns io.EOF when the peer has closed its side at a message boundary;
// a message that fails authentication returns an error wrapping
// [ErrAuthentication], and every later Read the same error.
func (c *Conn) Read(b []byte) (int, error) {
	if err := c.Handshake(); err != nil {
		return 0, err
	}
	if len(b) == 0 {
		return 0, nil
	}
	c.in.Lock()
	defer c.in.Unlock()
	for len(c.in.pending) == 0 {
		if c.in.err != nil {
			return 0, c.in.err
		}
		msg, err := c.in.frames.next(checkTransportSize)
		if err != nil {
			if ne, ok := err.(net.Error); !ok || !ne.Timeout() {
				c.in.err = err
			}
			return 0, err
		}
		if c.in.pending, err = c.in.cs.Decrypt(msg[:0], nil, msg); err != nil {
			c.in.err = err
			return 0, err
		}
		if len(c.in.pending) > 0 {
			c.in.empty = 0
		} else if c.in.empty++; c.in.empty > maxEmptyMessages {
			c.in.err = fmt.Errorf("noise: the peer sent more than %d empty messages in a row", maxEmptyMessages)
			return 0, c.in.err
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
	for len(b) > 0 {
		chunk := b[:min(len(b), MaxPlaintextSize)]
		frame, err := c.out.cs.Encrypt(appendFrameHeader(c.out.buf[:0]), nil, chunk)
		if err != nil {
			c.out.err = err
			return n, err
		}
		c.out.buf = frame[:0]
		if _, err := c.conn.Write(finishFrame(frame)); err != nil {
			c.out.err = err
			return n, err
		}
		n += len(chunk)
		b = b[len(chunk):]
	}
	return n, nil
}

// Close closes the connection; a Read or Write blocked on it returns. The
// session's keys are dropped.
func (c *Conn) Close() error {
	err := c.conn.Close()
	c.in.Lock()
	c.in.cs, c.in.pending = nil, nil
	if c.in.err == nil {
		c.in.err = net.ErrClosed
	}
	c.in.Unlock()
	c.out.Lock()
	c.out.cs = nil
	if c.out.err == nil {
		c.out.err = net.ErrClosed
	}
	c.out.Unlock()
	return err
}

// CloseWrite shuts down the writing side of the underlying connection, if
// it has one (as *net.TCPConn does), so that the peer's Read returns
// io.EOF once it has read everything sent before.
func (c *Conn) CloseWrite() error {
	if !c.handshakeDone.Load() || c.handshakeErr != nil {
		return errors.New("noise: CloseWrite before the handshake completed")
	}
	cw, ok := c.conn.(interface{ CloseWrite() error })
	if !ok {
		return errors.New("noise: the underlying connection has no CloseWrite")
	}
	c.out.Lock()
	defer c.out.Unlock()
	c.out.err = errors.New("noise: write after CloseWrite")
	return cw.CloseWrite()
}
