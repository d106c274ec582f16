package noise_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/pqkem/pqkem/internal/leaktest"
	"github.com/pqkem/pqkem/kem"
	"github.com/pqkem/pqkem/keyfile"
	"github.com/pqkem/pqkem/noise"
)

// connConfigs returns a client and a server Config for p, with the keys
// the pattern needs; a server that receives the client's key accepts only
// it, a client that receives the server's key pins it.
func connConfigs(t testing.TB, p noise.Protocol) (client, server *noise.Config) {
	si, sr := protocolKeys(t, p)
	client = &noise.Config{Protocol: p, Prologue: []byte("conn test"), PSKs: testPSKs(p.Pattern)}
	server = &noise.Config{Protocol: p, Prologue: []byte("conn test"), PSKs: testPSKs(p.Pattern)}
	if p.Pattern.NeedsStaticKey(true) {
		client.StaticKey = si
		server.VerifyPeerStaticKey = noise.AllowPeers(si.EncapsulationKey())
	}
	if p.Pattern.NeedsStaticKey(false) {
		server.StaticKey = sr
		client.PeerStaticKey = sr.EncapsulationKey()
	}
	if p.Pattern.NeedsRemoteStaticKey(false) {
		server.PeerStaticKey = si.EncapsulationKey()
	}
	return client, server
}

func protocol(t testing.TB, pat noise.Pattern, scheme string) noise.Protocol {
	s, err := kem.ByName(scheme)
	if err != nil {
		t.Fatal(err)
	}
	return noise.Protocol{Pattern: pat, KEM: s, Cipher: noise.ChaChaPoly, Hash: noise.BLAKE2s}
}

// serveConns accepts connections on l and runs handle on each in turn,
// closing it after, until l is closed; done is closed when the goroutine
// has returned.
func serveConns(l net.Listener, handle func(net.Conn)) (done chan struct{}) {
	done = make(chan struct{})
	go func() {
		defer close(done)
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			handle(c)
			c.Close()
		}
	}()
	return done
}

// echo copies what c reads back to it.
func echo(t testing.TB) func(net.Conn) {
	return func(c net.Conn) {
		if _, err := io.Copy(c, c); err != nil {
			t.Errorf("echo: %v", err)
		}
	}
}

// TestConnPatterns runs every pattern over TCP loopback with Listen and
// Dial: data goes through unchanged both ways, in Writes larger than one
// message, and both sides agree on the handshake hash and the keys.
func TestConnPatterns(t *testing.T) {
	leaktest.Check(t)
	data := make([]byte, 300<<10)
	rand.Read(data)
	for _, pat := range noise.Patterns() {
		p := protocol(t, pat, "ML-KEM-768")
		t.Run(p.String(), func(t *testing.T) {
			ccfg, scfg := connConfigs(t, p)
			l, err := noise.Listen("tcp", "127.0.0.1:0", scfg)
			if err != nil {
				t.Fatal(err)
			}
			serverState := make(chan noise.ConnectionState, 1)
			go func() {
				c, err := l.Accept()
				if err != nil {
					t.Error(err)
					return
				}
				defer c.Close()
				nc := c.(*noise.Conn)
				if err := nc.Handshake(); err != nil {
					t.Error(err)
					return
				}
				serverState <- nc.ConnectionState()
				io.Copy(c, c)
			}()
			defer l.Close()
			c, err := noise.Dial("tcp", l.Addr().String(), ccfg)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			go c.Write(data)
			got := make([]byte, len(data))
			if _, err := io.ReadFull(c, got); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, data) {
				t.Fatal("data changed on the way")
			}
			cs, ss := c.ConnectionState(), <-serverState
			if !cs.HandshakeComplete || !ss.HandshakeComplete || !bytes.Equal(cs.HandshakeHash, ss.HandshakeHash) || cs.Protocol != p {
				t.Errorf("connection states: %+v, %+v", cs, ss)
			}
			if (cs.PeerStaticKey != nil) != pat.NeedsStaticKey(false) || (ss.PeerStaticKey != nil) != pat.NeedsStaticKey(true) {
				t.Error("peer static keys wrong")
			}
		})
	}
}

