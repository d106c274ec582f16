package pake

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"io"
	"net"
	"os"
	"testing"
	"time"

	"github.com/pqkem/pqkem/internal/leaktest"
)

func testCreds(t *testing.T, s *Scheme, pw string) *Credentials {
	t.Helper()
	c, err := NewCredentials(s, []byte(pw), "alice", "printer", testArgon2)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// connPair returns the two ends of a loopback TCP connection.
func connPair(t *testing.T) (client, server net.Conn) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	type accepted struct {
		c   net.Conn
		err error
	}
	ch := make(chan accepted, 1)
	go func() {
		c, err := ln.Accept()
		ch <- accepted{c, err}
	}()
	client, err = net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	a := <-ch
	if a.err != nil {
		t.Fatal(a.err)
	}
	t.Cleanup(func() { client.Close(); a.c.Close() })
	return client, a.c
}

type result struct {
	key []byte
	err error
}

// goRun runs f in a goroutine and returns a channel with its result.
func goRun(f func() ([]byte, error)) <-chan result {
	ch := make(chan result, 1)
	go func() {
		k, err := f()
		ch <- result{k, err}
	}()
	return ch
}

func wait(t *testing.T, ch <-chan result) result {
	t.Helper()
	select {
	case r := <-ch:
		return r
	case <-time.After(20 * time.Second):
		t.Fatal("the exchange hangs")
	}
	return result{}
}

func frame(b []byte) []byte {
	return append(binary.BigEndian.AppendUint32(nil, uint32(len(b))), b...)
}

func hello(s *Scheme) []byte { return frame([]byte(helloPrefix + s.Name())) }

// readFrame reads one frame from c, of any length up to 1 MiB.
func readFrame(t *testing.T, c net.Conn) ([]byte, error) {
	t.Helper()
	c.SetReadDeadline(time.Now().Add(10 * time.Second))
	var hdr [4]byte
	if _, err := io.ReadFull(c, hdr[:]); err != nil {
		return nil, err
	}
	n := binary.BigEndian.Uint32(hdr[:])
	if n > 1<<20 {
		t.Fatalf("frame of %d bytes", n)
	}
	b := make([]byte, n)
	_, err := io.ReadFull(c, b)
	return b, err
}

func TestConnMatch(t *testing.T) {
	leaktest.Check(t)
	for _, name := range []string{"Tempo-C1-ML-KEM-768", "NoIC-A1-ML-KEM-512", "Tempo-B0-ML-KEM-1024"} {
		t.Run(name, func(t *testing.T) {
			s, err := ByName(name)
			if err != nil {
				t.Fatal(err)
			}
			cc, sc := connPair(t)
			cfg := &Config{Credentials: testCreds(t, s, "pw"), Timeout: 10 * time.Second}
			srv := goRun(func() ([]byte, error) { return Server(context.Background(), sc, cfg) })
			ck, err := Client(context.Background(), cc, cfg)
			sr := wait(t, srv)
			if err != nil || sr.err != nil {
				t.Fatalf("client: %v; server: %v", err, sr.err)
			}
			if len(ck) != SessionKeySize || !bytes.Equal(ck, sr.key) {
				t.Fatalf("keys differ: %x %x", ck, sr.key)
			}
			// The deadline is cleared and nothing was read ahead: the
			// connection carries on.
			go cc.Write([]byte("after"))
			buf := make([]byte, 5)
			if _, err := io.ReadFull(sc, buf); err != nil || string(buf) != "after" {
				t.Fatalf("after the exchange: %q, %v", buf, err)
			}
		})
	}
}

