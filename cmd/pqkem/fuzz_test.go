package main

import (
	"bytes"
	"context"
	"io"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/pqkem/pqkem/internal/tunnel"
	"github.com/pqkem/pqkem/kem"
	"github.com/pqkem/pqkem/noise"
)

// memConn is the service's end of a forwarded connection in the fuzz
// test: it keeps what is written, says whether the end was passed on
// (CloseWrite) or the connection closed without it (a reset), and sends
// nothing.
type memConn struct {
	mu       sync.Mutex
	buf      bytes.Buffer
	wroteEnd bool
	closed   bool
}

func (m *memConn) Read([]byte) (int, error) { return 0, io.EOF }
func (m *memConn) Write(b []byte) (int, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed || m.wroteEnd {
		return 0, net.ErrClosed
	}
	return m.buf.Write(b)
}
func (m *memConn) CloseWrite() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.wroteEnd = true
	return nil
}
func (m *memConn) Close() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.closed = true
	return nil
}
func (m *memConn) LocalAddr() net.Addr              { return stdioAddr{} }
func (m *memConn) RemoteAddr() net.Addr             { return stdioAddr{} }
func (m *memConn) SetDeadline(time.Time) error      { return nil }
func (m *memConn) SetReadDeadline(time.Time) error  { return nil }
func (m *memConn) SetWriteDeadline(time.Time) error { return nil }

// tapConn is a connection whose writes, once tapped, are kept instead of
// sent: the client's frames after the handshake, for the fuzzer to
// replay as it likes.
type tapConn struct {
	net.Conn
	tapped bool
	frames bytes.Buffer
}

func (c *tapConn) Write(b []byte) (int, error) {
	if c.tapped {
		return c.frames.Write(b)
	}
	return c.Conn.Write(b)
}

// fuzzData is what the client sends, as two messages, then its end.
var fuzzData = [][]byte{[]byte("hello, "), []byte("world")}

// FuzzTunnelFrames runs the server's side of the tunnel (a PQNoise
// connection forwarded to a service by tunnel.Forward) on the client's
// genuine frames, which the fuzzer's bytes send, drop, send twice,
// change or cut: the service is told of a clean end only after all the
// data, unchanged, and otherwise gets a prefix of it and no end.
func FuzzTunnelFrames(f *testing.F) {
	s, err := kem.ByName("DHKEM-X25519-HKDF-SHA256")
	if err != nil {
		f.Fatal(err)
	}
	dk, err := s.GenerateKey()
	if err != nil {
		f.Fatal(err)
	}
	p := noise.Protocol{Pattern: noise.PQNK, KEM: s, Cipher: noise.ChaChaPoly, Hash: noise.SHA256}
	serverCfg := &noise.Config{Protocol: p, StaticKey: dk}
	clientCfg := &noise.Config{Protocol: p, PeerStaticKey: dk.EncapsulationKey()}
	f.Add([]byte{0, 0, 0})       // all three frames: a clean end
	f.Add([]byte{0, 0})          // no end marker
	f.Add([]byte{0, 1, 0})       // the second dropped
	f.Add([]byte{0, 2, 0})       // the second twice
	f.Add([]byte{3, 0, 0})       // the first changed
	f.Add([]byte{0, 4})          // cut inside the second
	f.Add([]byte{0, 0, 0, 0, 2}) // more after the end
	f.Fuzz(func(t *testing.T, ops []byte) {
		if len(ops) > 16 {
			ops = ops[:16]
		}
		cRaw, sRaw := net.Pipe()
		defer cRaw.Close()
		defer sRaw.Close()
		tap := &tapConn{Conn: cRaw}
		client := noise.Client(tap, clientCfg)
		server := noise.Server(sRaw, serverCfg)
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		herr := make(chan error, 1)
		go func() { herr <- server.HandshakeContext(ctx) }()
		if err := client.HandshakeContext(ctx); err != nil {
			t.Fatal(err)
		}
		if err := <-herr; err != nil {
			t.Fatal(err)
		}
		tap.tapped = true
		for _, d := range fuzzData {
			client.Write(d)
		}
		client.CloseWrite()
		frames := splitFrames(tap.frames.Bytes())

		// The server's output, its end marker (the service sends
		// nothing), is read and dropped; the client's side is closed
		// only after it, so that the marker is not lost.
		drained := make(chan struct{})
		go func() {
			defer close(drained)
			io.ReadFull(cRaw, make([]byte, 2+16))
		}()
		go func() {
			defer cRaw.Close()
			defer func() {
				select {
				case <-drained:
				case <-ctx.Done():
				}
			}()
			for i, op := range ops {
				if i >= len(frames) {
					return
				}
				fr := frames[i]
				var out []byte
				switch op % 5 {
				case 0:
					out = fr
				case 1: // dropped
				case 2:
					out = append(bytes.Clone(fr), fr...)
				case 3:
					out = bytes.Clone(fr)
					out[len(out)-1] ^= 1
				case 4:
					cRaw.Write(fr[:len(fr)/2])
					return
				}
				if _, err := cRaw.Write(out); err != nil {
					return
				}
			}
		}()
		svc := new(memConn)
		done := make(chan *tunnel.Result, 1)
		go func() { done <- tunnel.Forward(ctx, server, svc, [2]string{"client", "service"}, tunnel.Options{}) }()
		var r *tunnel.Result
		select {
		case r = <-done:
		case <-time.After(15 * time.Second):
			t.Fatal("Forward does not return")
		}
		want := bytes.Join(fuzzData, nil)
		got := svc.buf.Bytes()
		if svc.wroteEnd {
			if !bytes.Equal(got, want) || r.AB.Err != nil {
				t.Fatalf("the service got the end after %q, want %q (result %v)", got, want, r.AB.Err)
			}
			return
		}
		if !bytes.HasPrefix(want, got) {
			t.Fatalf("the service got %q, not a prefix of %q", got, want)
		}
		if r.Err == nil {
			t.Fatalf("no end passed on, but no failure either")
		}
		if intact(ops, len(frames)) {
			t.Fatalf("the frames came whole and in order, but the service got no end: %v", r.Err)
		}
	})
}

// intact reports whether ops send every frame once, unchanged, in
// order.
func intact(ops []byte, n int) bool {
	if len(ops) < n {
		return false
	}
	for _, op := range ops[:n] {
		if op%5 != 0 {
			return false
		}
	}
	return true
}

// splitFrames splits a stream of frames (a 2-byte length and the
// message) into frames.
func splitFrames(b []byte) [][]byte {
	var frames [][]byte
	for len(b) >= 2 {
		n := 2 + (int(b[0])<<8 | int(b[1]))
		if n > len(b) {
			break
		}
		frames = append(frames, b[:n])
		b = b[n:]
	}
	return frames
}