// TestConnLarge sends 8 MiB each way at once through one connection.
func TestConnLarge(t *testing.T) {
	leaktest.Check(t)
	if testing.Short() {
		t.Skip("8 MiB each way; skipped with -short")
	}
	p := protocol(t, noise.PQNK, "ML-KEM-512")
	ccfg, scfg := connConfigs(t, p)
	l, err := noise.Listen("tcp", "127.0.0.1:0", scfg)
	if err != nil {
		t.Fatal(err)
	}
	done := serveConns(l, echo(t))
	defer func() { l.Close(); <-done }()
	c, err := noise.Dial("tcp", l.Addr().String(), ccfg)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	data := make([]byte, 8<<20)
	rand.Read(data)
	werr := make(chan error, 1)
	go func() {
		// Odd sizes, so that messages and Writes do not line up.
		for b := data; len(b) > 0; {
			n := min(len(b), 100_003)
			if _, err := c.Write(b[:n]); err != nil {
				werr <- err
				return
			}
			b = b[n:]
		}
		werr <- c.CloseWrite()
	}()
	got, err := io.ReadAll(c)
	if err != nil {
		t.Fatal(err)
	}
	if err := <-werr; err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, data) {
		t.Fatalf("got %d bytes back, want the %d sent", len(got), len(data))
	}
}

// pipe returns the two ends of an in-memory connection, closed when the
// test ends.
func pipe(t *testing.T) (a, b net.Conn) {
	a, b = net.Pipe()
	t.Cleanup(func() { a.Close(); b.Close() })
	return a, b
}

// serve runs f in a goroutine and returns its error on the channel.
func serve(f func() error) chan error {
	ch := make(chan error, 1)
	go func() { ch <- f() }()
	return ch
}

// TestConnWrongServerKey: a client with another server key fails, and so
// does the server, with an authentication error.
func TestConnWrongServerKey(t *testing.T) {
	leaktest.Check(t)
	p := protocol(t, noise.PQNK, "ML-KEM-768")
	ccfg, scfg := connConfigs(t, p)
	other, _ := p.KEM.GenerateKey()
	ccfg.PeerStaticKey = other.EncapsulationKey()
	a, b := pipe(t)
	srv := noise.Server(b, scfg)
	serr := serve(func() error { defer b.Close(); return srv.Handshake() })
	cerr := noise.Client(a, ccfg).Handshake()
	if err := <-serr; !errors.Is(err, noise.ErrAuthentication) {
		t.Errorf("server: %v", err)
	}
	if cerr == nil || !strings.HasPrefix(cerr.Error(), "noise: ") || !strings.Contains(cerr.Error(), "closed the connection") {
		t.Errorf("client: %v", cerr)
	}
	if srv.ConnectionState().HandshakeComplete {
		t.Error("the failed handshake is complete")
	}
}