func TestConnMismatch(t *testing.T) {
	leaktest.Check(t)
	s := Default()
	for _, tc := range []struct{ name, cpw, spw, cid string }{
		{"password", "hunter2", "hunter3", "alice"},
		{"identity", "hunter2", "hunter2", "mallory"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cc, sc := connPair(t)
			ccreds, err := NewCredentials(s, []byte(tc.cpw), tc.cid, "printer", testArgon2)
			if err != nil {
				t.Fatal(err)
			}
			srv := goRun(func() ([]byte, error) {
				return Server(context.Background(), sc, &Config{Credentials: testCreds(t, s, tc.spw)})
			})
			ck, err := Client(context.Background(), cc, &Config{Credentials: ccreds})
			sr := wait(t, srv)
			if !errors.Is(err, ErrPasswordMismatch) || !errors.Is(sr.err, ErrPasswordMismatch) || ck != nil || sr.key != nil {
				t.Fatalf("client: %x, %v; server: %x, %v; want ErrPasswordMismatch", ck, err, sr.key, sr.err)
			}
			if errors.Is(err, ErrProtocol) || errors.Is(err, ErrTimeout) {
				t.Errorf("a mismatch matches another kind: %v", err)
			}
		})
	}
}

// TestConnServerHostile runs Server against peers that break the
// protocol: each must end in an error of the right kind, promptly, with
// no msg2 sent where the peer did not earn one.
func TestConnServerHostile(t *testing.T) {
	leaktest.Check(t)
	s := Default()
	creds := testCreds(t, s, "pw")
	msg1 := bytes.Repeat([]byte{0x5a}, s.Msg1Size())
	for _, tc := range []struct {
		name string
		peer func(c net.Conn)
		want error
	}{
		{"close at once", func(c net.Conn) {}, ErrProtocol},
		{"empty frame", func(c net.Conn) { c.Write([]byte{0, 0, 0, 0}) }, ErrProtocol},
		{"hello too long", func(c net.Conn) { c.Write(frame(make([]byte, maxHello+1))) }, ErrProtocol},
		{"huge frame", func(c net.Conn) { c.Write([]byte{0xff, 0xff, 0xff, 0xff}) }, ErrProtocol},
		{"garbage", func(c net.Conn) { c.Write(bytes.Repeat([]byte{0xff}, 100)) }, ErrProtocol},
		{"truncated frame", func(c net.Conn) { c.Write([]byte{0, 0, 0, 20, 'p', 'q'}) }, ErrProtocol},
		{"other protocol", func(c net.Conn) { c.Write(frame([]byte("pqkem pake v2\x00" + s.Name()))) }, ErrProtocol},
		{"other scheme", func(c net.Conn) { c.Write(frame([]byte(helloPrefix + "NoIC-C1-ML-KEM-768"))) }, ErrProtocol},
		{"short msg1", func(c net.Conn) { c.Write(append(hello(s), frame(msg1[:100])...)) }, ErrProtocol},
		{"long msg1", func(c net.Conn) { c.Write(append(hello(s), frame(append(msg1, 0))...)) }, ErrProtocol},
		{"close after msg1", func(c net.Conn) {
			c.Write(append(hello(s), frame(msg1)...))
			readFrame(t, c)
		}, ErrProtocol},
		{"long msg3", func(c net.Conn) {
			c.Write(append(hello(s), frame(msg1)...))
			readFrame(t, c)
			c.Write(frame(make([]byte, Msg3Size+1)))
		}, ErrProtocol},
		{"short msg3", func(c net.Conn) {
			c.Write(append(hello(s), frame(msg1)...))
			readFrame(t, c)
			c.Write(frame([]byte{1, 2}))
		}, ErrProtocol},
		{"forged msg3", func(c net.Conn) {
			c.Write(append(hello(s), frame(msg1)...))
			readFrame(t, c)
			c.Write(frame(make([]byte, Msg3Size)))
			if v, err := readFrame(t, c); err != nil || !bytes.Equal(v, []byte{verdictMismatch}) {
				t.Errorf("verdict %x, %v; want 00", v, err)
			}
		}, ErrPasswordMismatch},
		{"abort for msg3", func(c net.Conn) {
			c.Write(append(hello(s), frame(msg1)...))
			readFrame(t, c)
			c.Write(frame([]byte{verdictMismatch}))
		}, ErrPasswordMismatch},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cc, sc := connPair(t)
			srv := goRun(func() ([]byte, error) {
				return Server(context.Background(), sc, &Config{Credentials: creds, Timeout: 10 * time.Second})
			})
			tc.peer(cc)
			cc.Close()
			r := wait(t, srv)
			if !errors.Is(r.err, tc.want) || r.key != nil {
				t.Fatalf("got %x, %v; want %v", r.key, r.err, tc.want)
			}
		})
	}
}

