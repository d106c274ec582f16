package noise_test

import (
	"crypto/ecdh"
	"crypto/rand"
	"io"
	"net"
	"testing"

	"github.com/pqkem/pqkem/noise"
)

// BenchmarkHandshake runs pqNK handshakes in memory, both sides.
func BenchmarkHandshake(b *testing.B) {
	for _, name := range []string{"ML-KEM-768", "X25519MLKEM768", "FrodoKEM-640-AES"} {
		p := protocol(b, noise.PQNK, name)
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				init, resp := newPair(b, p)
				if err := handshake(init, resp, nil, nil); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkHandshakeVZEROUPPER runs pqXX ML-KEM-768 ChaChaPoly/SHA256
// handshakes in memory with and without the VZEROUPPER after Open (see
// internal/vzeroupper): the two skem ciphertexts are 1,088-byte
// plaintexts, which leave x/crypto's amd64 Open with a dirty AVX state.
// The difference shows on Intel CPUs, not on AMD Zen.
func BenchmarkHandshakeVZEROUPPER(b *testing.B) {
	p := protocol(b, noise.PQXX, "ML-KEM-768")
	p.Cipher, p.Hash = noise.ChaChaPoly, noise.SHA256
	for _, on := range []bool{false, true} {
		name := "without"
		if on {
			name = "with"
		}
		b.Run(name, func(b *testing.B) {
			defer noise.SetClearUpperAfterOpen(on)()
			for b.Loop() {
				init, resp := newPair(b, p)
				if err := handshake(init, resp, nil, nil); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkHandshakeExt runs in-memory handshakes of Clatter's extensions
// beside the plain patterns they extend: pqNK with a FrodoKEM-640-AES static
// key and an ML-KEM-768 ephemeral key, pqXX with ML-KEM-768 against
// pqXXpsk3, and pqNN and pqXX against hybridNN and hybridXX (which add two
// and four X25519 operations a side: BenchmarkX25519 times them).
func BenchmarkHandshakeExt(b *testing.B) {
	split := protocol(b, noise.PQNK, "FrodoKEM-640-AES")
	split.EphemeralKEM = protocol(b, noise.PQNK, "ML-KEM-768").KEM
	for _, p := range []noise.Protocol{
		split,
		protocol(b, noise.PQNN, "ML-KEM-768"),
		protocol(b, noise.HybridNN, "ML-KEM-768"),
		protocol(b, noise.PQXX, "ML-KEM-768"),
		protocol(b, noise.PQXX.WithPSK(3), "ML-KEM-768"),
		protocol(b, noise.HybridXX, "ML-KEM-768"),
	} {
		b.Run(p.String(), func(b *testing.B) {
			for b.Loop() {
				init, resp := newPair(b, p)
				if err := handshake(init, resp, nil, nil); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkX25519 measures the X25519 operations of the hybrid patterns,
// to set against their cost over the PQ ones: a key pair, and a shared
// secret.
func BenchmarkX25519(b *testing.B) {
	priv, err := ecdh.X25519().GenerateKey(rand.Reader)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("GenerateKey", func(b *testing.B) {
		for b.Loop() {
			if _, err := ecdh.X25519().GenerateKey(rand.Reader); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("ECDH", func(b *testing.B) {
		for b.Loop() {
			if _, err := priv.ECDH(priv.PublicKey()); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkConnWrite measures one direction of a Conn over TCP loopback.
func BenchmarkConnWrite(b *testing.B) {
	for _, c := range []noise.Cipher{noise.ChaChaPoly, noise.AESGCM} {
		p := protocol(b, noise.PQNK, "ML-KEM-768")
		p.Cipher = c
		b.Run(c.String(), func(b *testing.B) { benchmarkConnWrite(b, p) })
	}
}

func benchmarkConnWrite(b *testing.B, p noise.Protocol) {
	ccfg, scfg := connConfigs(b, p)
	l, err := noise.Listen("tcp", "127.0.0.1:0", scfg)
	if err != nil {
		b.Fatal(err)
	}
	done := serveConns(l, func(c net.Conn) { io.Copy(io.Discard, c) })
	defer func() { l.Close(); <-done }()
	c, err := noise.Dial("tcp", l.Addr().String(), ccfg)
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	buf := make([]byte, 1<<20)
	b.SetBytes(int64(len(buf)))
	for b.Loop() {
		if _, err := c.Write(buf); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkConnHandshake runs pqNK handshakes of two Conns over net.Pipe,
// each ended by the client's first byte of data (with its confirmation),
// as a server and its clients do (AESGCM, SHA256, one Config for every
// connection, so the static keys are precomputed), with the heap both
// sides allocate.
func BenchmarkConnHandshake(b *testing.B) {
	for _, name := range []string{"ML-KEM-768", "FrodoKEM-640-AES"} {
		p := protocol(b, noise.PQNK, name)
		p.Cipher, p.Hash = noise.AESGCM, noise.SHA256
		ccfg, scfg := connConfigs(b, p)
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				a, c := net.Pipe()
				srv := noise.Server(c, scfg)
				done := make(chan error, 1)
				go func() {
					// The client's first data carries its confirmation,
					// which ends the server's handshake.
					_, err := srv.Read(make([]byte, 1))
					done <- err
				}()
				if _, err := noise.Client(a, ccfg).Write([]byte{1}); err != nil {
					b.Fatal(err)
				}
				if err := <-done; err != nil {
					b.Fatal(err)
				}
				a.Close()
				c.Close()
			}
		})
	}
}