// TestConnRefusedPeer: a server that accepts a list of client keys refuses
// another (pqIK, pqXX), and a client that pins the server's key refuses
// another (pqXX).
func TestConnRefusedPeer(t *testing.T) {
	leaktest.Check(t)
	for _, pat := range []noise.Pattern{noise.PQIK, noise.PQXX} {
		p := protocol(t, pat, "ML-KEM-512")
		stranger, _ := p.KEM.GenerateKey()

		ccfg, scfg := connConfigs(t, p)
		ccfg.StaticKey = stranger
		a, b := pipe(t)
		serr := serve(func() error { defer b.Close(); return noise.Server(b, scfg).Handshake() })
		cerr := noise.Client(a, ccfg).Handshake()
		if err := <-serr; !errors.Is(err, noise.ErrPeerKeyRefused) || !strings.Contains(err.Error(), "the client's key is not one of the allowed keys") {
			t.Errorf("%v: server: %v", p, err)
		}
		if cerr == nil {
			t.Errorf("%v: client with a refused key: no error", p)
		}
		if pat != noise.PQXX {
			continue
		}
		ccfg, scfg = connConfigs(t, p)
		ccfg.PeerStaticKey = stranger.EncapsulationKey()
		a, b = pipe(t)
		serr = serve(func() error { defer b.Close(); return noise.Server(b, scfg).Handshake() })
		if err := noise.Client(a, ccfg).Handshake(); !errors.Is(err, noise.ErrPeerKeyRefused) {
			t.Errorf("%v: client pinning another server key: %v", p, err)
		}
		a.Close()
		if err := <-serr; err == nil {
			t.Errorf("%v: server: no error", p)
		}
	}
}

// TestConnTimeout: a peer that stalls during the handshake is dropped
// after the handshake timeout (on either side), and a cancelled context
// stops a handshake.
func TestConnTimeout(t *testing.T) {
	leaktest.Check(t)
	p := protocol(t, noise.PQNK, "ML-KEM-512")
	ccfg, scfg := connConfigs(t, p)
	scfg.HandshakeTimeout = 50 * time.Millisecond
	ccfg.HandshakeTimeout = 50 * time.Millisecond

	// A client that connects and sends nothing, and one that sends half a
	// message.
	half := binary.BigEndian.AppendUint16(nil, uint16(p.MessageSizes()[0]))
	for _, send := range [][]byte{nil, append(half, 1, 2, 3)} {
		a, b := pipe(t)
		go a.Write(send)
		if err := noise.Server(b, scfg).Handshake(); !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "handshake not complete within 50ms") {
			t.Errorf("stalling client (%d bytes): %v", len(send), err)
		}
	}
	// A server that reads the first message and never answers.
	a, b := pipe(t)
	go io.Copy(io.Discard, b)
	if err := noise.Client(a, ccfg).Handshake(); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("stalling server: %v", err)
	}
	// A cancelled context.
	ccfg.HandshakeTimeout = -1
	a, b = pipe(t)
	go io.Copy(io.Discard, b)
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(20*time.Millisecond, cancel)
	if err := noise.Client(a, ccfg).HandshakeContext(ctx); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled context: %v", err)
	}
	// DialContext to a listener that never answers.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	ctx, cancel = context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	d := &noise.Dialer{Config: ccfg}
	if _, err := d.DialContext(ctx, "tcp", l.Addr().String()); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("DialContext: %v", err)
	}
}

// TestConnNotNoise: a peer that speaks another protocol is told apart by
// the first frame's length.
func TestConnNotNoise(t *testing.T) {
	leaktest.Check(t)
	p := protocol(t, noise.PQNK, "ML-KEM-768")
	ccfg, scfg := connConfigs(t, p)
	a, b := pipe(t)
	go func() {
		b.Write([]byte("GET / HTTP/1.1\r\nHost: example\r\n\r\n"))
		b.Close()
	}()
	err := noise.Server(a, scfg).Handshake()
	want := fmt.Sprintf("noise: handshake message 0 from the client is %d bytes, want %d for %v (is the peer running this protocol?)", 'G'<<8|'E', p.MessageSizes()[0], p)
	if se, ok := errors.AsType[*noise.MessageSizeError](err); !ok || err.Error() != want ||
		se.Protocol != p || se.Message != 0 || se.Got != 'G'<<8|'E' || se.Want != p.MessageSizes()[0] || se.AtLeast {
		t.Errorf("server reading HTTP: %v (%#v), want a *noise.MessageSizeError %q", err, se, want)
	}
	a2, b2 := pipe(t)
	go io.Copy(io.Discard, b2)
	go func() {
		b2.Write([]byte("HTTP/1.1 400 Bad Request\r\n\r\n"))
		b2.Close()
	}()
	if err := noise.Client(a2, ccfg).Handshake(); err == nil || !strings.Contains(err.Error(), "is the peer running this protocol") {
		t.Errorf("client reading HTTP: %v", err)
	}
}

