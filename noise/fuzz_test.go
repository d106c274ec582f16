package noise_test

import (
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/pqkem/pqkem/noise"
)

// FuzzReadMessage reads arbitrary bytes as the first message (by the
// responder) and as the second (by the initiator, after writing the
// first) of pqNN, pqNK, pqXX and pqIK, PSK variants, a split KEM pair and
// hybrid patterns: never a panic, and a message that is not the one
// written fails or, where nothing authenticates it yet, is read.
func FuzzReadMessage(f *testing.F) {
	split := protocol(f, noise.PQNK.WithPSK(2), "ML-KEM-768")
	split.EphemeralKEM = protocol(f, noise.PQNN, "ML-KEM-512").KEM
	protocols := []noise.Protocol{
		protocol(f, noise.PQNN, "ML-KEM-512"),
		protocol(f, noise.PQNK, "ML-KEM-512"),
		protocol(f, noise.PQXX, "ML-KEM-512"),
		protocol(f, noise.PQIK, "ML-KEM-512"),
		protocol(f, noise.PQXX.WithPSK(3), "ML-KEM-512"),
		protocol(f, noise.PQNN.WithPSK(0), "ML-KEM-512"),
		split,
		protocol(f, noise.HybridNN, "ML-KEM-512"),
		protocol(f, noise.HybridIK.WithPSK(1), "ML-KEM-512"),
		protocol(f, noise.HybridXX, "ML-KEM-512"),
	}
	for i, p := range protocols {
		init, resp := newPair(f, p)
		m0, err := init.WriteMessage(nil, []byte("payload"))
		if err != nil {
			f.Fatal(err)
		}
		if _, err := resp.ReadMessage(nil, m0); err != nil {
			f.Fatal(err)
		}
		m1, err := resp.WriteMessage(nil, nil)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(uint8(i), false, m0)
		f.Add(uint8(i), true, m1)
		f.Add(uint8(i), false, m0[:len(m0)/2])
	}
	f.Fuzz(func(t *testing.T, which uint8, second bool, msg []byte) {
		p := protocols[int(which)%len(protocols)]
		init, resp := newPair(t, p)
		reader := resp
		if second {
			if _, err := init.WriteMessage(nil, nil); err != nil {
				t.Fatal(err)
			}
			reader = init
		}
		if _, err := reader.ReadMessage(nil, msg); err != nil {
			if _, err2 := reader.ReadMessage(nil, msg); err2 == nil {
				t.Fatal("a failed handshake read another message")
			}
		}
	})
}

// FuzzConnRead gives a server Conn, after a real handshake, arbitrary
// bytes as its transport stream: Read must end with an error
// (ErrTruncated for an empty stream), never a panic or a hang.
func FuzzConnRead(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte{0, 16, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16})
	f.Add([]byte{0xff, 0xff, 1})
	f.Add([]byte{0, 1, 0})
	f.Fuzz(func(t *testing.T, stream []byte) {
		srv, raw, _, _ := serverWithRawClient(t)
		go func() {
			raw.Write(stream)
			raw.Close()
		}()
		buf := make([]byte, 512)
		for {
			if _, err := srv.Read(buf); err != nil {
				if len(stream) == 0 && !errors.Is(err, noise.ErrTruncated) {
					t.Fatalf("empty stream: %v", err)
				}
				return
			}
		}
	})
}

// FuzzConnHandshake gives a client Conn (of pqNN, pqNNpsk2, hybridNN or
// hybridNKpsk2, by the stream's length) arbitrary bytes as the server's
// side of the handshake: it must fail, never panic or hang.
func FuzzConnHandshake(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte{0x04, 0x50, 1, 2, 3})
	f.Add(append([]byte{0x04, 0x50}, make([]byte, 0x450)...))
	var clients []*noise.Config
	for _, pat := range []noise.Pattern{noise.PQNN, noise.PQNN.WithPSK(2), noise.HybridNN, noise.HybridNK.WithPSK(2)} {
		ccfg, _ := connConfigs(f, protocol(f, pat, "ML-KEM-512"))
		clients = append(clients, ccfg)
	}
	f.Fuzz(func(t *testing.T, stream []byte) {
		ccfg := clients[len(stream)%len(clients)]
		a, b := pipe(t)
		go func() {
			go io.Copy(io.Discard, b)
			b.Write(stream)
			b.Close()
		}()
		if err := noise.Client(a, ccfg).Handshake(); err == nil {
			t.Fatal("a handshake with arbitrary bytes succeeded")
		}
	})
}

// FuzzParseProtocol parses arbitrary names: never a panic, and a name
// that parses is the protocol's String, so names round-trip exactly.
func FuzzParseProtocol(f *testing.F) {
	for _, name := range []string{
		"Noise_pqXX_MLKEM768_ChaChaPoly_SHA256",
		"Noise_pqXXpsk3_MLKEM768+MLKEM1024_ChaChaPoly_BLAKE2b",
		"Noise_hybridIKpsk1+psk2_25519+MLKEM768+FrodoKEM-640-AES_AESGCM_SHA512",
		"Noise_pqNKpsk0_MLKEM768_ChaChaPoly_SHA256",
		"Noise_pqNN_X25519MLKEM768+MLKEM768_AESGCM_BLAKE2s",
	} {
		f.Add(name)
	}
	f.Fuzz(func(t *testing.T, name string) {
		p, err := noise.ParseProtocol(name)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "noise: ") {
				t.Fatalf("error %q", err)
			}
			return
		}
		if p.String() != name {
			t.Fatalf("ParseProtocol(%q).String() = %q", name, p.String())
		}
	})
}
