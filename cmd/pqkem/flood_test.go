package main

import (
	"bytes"
	binenc "encoding/binary"
	"io"
	"net"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/pqkem/pqkem/internal/leaktest"
)

// The flood tests run serve with its default limits against floods from
// many loopback addresses (127.0.0.2 and up, which Linux routes to
// loopback; elsewhere they skip), and check that a real client from
// 127.0.0.1 gets through. Every flood is bounded in count and time.

// floodDialer returns a dialer from the loopback address 127.0.0.n, or
// skips the test where that address cannot be used.
func floodDialer(t *testing.T, n int) *net.Dialer {
	t.Helper()
	if runtime.GOOS != "linux" {
		t.Skip("the floods come from 127.0.0.2 and up, which only Linux routes to loopback")
	}
	return &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.IPv4(127, 0, 0, byte(n))}, Timeout: 5 * time.Second}
}

// TestTunnelIdleFlood opens 2,000 sockets that never send anything, 16
// from each of 125 addresses (the default -max-per-source), more than the
// default -max-handshakes (1,024): a real client still gets through,
// while they are open.
func TestTunnelIdleFlood(t *testing.T) {
	floodDialer(t, 2)
	if n := openFileLimit(); n < 5000 {
		t.Skipf("the flood needs about 4,500 open files, and the limit is %d", n)
	}
	leaktest.Check(t)
	dir := t.TempDir()
	tunnelKeys(t, dir, "ML-KEM-768", "server")
	srv := serveTunnel(t, dir, echoService(t), "-quiet")
	var idle []net.Conn
	defer func() {
		for _, c := range idle {
			c.Close()
		}
	}()
	for src := 2; src < 127; src++ {
		d := floodDialer(t, src)
		for range 16 {
			c, err := d.Dial("tcp", srv.addr)
			if err != nil {
				t.Fatalf("idle socket %d: %v", len(idle)+1, err)
			}
			idle = append(idle, c)
		}
	}
	for range 3 {
		c := dialNoise(t, dir, srv.addr)
		roundTrip(t, c, "through 2,000 idle sockets")
		c.Close()
	}
	waitLog(t, srv.log, "dropped: ")
}

// TestTunnelRandomFlood sends first messages of the right size, random
// bytes but for a valid ephemeral key, from 8 goroutines on 8 addresses,
// 400 in all, while a real client connects: it gets through, no
// connection reaches the service, and the addresses are rate-limited
// once they have failed more than -burst times.
func TestTunnelRandomFlood(t *testing.T) {
	leaktest.Check(t)
	dir := t.TempDir()
	tunnelKeys(t, dir, "ML-KEM-768", "server")
	var accepted atomic.Int64
	svc := countingEcho(t, &accepted)
	srv := serveTunnel(t, dir, svc, "-quiet")
	p := serverProtocol(t, dir)
	size := p.MessageSizes()[0]
	dk, err := p.KEM.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	ephemeral := dk.EncapsulationKey().Bytes()
	var wg sync.WaitGroup
	var next atomic.Int64
	for w := range 8 {
		wg.Go(func() {
			d := floodDialer(t, 2+w)
			for next.Add(1) <= 400 {
				c, err := d.Dial("tcp", srv.addr)
				if err != nil {
					continue // reset by the rate limit
				}
				msg := make([]byte, 2+size)
				binenc.BigEndian.PutUint16(msg, uint16(size))
				// pqNK's first message is a ciphertext to the server's
				// key, which the server decapsulates, the ephemeral key,
				// and a tag: random bytes with a valid ephemeral key get
				// as far as the tag.
				copy(msg[2:], randomBytes(size))
				copy(msg[2+p.KEM.CiphertextSize():], ephemeral)
				c.SetDeadline(time.Now().Add(5 * time.Second))
				c.Write(msg)
				io.Copy(io.Discard, c)
				c.Close()
			}
		})
	}
	for range 5 {
		c := dialNoise(t, dir, srv.addr)
		roundTrip(t, c, "during a random-bytes flood")
		c.Close()
	}
	wg.Wait()
	waitLog(t, srv.log, "authentication: ")
	// 50 failures an address, over its burst of 10.
	waitLog(t, srv.log, "rate-limited: ")
	if n := accepted.Load(); n != 5 {
		t.Errorf("the service accepted %d connections, want 5 (the real client's)", n)
	}
}

// TestTunnelReplay replays a real client's first handshake message: the
// server answers it (it cannot tell), but the replayer cannot confirm
// the handshake, and the service never sees a connection for it.
func TestTunnelReplay(t *testing.T) {
	leaktest.Check(t)
	dir := t.TempDir()
	tunnelKeys(t, dir, "ML-KEM-768", "server")
	var accepted atomic.Int64
	svc := countingEcho(t, &accepted)
	srv := serveTunnel(t, dir, svc, "-timeout", "1s")

	// Record the client's first message through a relay.
	var first bytes.Buffer
	recorded := make(chan struct{})
	relay := onePeer(t, func(c net.Conn) {
		s, err := net.Dial("tcp", srv.addr)
		if err != nil {
			return
		}
		defer s.Close()
		go io.Copy(c, s)
		size := serverProtocol(t, dir).MessageSizes()[0]
		io.CopyN(io.MultiWriter(s, &first), c, int64(2+size))
		close(recorded)
		io.Copy(s, c)
	})
	c := dialNoise(t, dir, relay)
	roundTrip(t, c, "the original")
	c.Close()
	waitLog(t, srv.log, "closed after")
	<-recorded

	var wg sync.WaitGroup
	for range 3 {
		wg.Go(func() {
			r, err := net.Dial("tcp", srv.addr)
			if err != nil {
				t.Error(err)
				return
			}
			defer r.Close()
			r.SetDeadline(time.Now().Add(5 * time.Second))
			r.Write(first.Bytes())
			// The server's answer, then nothing: the replayer has no
			// confirmation to send, and waits for the server to give up.
			io.Copy(io.Discard, r)
		})
	}
	wg.Wait()
	waitLog(t, srv.log, "timeout: ")
	if n := accepted.Load(); n != 1 {
		t.Errorf("the service accepted %d connections, want 1: a replay opened a connection", n)
	}
}