// rawPeer runs one side of a handshake by hand over conn, so that a test
// can send the other side anything: edit may change each message sent.
// It returns the transport CipherStates.
func rawPeer(conn net.Conn, hc *noise.HandshakeConfig, edit func(i int, frame []byte) []byte) (send, recv *noise.CipherState, err error) {
	hs, err := noise.NewHandshakeState(hc)
	if err != nil {
		return nil, nil, err
	}
	for !hs.Complete() {
		if hs.WritesNext() {
			msg, err := hs.WriteMessage(nil, nil)
			if err != nil {
				return nil, nil, err
			}
			frame := frameOf(msg)
			if edit != nil {
				frame = edit(hs.MessageIndex()-1, frame)
			}
			if _, err := conn.Write(frame); err != nil {
				return nil, nil, err
			}
			continue
		}
		msg, err := readFrame(conn)
		if err != nil {
			return nil, nil, err
		}
		if _, err := hs.ReadMessage(nil, msg); err != nil {
			return nil, nil, err
		}
	}
	return hs.Split()
}

func frameOf(msg []byte) []byte {
	return append(binary.BigEndian.AppendUint16(nil, uint16(len(msg))), msg...)
}

func readFrame(r io.Reader) ([]byte, error) {
	var h [2]byte
	if _, err := io.ReadFull(r, h[:]); err != nil {
		return nil, err
	}
	msg := make([]byte, binary.BigEndian.Uint16(h[:]))
	_, err := io.ReadFull(r, msg)
	return msg, err
}