// TestConnClientHostile runs Client against servers that break the
// protocol.
func TestConnClientHostile(t *testing.T) {
	leaktest.Check(t)
	s := Default()
	creds := testCreds(t, s, "pw")
	// start reads the hello and msg1.
	start := func(c net.Conn) {
		readFrame(t, c)
		readFrame(t, c)
	}
	for _, tc := range []struct {
		name string
		peer func(c net.Conn)
		want error
	}{
		{"close at once", func(c net.Conn) {}, ErrProtocol},
		{"close after msg1", start, ErrProtocol},
		{"garbage", func(c net.Conn) { start(c); c.Write(bytes.Repeat([]byte{0xff}, 100)) }, ErrProtocol},
		{"empty msg2", func(c net.Conn) { start(c); c.Write([]byte{0, 0, 0, 0}) }, ErrProtocol},
		{"short msg2", func(c net.Conn) { start(c); c.Write(frame(make([]byte, s.Msg2Size()-1))) }, ErrProtocol},
		{"long msg2", func(c net.Conn) { start(c); c.Write(frame(make([]byte, s.Msg2Size()+1))) }, ErrProtocol},
		{"forged msg2", func(c net.Conn) {
			start(c)
			c.Write(frame(make([]byte, s.Msg2Size())))
			if v, err := readFrame(t, c); err != nil || !bytes.Equal(v, []byte{verdictMismatch}) {
				t.Errorf("the client's answer %x, %v; want 00", v, err)
			}
		}, ErrPasswordMismatch},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cc, sc := connPair(t)
			cl := goRun(func() ([]byte, error) {
				return Client(context.Background(), cc, &Config{Credentials: creds, Timeout: 10 * time.Second})
			})
			tc.peer(sc)
			sc.Close()
			r := wait(t, cl)
			if !errors.Is(r.err, tc.want) || r.key != nil {
				t.Fatalf("got %x, %v; want %v", r.key, r.err, tc.want)
			}
		})
	}
	// A real server whose verdict is replaced: a key the server never
	// confirmed is not returned.
	for _, tc := range []struct {
		name    string
		verdict []byte
		want    error
	}{
		{"no verdict", nil, ErrProtocol},
		{"verdict 00", []byte{0}, ErrPasswordMismatch},
		{"verdict 02", []byte{2}, ErrProtocol},
		{"long verdict", []byte{1, 1}, ErrProtocol},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cc, sc := connPair(t)
			cl := goRun(func() ([]byte, error) {
				return Client(context.Background(), cc, &Config{Credentials: creds, Timeout: 10 * time.Second})
			})
			readFrame(t, sc)
			msg1, _ := readFrame(t, sc)
			r, msg2, err := creds.Respond(msg1)
			if err != nil {
				t.Fatal(err)
			}
			sc.Write(frame(msg2))
			msg3, _ := readFrame(t, sc)
			if k, err := r.Finish(msg3); err != nil || len(k) != SessionKeySize {
				t.Fatalf("msg3 does not verify: %v", err)
			}
			if tc.verdict != nil {
				sc.Write(frame(tc.verdict))
			}
			sc.Close()
			if res := wait(t, cl); !errors.Is(res.err, tc.want) || res.key != nil {
				t.Fatalf("got %x, %v; want %v", res.key, res.err, tc.want)
			}
		})
	}
}

