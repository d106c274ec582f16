package noise_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/pqkem/pqkem/internal/leaktest"
	"github.com/pqkem/pqkem/noise"
)

// dialPair returns a client and a server Conn of p over TCP loopback,
// with their handshakes complete.
func dialPair(t *testing.T, p noise.Protocol) (client, server *noise.Conn) {
	ccfg, scfg := connConfigs(t, p)
	l, err := noise.Listen("tcp", "127.0.0.1:0", scfg)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	accepted := make(chan *noise.Conn, 1)
	serr := serve(func() error {
		c, err := l.Accept()
		if err != nil {
			return err
		}
		accepted <- c.(*noise.Conn)
		return c.(*noise.Conn).Handshake()
	})
	client, err = noise.Dial("tcp", l.Addr().String(), ccfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := <-serr; err != nil {
		t.Fatal(err)
	}
	server = <-accepted
	t.Cleanup(func() { client.Close(); server.Close() })
	return client, server
}

// Each side's end is authenticated: CloseWrite and Close send the end
// marker, and Read returns io.EOF after the data, in two-message
// patterns (where the client confirms) and three-message ones.
func TestConnEndOfStream(t *testing.T) {
	leaktest.Check(t)
	for _, pat := range []noise.Pattern{noise.PQNN, noise.PQNK, noise.PQIK, noise.PQXX} {
		p := protocol(t, pat, "ML-KEM-512")
		t.Run(p.String(), func(t *testing.T) {
			client, server := dialPair(t, p)
			if _, err := client.Write([]byte("request")); err != nil {
				t.Fatal(err)
			}
			if err := client.CloseWrite(); err != nil {
				t.Fatal(err)
			}
			if err := client.CloseWrite(); err != nil {
				t.Errorf("second CloseWrite: %v", err)
			}
			if _, err := client.Write([]byte("x")); err == nil {
				t.Error("Write after CloseWrite succeeded")
			}
			got, err := io.ReadAll(server)
			if err != nil || string(got) != "request" {
				t.Fatalf("server read %q, %v", got, err)
			}
			if _, err := server.Write([]byte("response")); err != nil {
				t.Fatal(err)
			}
			if err := server.Close(); err != nil {
				t.Fatal(err)
			}
			got, err = io.ReadAll(client)
			if err != nil || string(got) != "response" {
				t.Fatalf("client read %q, %v", got, err)
			}
		})
	}
}

// A connection cut without the end marker is ErrTruncated on the other
// side, at a message boundary as inside a message, and a reset is a reset:
// never io.EOF.
func TestConnTruncatedOverTCP(t *testing.T) {
	leaktest.Check(t)
	p := protocol(t, noise.PQNK, "ML-KEM-768")
	for _, c := range []struct {
		name  string
		cut   func(raw *net.TCPConn)
		check func(error) bool
	}{
		{"FIN", func(raw *net.TCPConn) { raw.CloseWrite() }, isTruncated},
		{"FIN inside a message", func(raw *net.TCPConn) { raw.Write([]byte{0, 40, 1, 2, 3}); raw.CloseWrite() }, isTruncated},
		{"RST", func(raw *net.TCPConn) { raw.SetLinger(0); raw.Close() }, func(err error) bool { return errors.Is(err, syscall.ECONNRESET) }},
	} {
		t.Run(c.name, func(t *testing.T) {
			client, server := dialPair(t, p)
			if _, err := client.Write([]byte("partial")); err != nil {
				t.Fatal(err)
			}
			c.cut(client.NetConn().(*net.TCPConn))
			got, err := io.ReadAll(server)
			if !c.check(err) {
				t.Fatalf("Read after a %s: %q, %v", c.name, got, err)
			}
			if c.name != "RST" && string(got) != "partial" {
				t.Errorf("read %q before the cut, want %q", got, "partial")
			}
		})
	}
}

// A server-speaks-first protocol works, also over a synchronous pipe: the
// client's handshake sends its confirmation, which the server's handshake
// reads, so the server can write first.
func TestConnServerSpeaksFirst(t *testing.T) {
	leaktest.Check(t)
	for _, pat := range []noise.Pattern{noise.PQNK, noise.PQXX, noise.PQNN} {
		p := protocol(t, pat, "ML-KEM-512")
		t.Run(p.String(), func(t *testing.T) {
			ccfg, scfg := connConfigs(t, p)
			a, b := pipe(t)
			srv := noise.Server(b, scfg)
			serr := serve(func() error {
				if err := srv.Handshake(); err != nil {
					return err
				}
				if _, err := srv.Write([]byte("SSH-2.0-test\r\n")); err != nil {
					return err
				}
				return srv.Close()
			})
			cl := noise.Client(a, ccfg)
			got, err := io.ReadAll(cl)
			if err != nil || string(got) != "SSH-2.0-test\r\n" {
				t.Fatalf("client read %q, %v", got, err)
			}
			if err := <-serr; err != nil {
				t.Fatal(err)
			}
		})
	}
}

// recordingConn keeps what is written to it.
type recordingConn struct {
	net.Conn
	written bytes.Buffer
}

func (c *recordingConn) Write(b []byte) (int, error) {
	c.written.Write(b)
	return c.Conn.Write(b)
}

// A replayed first message gets a server no further than its handshake:
// the replayer cannot confirm, whatever it sends next.
func TestConnReplayedFirstMessage(t *testing.T) {
	leaktest.Check(t)
	p := protocol(t, noise.PQNK, "ML-KEM-768")
	ccfg, scfg := connConfigs(t, p)
	// A real handshake, recorded.
	a, b := pipe(t)
	rec := &recordingConn{Conn: a}
	srv := noise.Server(b, scfg)
	serr := serve(srv.Handshake)
	if err := noise.Client(rec, ccfg).Handshake(); err != nil {
		t.Fatal(err)
	}
	if err := <-serr; err != nil {
		t.Fatal(err)
	}
	first := rec.written.Bytes()[:2+p.MessageSizes()[0]]
	for _, c := range []struct {
		name  string
		after []byte // what the replayer sends after the first message
	}{
		{"then closes", nil},
		{"then the recorded confirmation", rec.written.Bytes()[len(first):]},
		{"then garbage", bytes.Repeat([]byte{0, 16, 7}, 6)},
	} {
		t.Run(c.name, func(t *testing.T) {
			a, b := pipe(t)
			srv := noise.Server(b, scfg)
			serr := serve(srv.Handshake)
			go func() {
				go io.Copy(io.Discard, a)
				a.Write(first)
				a.Write(c.after)
				a.Close()
			}()
			if err := <-serr; err == nil {
				t.Fatal("a replayed first message completed the server's handshake")
			}
			if srv.ConnectionState().HandshakeComplete {
				t.Error("HandshakeComplete after a replay")
			}
		})
	}
	// A replayer that stalls is stopped by the handshake's bound.
	a, b = pipe(t)
	srv = noise.Server(b, scfg)
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	serr = serve(func() error { return srv.HandshakeContext(ctx) })
	go func() {
		go io.Copy(io.Discard, a)
		a.Write(first)
	}()
	if err := <-serr; !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("stalled replay: %v", err)
	}
}

