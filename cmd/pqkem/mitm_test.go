package main

import (
	"bytes"
	binenc "encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/pqkem/pqkem/internal/leaktest"
)

// The man-in-the-middle tests put a proxy on loopback between pqkem
// connect and pqkem serve that reads the PQNoise frames going each way
// and, at one chosen data frame, changes a byte, sends it twice, drops
// it, cuts the connection with a FIN before it or inside it, or resets
// it. The service behind serve and the local application before
// connect -listen record whether their connection ended with a FIN or a
// reset; connect on standard input and output gives its exit status.

// An attack is what the proxy does, and where.
type attack struct {
	up    bool   // in the client-to-server direction, else the other
	frame int    // at this data frame of the direction, counted from 0
	do    string // "flip", "replay", "drop", "fin", "fin-inside", "rst"
}

// A mitmProxy listens on loopback and relays each connection to its
// target, carrying out on it the attack set when it was accepted. A
// relay passes on a FIN as a half-close and a reset as a reset, as the
// network would.
type mitmProxy struct {
	addr   string
	attack atomic.Pointer[attack]
}

func (m *mitmProxy) set(a attack) { m.attack.Store(&a) }

func mitm(t *testing.T, target string, a attack) *mitmProxy {
	t.Helper()
	m := new(mitmProxy)
	m.set(a)
	ln := listenLoopback(t)
	var wg sync.WaitGroup
	wg.Go(func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			a := *m.attack.Load()
			wg.Go(func() { relayAttack(c.(*net.TCPConn), target, a) })
		}
	})
	t.Cleanup(func() {
		ln.Close()
		wg.Wait()
	})
	m.addr = ln.Addr().String()
	return m
}

func relayAttack(client *net.TCPConn, target string, a attack) {
	defer client.Close()
	sc, err := net.Dial("tcp", target)
	if err != nil {
		client.SetLinger(0)
		return
	}
	server := sc.(*net.TCPConn)
	defer server.Close()
	deadline := time.Now().Add(30 * time.Second)
	client.SetDeadline(deadline)
	server.SetDeadline(deadline)
	var once sync.Once
	cut := func(reset bool) {
		once.Do(func() {
			if reset {
				client.SetLinger(0)
				server.SetLinger(0)
			}
			client.Close()
			server.Close()
		})
	}
	var wg sync.WaitGroup
	wg.Go(func() { relayFrames(client, server, a.up, a, cut) })
	relayFrames(server, client, !a.up, a, cut)
	wg.Wait()
}

// relayFrames copies the frames of src to dst, attacking the direction
// if attacked; a clean end is passed on as a half-close, a failure as a
// reset of both.
func relayFrames(src, dst *net.TCPConn, attacked bool, a attack, cut func(reset bool)) {
	data := 0 // data frames seen: frames longer than a tag, after the handshake message
	for i := 0; ; i++ {
		var hdr [2]byte
		if _, err := io.ReadFull(src, hdr[:]); err != nil {
			if err == io.EOF {
				dst.CloseWrite()
				return
			}
			cut(isReset(err))
			return
		}
		body := make([]byte, binenc.BigEndian.Uint16(hdr[:]))
		if _, err := io.ReadFull(src, body); err != nil {
			cut(isReset(err))
			return
		}
		frame := append(hdr[:], body...)
		isData := i > 0 && len(body) > 16
		if attacked && isData && data == a.frame {
			switch a.do {
			case "flip":
				frame[len(frame)/2] ^= 0x20
			case "replay":
				dst.Write(frame)
			case "drop":
				frame = nil
			case "fin":
				cut(false)
				return
			case "fin-inside":
				dst.Write(frame[:len(frame)/2])
				cut(false)
				return
			case "rst":
				cut(true)
				return
			}
		}
		if isData {
			data++
		}
		if _, err := dst.Write(frame); err != nil {
			cut(isReset(err))
			return
		}
	}
}

// endOf says how a read ended: "fin" for a clean end, "rst" for a reset.
func endOf(err error) string {
	switch {
	case err == nil || errors.Is(err, io.EOF):
		return "fin"
	case errors.Is(err, syscall.ECONNRESET):
		return "rst"
	}
	return err.Error()
}

// recordingService is a service behind serve: for each connection it
// reads everything, then sends down bytes and half-closes; it records
// how each connection's upload ended and whether the download got
// through.
type recordingService struct {
	addr string
	down int
	ends chan serviceEnd
}

type serviceEnd struct {
	got      int    // bytes received
	up       string // "fin" or "rst": how the upload ended
	downSent bool   // the download was written whole and half-closed
}

func newRecordingService(t *testing.T, down int) *recordingService {
	t.Helper()
	ln := listenLoopback(t)
	s := &recordingService{addr: ln.Addr().String(), down: down, ends: make(chan serviceEnd, 100)}
	serveConns(t, ln, func(c net.Conn) {
		c.SetDeadline(time.Now().Add(30 * time.Second))
		n, err := io.Copy(io.Discard, c)
		e := serviceEnd{got: int(n), up: endOf(err)}
		if e.up == "fin" {
			_, werr := c.Write(bytes.Repeat([]byte{'d'}, s.down))
			if werr == nil {
				werr = c.(*net.TCPConn).CloseWrite()
			}
			e.downSent = werr == nil
			// Wait for the tunnel's close, so that a reset after
			// the download is seen too.
			if _, err := c.Read(make([]byte, 1)); endOf(err) != "fin" {
				e.downSent = false
			}
		}
		s.ends <- e
	})
	return s
}