// TestConnStall checks that a peer that says nothing, or stops halfway,
// is cut off at the exchange's timeout or the context's deadline, and
// that a cancelled context ends the exchange at once.
func TestConnStall(t *testing.T) {
	leaktest.Check(t)
	s := Default()
	creds := testCreds(t, s, "pw")
	msg1 := bytes.Repeat([]byte{0x5a}, s.Msg1Size())
	const timeout = 300 * time.Millisecond
	for _, tc := range []struct {
		name   string
		server bool
		ctx    func() (context.Context, context.CancelFunc)
		cfg    time.Duration
		peer   func(c net.Conn)
		want   []error
	}{
		{"server/silent", true, nil, timeout, func(c net.Conn) {}, []error{ErrTimeout, os.ErrDeadlineExceeded}},
		{"server/after msg2", true, nil, timeout, func(c net.Conn) {
			c.Write(append(hello(s), frame(msg1)...))
			readFrame(t, c)
		}, []error{ErrTimeout, os.ErrDeadlineExceeded}},
		// A frame at a time, each well within the timeout, is still cut
		// off: the timeout is for the whole exchange.
		{"server/slow", true, nil, timeout, func(c net.Conn) {
			for _, b := range append(hello(s), frame(msg1)...) {
				if _, err := c.Write([]byte{b}); err != nil {
					return
				}
				time.Sleep(timeout / 20)
			}
		}, []error{ErrTimeout}},
		{"server/context deadline", true, func() (context.Context, context.CancelFunc) {
			return context.WithTimeout(context.Background(), timeout)
		}, -1, func(c net.Conn) {}, []error{ErrTimeout}},
		{"server/cancelled", true, func() (context.Context, context.CancelFunc) {
			ctx, cancel := context.WithCancel(context.Background())
			time.AfterFunc(timeout, cancel)
			return ctx, cancel
		}, -1, func(c net.Conn) {}, []error{context.Canceled}},
		{"client/silent", false, nil, timeout, func(c net.Conn) {}, []error{ErrTimeout, os.ErrDeadlineExceeded}},
		{"client/context deadline", false, func() (context.Context, context.CancelFunc) {
			return context.WithTimeout(context.Background(), timeout)
		}, 0, func(c net.Conn) {}, []error{ErrTimeout, context.DeadlineExceeded}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.Background(), context.CancelFunc(func() {})
			if tc.ctx != nil {
				ctx, cancel = tc.ctx()
			}
			defer cancel()
			cc, sc := connPair(t)
			own, peer := cc, sc
			f := Client
			if tc.server {
				own, peer, f = sc, cc, Server
			}
			start := time.Now()
			ch := goRun(func() ([]byte, error) { return f(ctx, own, &Config{Credentials: creds, Timeout: tc.cfg}) })
			go tc.peer(peer) // it stalls: never closes
			r := wait(t, ch)
			if el := time.Since(start); el < timeout*9/10 || el > 10*time.Second {
				t.Errorf("ended after %v; want about %v", el, timeout)
			}
			for _, w := range tc.want {
				if !errors.Is(r.err, w) {
					t.Errorf("got %v; want it to match %v", r.err, w)
				}
			}
			if errors.Is(r.err, ErrProtocol) || errors.Is(r.err, ErrPasswordMismatch) {
				t.Errorf("a stall matches another kind: %v", r.err)
			}
		})
	}
}

