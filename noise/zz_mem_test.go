package noise_test

import (
	"net"
	"testing"

	"github.com/pqkem/pqkem/noise"
)

func BenchmarkZZConnHandshake(b *testing.B) {
	p := protocol(b, noise.PQNK, "FrodoKEM-640-AES")
	p.Cipher, p.Hash = noise.AESGCM, noise.SHA256
	ccfg, scfg := connConfigs(b, p)
	b.ReportAllocs()
	for b.Loop() {
		a, c := net.Pipe()
		srv := noise.Server(c, scfg)
		done := make(chan error, 1)
		go func() { done <- srv.Handshake() }()
		if err := noise.Client(a, ccfg).Handshake(); err != nil {
			b.Fatal(err)
		}
		<-done
		a.Close()
		c.Close()
	}
}