// A client of another implementation, which sends no confirmation, is
// served when it sends data first, and reads a Conn's end marker as an
// empty message.
func TestConnClientWithoutConfirmation(t *testing.T) {
	leaktest.Check(t)
	p := protocol(t, noise.PQNN, "ML-KEM-512")
	_, scfg := connConfigs(t, p)
	raw, b := pipe(t)
	srv := noise.Server(b, scfg)
	serr := serve(func() error {
		buf := make([]byte, 10)
		n, err := srv.Read(buf)
		if err != nil {
			return err
		}
		if string(buf[:n]) != "data" {
			return errors.New("server read " + string(buf[:n]))
		}
		return srv.Close()
	})
	send, recv, err := rawPeer(raw, &noise.HandshakeConfig{Protocol: p, Initiator: true, Prologue: scfg.Prologue}, nil)
	if err != nil {
		t.Fatal(err)
	}
	m, err := send.Encrypt(nil, nil, []byte("data"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := raw.Write(frameOf(m)); err != nil {
		t.Fatal(err)
	}
	msg, err := readFrame(raw)
	if err != nil {
		t.Fatal(err)
	}
	if pt, err := recv.Decrypt(nil, nil, msg); err != nil || len(pt) != 0 {
		t.Fatalf("end marker: %q, %v", pt, err)
	}
	if err := <-serr; err != nil {
		t.Fatal(err)
	}
}

// Close does not wait for a Write blocked on a peer that reads nothing,
// and sends no end marker then: the stream was cut.
func TestConnCloseDuringWrite(t *testing.T) {
	leaktest.Check(t)
	p := protocol(t, noise.PQNN, "ML-KEM-512")
	ccfg, scfg := connConfigs(t, p)
	a, b := pipe(t)
	srv := noise.Server(b, scfg)
	serr := serve(srv.Handshake)
	cl := noise.Client(a, ccfg)
	if err := cl.Handshake(); err != nil {
		t.Fatal(err)
	}
	if err := <-serr; err != nil {
		t.Fatal(err)
	}
	var writing atomic.Bool
	werr := serve(func() error {
		writing.Store(true)
		_, err := cl.Write(make([]byte, 1000)) // nobody reads
		return err
	})
	for !writing.Load() {
		time.Sleep(time.Millisecond)
	}
	time.Sleep(10 * time.Millisecond)
	done := serve(cl.Close)
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("Close waited for a blocked Write")
	}
	if err := <-werr; err == nil {
		t.Error("the blocked Write succeeded")
	}
}

// countingConn counts the writes to it.
type countingConn struct {
	net.Conn
	writes atomic.Int32
}

func (c *countingConn) Write(b []byte) (int, error) {
	c.writes.Add(1)
	return c.Conn.Write(b)
}

// The client's confirmation goes in the same write as its first data, and
// a client that neither writes nor reads still completes the server's
// handshake.
func TestConnConfirmationTiming(t *testing.T) {
	leaktest.Check(t)
	p := protocol(t, noise.PQNK, "ML-KEM-512")
	ccfg, scfg := connConfigs(t, p)

	a, b := pipe(t)
	cc := &countingConn{Conn: a}
	srv := noise.Server(b, scfg)
	got := serve(func() error {
		buf := make([]byte, 10)
		n, err := srv.Read(buf)
		if err == nil && string(buf[:n]) != "request" {
			err = errors.New("server read " + string(buf[:n]))
		}
		return err
	})
	cl := noise.Client(cc, ccfg)
	if err := cl.Handshake(); err != nil {
		t.Fatal(err)
	}
	before := cc.writes.Load()
	if _, err := cl.Write([]byte("request")); err != nil {
		t.Fatal(err)
	}
	if err := <-got; err != nil {
		t.Fatal(err)
	}
	if n := cc.writes.Load() - before; n != 1 {
		t.Errorf("the confirmation and the first data took %d writes, want 1", n)
	}

	a, b = pipe(t)
	srv = noise.Server(b, scfg)
	serr := serve(srv.Handshake)
	idle := noise.Client(a, ccfg)
	if err := idle.Handshake(); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-serr:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("a client that neither writes nor reads left the server's handshake waiting")
	}
}

// A confirmation timer that fires while the handshake that armed it still
// holds the writing side tries again, rather than leave the server's
// handshake waiting: with no delay it always fires that early.
func TestConnConfirmationTimerDuringHandshake(t *testing.T) {
	leaktest.Check(t)
	defer noise.SetConfirmDelay(0)()
	p := protocol(t, noise.PQNK, "ML-KEM-512")
	ccfg, scfg := connConfigs(t, p)
	for range 20 {
		a, b := pipe(t)
		srv := noise.Server(b, scfg)
		serr := serve(srv.Handshake)
		if err := noise.Client(a, ccfg).Handshake(); err != nil {
			t.Fatal(err)
		}
		select {
		case err := <-serr:
			if err != nil {
				t.Fatal(err)
			}
		case <-time.After(5 * time.Second):
			t.Fatal("the server's handshake waits for a confirmation never sent")
		}
	}
}
