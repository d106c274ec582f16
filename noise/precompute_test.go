package noise_test

import (
	"io"
	"sync/atomic"
	"testing"

	"github.com/pqkem/pqkem/internal/leaktest"
	"github.com/pqkem/pqkem/kem"
	"github.com/pqkem/pqkem/noise"
)

// countingDK and countingEK count their Precompute calls.
type countingDK struct {
	kem.DecapsulationKey
	n *atomic.Int32
}

func (k countingDK) Precompute() { k.n.Add(1) }

type countingEK struct {
	kem.EncapsulationKey
	n *atomic.Int32
}

func (k countingEK) Precompute() { k.n.Add(1) }

// A Conn precomputes the Config's static key and the peer's key known
// beforehand (kem.Precomputer), but not a peer key that is only pinned.
func TestConnPrecompute(t *testing.T) {
	leaktest.Check(t)
	for _, c := range []struct {
		pat                noise.Pattern
		clientPeer, server bool // whether the client's PeerStaticKey and the server's StaticKey are precomputed
	}{
		{noise.PQNK, true, true},
		{noise.PQXX, false, true}, // the client pins the server's key
		{noise.PQKK, true, true},
	} {
		p := protocol(t, c.pat, "ML-KEM-768")
		t.Run(p.String(), func(t *testing.T) {
			ccfg, scfg := connConfigs(t, p)
			var clientStatic, clientPeer, serverStatic, serverPeer atomic.Int32
			if ccfg.StaticKey != nil {
				ccfg.StaticKey = countingDK{ccfg.StaticKey, &clientStatic}
			}
			ccfg.PeerStaticKey = countingEK{ccfg.PeerStaticKey, &clientPeer}
			scfg.StaticKey = countingDK{scfg.StaticKey, &serverStatic}
			if scfg.PeerStaticKey != nil {
				scfg.PeerStaticKey = countingEK{scfg.PeerStaticKey, &serverPeer}
			}
			for range 2 {
				a, b := pipe(t)
				srv := noise.Server(b, scfg)
				serr := serve(func() error { return srv.Handshake() })
				if err := noise.Client(a, ccfg).Handshake(); err != nil {
					t.Fatal(err)
				}
				if err := <-serr; err != nil {
					t.Fatal(err)
				}
			}
			want := func(b bool) int32 {
				if b {
					return 2 // once a handshake; all but the first find it done
				}
				return 0
			}
			for _, k := range []struct {
				what string
				n    *atomic.Int32
				want int32
			}{
				{"client's StaticKey", &clientStatic, want(c.pat.NeedsStaticKey(true))},
				{"client's PeerStaticKey", &clientPeer, want(c.clientPeer)},
				{"server's StaticKey", &serverStatic, want(c.server)},
				{"server's PeerStaticKey", &serverPeer, want(c.pat.NeedsPeerStaticKey(false))},
			} {
				if got := k.n.Load(); got != k.want {
					t.Errorf("%s: Precompute called %d times, want %d", k.what, got, k.want)
				}
			}
		})
	}
}

// A FrodoKEM server key serves handshakes after the first has
// precomputed it, with FrodoKEM-640-SHAKE, whose A is the slowest to make.
func TestConnPrecomputedFrodo(t *testing.T) {
	leaktest.Check(t)
	p := protocol(t, noise.PQNK, "FrodoKEM-640-SHAKE")
	ccfg, scfg := connConfigs(t, p)
	for i := range 3 {
		a, b := pipe(t)
		srv := noise.Server(b, scfg)
		serr := serve(func() error {
			if _, err := io.Copy(srv, srv); err != nil {
				return err
			}
			return srv.Close()
		})
		c := noise.Client(a, ccfg)
		msg := []byte{'h', 'i', byte(i)}
		if _, err := c.Write(msg); err != nil {
			t.Fatal(err)
		}
		got := make([]byte, len(msg))
		if _, err := io.ReadFull(c, got); err != nil || string(got) != string(msg) {
			t.Fatalf("handshake %d: %q, %v", i, got, err)
		}
		c.Close()
		if err := <-serr; err != nil {
			t.Fatalf("handshake %d: server: %v", i, err)
		}
	}
}

// Listen and Dial precompute the Config's keys before any handshake.
func TestListenDialPrecompute(t *testing.T) {
	leaktest.Check(t)
	p := protocol(t, noise.PQNK, "ML-KEM-768")
	ccfg, scfg := connConfigs(t, p)
	var server, client atomic.Int32
	scfg.StaticKey = countingDK{scfg.StaticKey, &server}
	ccfg.PeerStaticKey = countingEK{ccfg.PeerStaticKey, &client}
	l, err := noise.Listen("tcp", "127.0.0.1:0", scfg)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if server.Load() != 1 {
		t.Errorf("Listen: the server's key precomputed %d times, want 1", server.Load())
	}
	go func() {
		c, err := l.Accept()
		if err == nil {
			c.Close()
		}
	}()
	d := noise.Dialer{Config: ccfg}
	c, err := d.Dial("tcp", l.Addr().String())
	if err == nil {
		c.Close()
	}
	if client.Load() < 1 {
		t.Error("Dial did not precompute the server's key")
	}
}