// serverWithRawClient returns a server Conn whose handshake is complete
// with a raw client on the other end of a pipe, which has sent its
// confirmation, and the raw client's connection and CipherStates.
func serverWithRawClient(t *testing.T) (srv *noise.Conn, raw net.Conn, send, recv *noise.CipherState) {
	p := protocol(t, noise.PQNN, "ML-KEM-512")
	_, scfg := connConfigs(t, p)
	raw, b := pipe(t)
	srv = noise.Server(b, scfg)
	serr := serve(srv.Handshake)
	send, recv, err := rawPeer(raw, &noise.HandshakeConfig{Protocol: p, Initiator: true, Prologue: scfg.Prologue}, nil)
	if err != nil {
		t.Fatal(err)
	}
	confirmation, err := send.Encrypt(nil, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := raw.Write(frameOf(confirmation)); err != nil {
		t.Fatal(err)
	}
	if err := <-serr; err != nil {
		t.Fatal(err)
	}
	return srv, raw, send, recv
}

// TestConnFrames sends a server Conn altered, replayed, reordered,
// truncated and short transport messages, streams cut without the end
// marker, and the end marker: each is a clear error (or io.EOF after the
// end marker) that stays (or for a deadline, does not stay).
func TestConnFrames(t *testing.T) {
	leaktest.Check(t)
	enc := func(cs *noise.CipherState, s string) []byte {
		m, err := cs.Encrypt(nil, nil, []byte(s))
		if err != nil {
			t.Fatal(err)
		}
		return frameOf(m)
	}
	readErr := func(srv *noise.Conn) error {
		buf := make([]byte, 100)
		for {
			if _, err := srv.Read(buf); err != nil {
				return err
			}
		}
	}
	for _, c := range []struct {
		name   string
		frames func(cs *noise.CipherState) [][]byte
		check  func(error) bool
	}{
		{"altered", func(cs *noise.CipherState) [][]byte { return [][]byte{flip(enc(cs, "hello"), 3)} }, isAuth},
		{"replayed", func(cs *noise.CipherState) [][]byte { f := enc(cs, "hello"); return [][]byte{f, f} }, isAuth},
		{"reordered", func(cs *noise.CipherState) [][]byte { f, g := enc(cs, "one"), enc(cs, "two"); return [][]byte{g, f} }, isAuth},
		{"truncated", func(cs *noise.CipherState) [][]byte { return [][]byte{enc(cs, "hello")[:10]} }, isTruncated},
		{"overlong", func(cs *noise.CipherState) [][]byte {
			f := enc(cs, "hello")
			binary.BigEndian.PutUint16(f, uint16(len(f))) // claims 2 bytes more than follow
			return [][]byte{f}
		}, isTruncated},
		{"cut at a boundary", func(cs *noise.CipherState) [][]byte { return [][]byte{enc(cs, "hello")} }, isTruncated},
		{"nothing", func(cs *noise.CipherState) [][]byte { return nil }, isTruncated},
		{"short", func(cs *noise.CipherState) [][]byte { return [][]byte{{0, 3, 1, 2, 3}} }, hasText("shorter than the 16-byte tag")},
		{"altered end marker", func(cs *noise.CipherState) [][]byte { return [][]byte{enc(cs, "hi"), flip(enc(cs, ""), 5)} }, isAuth},
		{"data after the end marker", func(cs *noise.CipherState) [][]byte { return [][]byte{enc(cs, "hi"), enc(cs, ""), enc(cs, "more")} }, isEOF},
		{"end marker", func(cs *noise.CipherState) [][]byte { return [][]byte{enc(cs, "hi"), enc(cs, "")} }, isEOF},
	} {
		t.Run(c.name, func(t *testing.T) {
			srv, raw, send, _ := serverWithRawClient(t)
			go func() {
				for _, f := range c.frames(send) {
					raw.Write(f)
				}
				raw.Close()
			}()
			err := readErr(srv)
			if !c.check(err) || (err != io.EOF && !strings.HasPrefix(err.Error(), "noise: ")) {
				t.Fatalf("%v", err)
			}
			if _, err2 := srv.Read(make([]byte, 1)); err2 != err {
				t.Errorf("the error did not stay: %v, then %v", err, err2)
			}
		})
	}
	// Deadlines: a Read that times out may be retried.
	srv, raw, send, _ := serverWithRawClient(t)
	srv.SetReadDeadline(time.Now().Add(20 * time.Millisecond))
	if _, err := srv.Read(make([]byte, 1)); !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("Read past the deadline: %v", err)
	}
	srv.SetReadDeadline(time.Time{})
	go raw.Write(enc(send, "late"))
	buf := make([]byte, 10)
	if n, err := srv.Read(buf); err != nil || string(buf[:n]) != "late" {
		t.Fatalf("Read after the deadline: %q, %v", buf[:n], err)
	}
	// Close unblocks a Read.
	rerr := serve(func() error { _, err := srv.Read(buf); return err })
	time.Sleep(10 * time.Millisecond)
	srv.Close()
	if err := <-rerr; !errors.Is(err, net.ErrClosed) && !errors.Is(err, io.ErrClosedPipe) {
		t.Errorf("Read during Close: %v", err)
	}
	if _, err := srv.Write([]byte("x")); err == nil {
		t.Error("Write after Close")
	}
}

// TestConnHandshakeTampered alters each handshake message a raw client
// sends: the server's handshake fails with a clear error.
func TestConnHandshakeTampered(t *testing.T) {
	leaktest.Check(t)
	p := protocol(t, noise.PQXX, "ML-KEM-512")
	ccfg, scfg := connConfigs(t, p)
	hc := &noise.HandshakeConfig{Protocol: p, Initiator: true, Prologue: ccfg.Prologue, StaticKey: ccfg.StaticKey}
	for _, i := range []int{0, 2} {
		for _, at := range []int{2, 100, -1} {
			a, b := pipe(t)
			serr := serve(func() error { defer b.Close(); return noise.Server(b, scfg).Handshake() })
			rawPeer(a, hc, func(j int, f []byte) []byte {
				if j == i {
					k := at
					if k < 0 {
						k = len(f) - 1
					}
					f[k] ^= 1
				}
				return f
			})
			a.Close()
			if err := <-serr; err == nil || !strings.HasPrefix(err.Error(), "noise: ") {
				t.Errorf("message %d altered at %d: %v", i, at, err)
			}
		}
	}
}