// next returns how the next connection ended.
func (s *recordingService) next(t *testing.T) serviceEnd {
	t.Helper()
	select {
	case e := <-s.ends:
		return e
	case <-time.After(20 * time.Second):
		t.Fatal("the service saw no connection end")
	}
	return serviceEnd{}
}

// TestTunnelMITM runs connect on standard input and output through the
// man in the middle: whatever it does, connect fails (exit status 1,
// one line saying why), and the service sees a reset, never a FIN,
// unless all of the upload came through before the attack.
func TestTunnelMITM(t *testing.T) {
	leaktest.Check(t)
	dir := t.TempDir()
	tunnelKeys(t, dir, "ML-KEM-768", "server")
	const upSize, downSize = 200_000, 200_000
	svc := newRecordingService(t, downSize)
	srv := serveTunnel(t, dir, svc.addr, "-quiet")
	pub := filepath.Join(dir, "server.pub")
	up := randomBytes(upSize)

	// Without an attack, both directions end cleanly.
	m := mitm(t, srv.addr, attack{frame: -1})
	code, stdout, stderr := connectStdin(t, up, "-pub", pub, "-to", m.addr)
	if e := svc.next(t); code != exitOK || len(stdout) != downSize || e.got != upSize || e.up != "fin" || !e.downSent {
		t.Fatalf("no attack: exit status %d, %d bytes down, service %+v; stderr:\n%s", code, len(stdout), e, stderr)
	}

	for _, a := range []attack{
		{up: true, frame: 1, do: "flip"},
		{up: true, frame: 1, do: "replay"},
		{up: true, frame: 1, do: "drop"},
		{up: true, frame: 1, do: "fin"},
		{up: true, frame: 1, do: "fin-inside"},
		{up: true, frame: 1, do: "rst"},
		{up: false, frame: 1, do: "flip"},
		{up: false, frame: 1, do: "replay"},
		{up: false, frame: 1, do: "drop"},
		{up: false, frame: 1, do: "fin"},
		{up: false, frame: 1, do: "fin-inside"},
		{up: false, frame: 1, do: "rst"},
	} {
		name := fmt.Sprintf("%s-%s", map[bool]string{true: "up", false: "down"}[a.up], a.do)
		t.Run(name, func(t *testing.T) {
			m.set(a)
			code, stdout, stderr := connectStdin(t, up, "-pub", pub, "-to", m.addr, "-quiet")
			e := svc.next(t)
			lines := strings.Split(strings.TrimSuffix(stderr, "\n"), "\n")
			if code != exitError || len(lines) > 2 {
				t.Errorf("exit status %d, stderr %q; want 1 and one line (and a hint)", code, stderr)
			}
			if a.up && (e.up != "rst" || e.got >= upSize) {
				t.Errorf("the service got %d of %d bytes and the upload ended with %q, want a reset", e.got, upSize, e.up)
			}
			// The service may have sent all of the download before
			// connect sees the attack.
			if !a.up && len(stdout) >= downSize {
				t.Errorf("the service %+v, %d of %d bytes down: want the download cut", e, len(stdout), downSize)
			}
			t.Logf("connect: %s", strings.ReplaceAll(stderr, "\n", " | "))
		})
	}
}

// TestTunnelMITMListen runs connect -listen through the man in the
// middle: the local application sees a reset when the download is
// attacked, a FIN only when it is complete.
func TestTunnelMITMListen(t *testing.T) {
	leaktest.Check(t)
	dir := t.TempDir()
	tunnelKeys(t, dir, "ML-KEM-768", "server")
	const downSize = 200_000
	svc := newRecordingService(t, downSize)
	srv := serveTunnel(t, dir, svc.addr, "-quiet")
	m := mitm(t, srv.addr, attack{frame: -1})
	cli := connectTunnel(t, dir, m.addr, "-quiet")
	for _, a := range []attack{
		{frame: -1},
		{up: false, frame: 1, do: "flip"},
		{up: false, frame: 1, do: "fin"},
		{up: false, frame: 1, do: "fin-inside"},
		{up: false, frame: 1, do: "rst"},
		{up: true, frame: 0, do: "flip"},
	} {
		t.Run(a.do, func(t *testing.T) {
			m.set(a)
			c, err := net.Dial("tcp", cli.addr)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			c.SetDeadline(time.Now().Add(20 * time.Second))
			c.Write(randomBytes(50_000))
			c.(*net.TCPConn).CloseWrite()
			n, err := io.Copy(io.Discard, c)
			svc.next(t)
			got := endOf(err)
			if a.do == "" {
				if got != "fin" || n != downSize {
					t.Errorf("no attack: %d of %d bytes down, ended with %q; want all and a FIN", n, downSize, got)
				}
				return
			}
			if got != "rst" || n >= downSize {
				t.Errorf("%d of %d bytes down, ended with %q; want a reset", n, downSize, got)
			}
		})
	}
}