// TestConnSecondAttempt checks that a server answers one exchange per
// connection (a second hello after the verdict gets nothing), and that an
// AttemptLimit shared by connections stops further msg2s.
func TestConnSecondAttempt(t *testing.T) {
	leaktest.Check(t)
	s := Default()
	creds := testCreds(t, s, "pw")
	wrong := testCreds(t, s, "wrong")

	// On one connection: a mismatch, then the client tries again.
	cc, sc := connPair(t)
	srv := goRun(func() ([]byte, error) { return Server(context.Background(), sc, &Config{Credentials: creds}) })
	if _, err := Client(context.Background(), cc, &Config{Credentials: wrong}); !errors.Is(err, ErrPasswordMismatch) {
		t.Fatalf("first exchange: %v", err)
	}
	if r := wait(t, srv); !errors.Is(r.err, ErrPasswordMismatch) {
		t.Fatalf("server: %v", r.err)
	}
	cl := goRun(func() ([]byte, error) {
		return Client(context.Background(), cc, &Config{Credentials: creds, Timeout: 300 * time.Millisecond})
	})
	if r := wait(t, cl); !errors.Is(r.err, ErrTimeout) {
		t.Fatalf("second exchange on the same connection: %v; want no answer", r.err)
	}

	// Across connections: a limit of 1 msg2.
	limit := NewAttemptLimit(1)
	cfg := &Config{Credentials: creds, Attempt: limit.Take, Timeout: 10 * time.Second}
	for i, want := range []error{ErrPasswordMismatch, ErrNoAttempts} {
		cc, sc := connPair(t)
		srv := goRun(func() ([]byte, error) { return Server(context.Background(), sc, cfg) })
		cl := goRun(func() ([]byte, error) { return Client(context.Background(), cc, &Config{Credentials: wrong}) })
		r := wait(t, srv)
		if !errors.Is(r.err, want) {
			t.Fatalf("connection %d: server %v; want %v", i+1, r.err, want)
		}
		sc.Close()
		if r := wait(t, cl); r.err == nil {
			t.Fatalf("connection %d: the client got a key", i+1)
		}
	}
	if limit.Remaining() != 0 {
		t.Errorf("Remaining = %d", limit.Remaining())
	}
	l := NewAttemptLimit(3)
	l.Stop()
	if err := l.Take(); !errors.Is(err, ErrNoAttempts) || l.Remaining() != 0 {
		t.Errorf("after Stop: Take %v, Remaining %d", err, l.Remaining())
	}
}

func TestConnBadArguments(t *testing.T) {
	cc, _ := connPair(t)
	creds := testCreds(t, Default(), "pw")
	ctx := context.Background()
	for _, f := range []func(context.Context, net.Conn, *Config) ([]byte, error){Client, Server} {
		if _, err := f(ctx, nil, &Config{Credentials: creds}); err == nil {
			t.Error("nil conn accepted")
		}
		if _, err := f(ctx, cc, nil); err == nil {
			t.Error("nil config accepted")
		}
		if _, err := f(ctx, cc, &Config{}); err == nil {
			t.Error("no credentials accepted")
		}
		if _, err := f(nil, cc, &Config{Credentials: creds}); err == nil {
			t.Error("nil context accepted")
		}
		done, cancel := context.WithCancel(ctx)
		cancel()
		if _, err := f(done, cc, &Config{Credentials: creds}); !errors.Is(err, context.Canceled) {
			t.Errorf("cancelled context: %v", err)
		}
	}
	d := testCreds(t, Default(), "pw")
	d.Destroy()
	if _, err := Client(ctx, cc, &Config{Credentials: d}); err == nil {
		t.Error("destroyed credentials accepted")
	}
}

// TestConnCallerDeadline checks that with no timeout and no context
// deadline, the deadline already set on the connection bounds the
// exchange and is left as it was.
func TestConnCallerDeadline(t *testing.T) {
	leaktest.Check(t)
	cc, _ := connPair(t)
	cc.SetDeadline(time.Now().Add(200 * time.Millisecond))
	start := time.Now()
	_, err := Client(context.Background(), cc, &Config{Credentials: testCreds(t, Default(), "pw"), Timeout: -1})
	if !errors.Is(err, ErrTimeout) || time.Since(start) > 5*time.Second {
		t.Fatalf("after %v: %v; want a timeout at the connection's deadline", time.Since(start), err)
	}
	if _, err := cc.Read(make([]byte, 1)); !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Errorf("the connection's deadline was changed: read %v", err)
	}
}