func isAuth(err error) bool { return errors.Is(err, noise.ErrAuthentication) }

func hasText(s string) func(error) bool {
	return func(err error) bool { return err != nil && strings.Contains(err.Error(), s) }
}

// TestConnConfigErrors: Listen and Dial refuse a Config that cannot work.
func TestConnConfigErrors(t *testing.T) {
	p := protocol(t, noise.PQNK, "ML-KEM-768")
	if _, err := noise.Listen("tcp", "127.0.0.1:0", &noise.Config{Protocol: p}); err == nil || !strings.Contains(err.Error(), "needs a static key") {
		t.Errorf("Listen without a static key: %v", err)
	}
	if _, err := noise.Dial("tcp", "127.0.0.1:1", &noise.Config{Protocol: p}); err == nil || !strings.Contains(err.Error(), "needs a remote static key") {
		t.Errorf("Dial without the server's key: %v", err)
	}
	_, sr := keysOf(t, p.KEM)
	if _, err := noise.Listen("tcp", "127.0.0.1:0", &noise.Config{Protocol: p, StaticKey: sr, VerifyPeerStaticKey: noise.AllowPeers()}); err == nil || !strings.Contains(err.Error(), "the client has no static key in pqNK") {
		t.Errorf("Listen with a client list in pqNK: %v", err)
	}
	if _, err := noise.Dial("tcp", "127.0.0.1:1", nil); err == nil || !strings.HasPrefix(err.Error(), "noise: ") {
		t.Errorf("Dial with a nil Config: %v", err)
	}
}

// TestConnKeyFiles runs pqIK with static keys that went through package
// keyfile's PEM encodings, as a command reads them.
func TestConnKeyFiles(t *testing.T) {
	leaktest.Check(t)
	p := protocol(t, noise.PQIK, "X25519MLKEM768")
	reread := func(dk kem.DecapsulationKey) (kem.DecapsulationKey, kem.EncapsulationKey) {
		priv, err := keyfile.EncodePrivateKey(dk, keyfile.PEM)
		if err != nil {
			t.Fatal(err)
		}
		pub, err := keyfile.EncodePublicKey(dk.EncapsulationKey(), keyfile.PEM)
		if err != nil {
			t.Fatal(err)
		}
		k, err := keyfile.DecodePrivateKey(priv, nil)
		if err != nil {
			t.Fatal(err)
		}
		e, err := keyfile.DecodePublicKey(pub, nil)
		if err != nil {
			t.Fatal(err)
		}
		return k.Key, e.Key
	}
	si, sr := keysOf(t, p.KEM)
	clientKey, clientPub := reread(si)
	serverKey, serverPub := reread(sr)
	ccfg := &noise.Config{Protocol: p, StaticKey: clientKey, PeerStaticKey: serverPub}
	scfg := &noise.Config{Protocol: p, StaticKey: serverKey, VerifyPeerStaticKey: noise.AllowPeers(clientPub)}
	a, b := pipe(t)
	serr := serve(func() error { return noise.Server(b, scfg).Handshake() })
	if err := noise.Client(a, ccfg).Handshake(); err != nil {
		t.Fatal(err)
	}
	if err := <-serr; err != nil {
		t.Fatal(err)
	}
}

func isTruncated(err error) bool {
	return errors.Is(err, noise.ErrTruncated) && errors.Is(err, io.ErrUnexpectedEOF)
}

func isEOF(err error) bool { return err == io.EOF }
