package main

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"errors"
	"fmt"
	"io"
	"log"
	"math/big"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/pqkem/pqkem/kem"
	"github.com/pqkem/pqkem/noise"
)

// The -alg names of the two crypto/tls contenders.
const (
	tlsX25519Name     = "TLS-X25519"
	tlsX25519MLKEM768 = "TLS-X25519MLKEM768"
)

const (
	// frodoCCS2016Name is the Frodo paper's key exchange, which the
	// default contenders include when the registry has it.
	frodoCCS2016Name = "Frodo-CCS2016-Recommended"
	// pagesBulkNoiseKEM is the KEM of the Noise side of the bulk transfer.
	pagesBulkNoiseKEM = "ML-KEM-768"
	// pagesRequestTimeout bounds a request and a handshake.
	pagesRequestTimeout = 30 * time.Second
)

// defaultPageContenders are the contenders without -alg: crypto/tls with
// X25519 and with X25519MLKEM768, then pqNK over the registry's schemes,
// then pqNK with a FrodoKEM static key and an ML-KEM-768 ephemeral key;
// pqNN with the Frodo paper's own key exchange is added when the registry
// has it.
var defaultPageContenders = []string{
	tlsX25519Name, tlsX25519MLKEM768,
	"DHKEM-X25519-HKDF-SHA256",
	"ML-KEM-512", "ML-KEM-768", "ML-KEM-1024",
	"X-Wing", "X25519MLKEM768",
	"FrodoKEM-640-AES", "FrodoKEM-640-SHAKE",
	"FrodoKEM-976-AES", "FrodoKEM-976-SHAKE",
	"FrodoKEM-1344-AES", "FrodoKEM-1344-SHAKE",
	"FrodoKEM-640-AES+ML-KEM-768e", "FrodoKEM-976-AES+ML-KEM-768e", "FrodoKEM-1344-AES+ML-KEM-768e",
}

// A secureConn is the client or server side of a handshake over a
// stream: a *tls.Conn or a *noise.Conn.
type secureConn interface {
	net.Conn
	HandshakeContext(context.Context) error
}

// A security is one contender's way of securing a connection: crypto/tls
// with one key exchange, or one Noise protocol with its keys.
type security struct {
	label    string // the table's row label
	protocol string // what runs: a Noise protocol name, or TLS 1.3 and its group
	tls      bool
	suite    string // the TLS cipher suite, once a handshake has run

	tlsServer, tlsClient     *tls.Config
	noiseServer, noiseClient *noise.Config
}

// noteSuite adds to s.protocol the cipher suite that c, a connection
// whose handshake has completed, runs, if it is the first TLS connection.
func (s *security) noteSuite(c secureConn) {
	if tc, ok := c.(*tls.Conn); ok && s.suite == "" {
		s.suite = tls.CipherSuiteName(tc.ConnectionState().CipherSuite)
		s.protocol += ", " + s.suite
	}
}

func (s *security) client(c net.Conn) secureConn {
	if s.tls {
		return tls.Client(c, s.tlsClient)
	}
	return noise.Client(c, s.noiseClient)
}

func (s *security) server(c net.Conn) secureConn {
	if s.tls {
		return tls.Server(c, s.tlsServer)
	}
	return noise.Server(c, s.noiseServer)
}

// listener wraps l so that Accept returns server sides: tls.NewListener
// or noise.NewListener, as a server built on either would use.
func (s *security) listener(l net.Listener) net.Listener {
	if s.tls {
		return tls.NewListener(l, s.tlsServer)
	}
	return noise.NewListener(l, s.noiseServer)
}

// newTLSSecurity returns crypto/tls TLS 1.3 with the one key exchange
// group, an ECDSA P-256 certificate and no session tickets, so that every
// connection runs a full handshake.
func newTLSSecurity(group tls.CurveID, cert *tlsCert) *security {
	return &security{
		label:    "TLS 1.3 " + group.String(),
		protocol: "TLS 1.3, " + group.String() + ", ECDSA P-256 certificate",
		tls:      true,
		tlsServer: &tls.Config{
			MinVersion:             tls.VersionTLS13,
			Certificates:           []tls.Certificate{cert.cert},
			CurvePreferences:       []tls.CurveID{group},
			SessionTicketsDisabled: true,
		},
		tlsClient: &tls.Config{
			MinVersion:             tls.VersionTLS13,
			RootCAs:                cert.pool,
			ServerName:             "localhost",
			CurvePreferences:       []tls.CurveID{group},
			SessionTicketsDisabled: true,
		},
	}
}

// newNoiseSecurity returns pqNK over s with a fresh server key, or for a
// scheme that is only safe for ephemeral keys, pqNN; AESGCM and SHA256
// in both, as TLS 1.3 runs AES-GCM and SHA-256. With ephemeral not nil,
// the ephemeral keys are of that KEM (noise's split KEMs).
func newNoiseSecurity(s, ephemeral kem.Scheme) (*security, error) {
	p := noise.Protocol{Pattern: noise.PQNK, KEM: s, Cipher: noise.AESGCM, Hash: noise.SHA256, EphemeralKEM: ephemeral}
	if kem.EphemeralOnly(s) {
		p.Pattern = noise.PQNN
	}
	server := &noise.Config{Protocol: p}
	client := &noise.Config{Protocol: p}
	if p.Pattern == noise.PQNK {
		dk, err := s.GenerateKey()
		if err != nil {
			return nil, fmt.Errorf("pages: %s: generating the server key: %w", s.Name(), err)
		}
		server.StaticKey = dk
		client.PeerStaticKey = dk.EncapsulationKey()
	}
	label := p.Pattern.String() + " " + s.Name()
	if ephemeral != nil {
		label += "+" + ephemeral.Name() + "e"
	}
	if p.Pattern == noise.PQNN {
		label += " (unauthenticated)"
	}
	return &security{label: label, protocol: p.String(), noiseServer: server, noiseClient: client}, nil
}

// tlsCert is a self-signed ECDSA P-256 certificate for localhost and
// 127.0.0.1, and the pool that trusts it.
type tlsCert struct {
	cert tls.Certificate
	pool *x509.CertPool
}

func newTLSCert() (*tlsCert, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: "pqkem-bench pages"},
		DNSNames:              []string{"localhost"},
		IPAddresses:           []net.IP{net.IPv4(127, 0, 0, 1)},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(24 * time.Hour),
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return nil, err
	}
	leaf, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, err
	}
	pool := x509.NewCertPool()
	pool.AddCert(leaf)
	return &tlsCert{tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key, Leaf: leaf}, pool}, nil
}

// pageContenders resolves the -alg names into securities, in order.
func pageContenders(names []string) ([]*security, error) {
	var cert *tlsCert
	var out []*security
	for _, name := range names {
		switch {
		case strings.EqualFold(name, tlsX25519Name), strings.EqualFold(name, tlsX25519MLKEM768):
			if cert == nil {
				var err error
				if cert, err = newTLSCert(); err != nil {
					return nil, fmt.Errorf("pages: generating the TLS certificate: %w", err)
				}
			}
			group := tls.X25519
			if strings.EqualFold(name, tlsX25519MLKEM768) {
				group = tls.X25519MLKEM768
			}
			out = append(out, newTLSSecurity(group, cert))
		default:
			s, e, err := parseNoiseContender(name)
			if err != nil {
				return nil, err
			}
			sec, err := newNoiseSecurity(s, e)
			if err != nil {
				return nil, err
			}
			out = append(out, sec)
		}
	}
	return out, nil
}

// parseNoiseContender parses a Noise contender's -alg name: a kem scheme
// name, or STATIC+EPHEMERALe ("FrodoKEM-640-AES+ML-KEM-768e") for a
// static key of one scheme and ephemeral keys of another.
func parseNoiseContender(name string) (static, ephemeral kem.Scheme, err error) {
	s, err := kem.ByName(name)
	if err == nil {
		return s, nil, nil
	}
	if pair, ok := strings.CutSuffix(name, "e"); ok {
		for i := range len(pair) {
			if pair[i] != '+' {
				continue
			}
			s, err1 := kem.ByName(pair[:i])
			e, err2 := kem.ByName(pair[i+1:])
			if err1 == nil && err2 == nil && !kem.EphemeralOnly(s) && s.Name() != e.Name() {
				return s, e, nil
			}
		}
	}
	return nil, nil, fmt.Errorf("pages: -alg: %w (or %s, %s, or STATIC+EPHEMERALe)", err, tlsX25519Name, tlsX25519MLKEM768)
}

// A pageServer is one contender's HTTP server on loopback and the client
// that fetches its pages, each request on a new connection.
type pageServer struct {
	sec    *security
	srv    *http.Server
	done   chan error
	client *http.Client
	base   string // "http://127.0.0.1:PORT/" or "https://..."
}

// startPageServer serves the pages, each at /SIZE, with net/http over
// sec's listener on a loopback port, and makes the client: for TLS,
// net/http's own TLS client; for Noise, a Transport whose DialContext is
// the Noise Dialer's. Keep-alives are off, so every request opens a new
// connection and runs one handshake.
func startPageServer(sec *security, pages map[int][]byte) (*pageServer, error) {
	mux := http.NewServeMux()
	for n, page := range pages {
		mux.HandleFunc("/"+strconv.Itoa(n), func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/octet-stream")
			w.Header().Set("Content-Length", strconv.Itoa(len(page)))
			w.Write(page)
		})
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("pages: %w", err)
	}
	ps := &pageServer{
		sec: sec,
		srv: &http.Server{
			Handler:           mux,
			ReadHeaderTimeout: pagesRequestTimeout,
			// A failed request shows on the client's side, which fails
			// the run; the server's log would only repeat it.
			ErrorLog: log.New(io.Discard, "", 0),
		},
		done: make(chan error, 1),
	}
	tr := &http.Transport{
		DisableKeepAlives:   true,
		MaxIdleConnsPerHost: -1,
		TLSHandshakeTimeout: pagesRequestTimeout,
	}
	if sec.tls {
		tr.TLSClientConfig = sec.tlsClient
		ps.base = "https://" + l.Addr().String() + "/"
	} else {
		d := &noise.Dialer{Config: sec.noiseClient}
		tr.DialContext = d.DialContext
		ps.base = "http://" + l.Addr().String() + "/"
	}
	ps.client = &http.Client{Transport: tr, Timeout: pagesRequestTimeout}
	go func() { ps.done <- ps.srv.Serve(sec.listener(l)) }()
	return ps, nil
}

// get fetches the page of n bytes on a new connection and checks it.
func (ps *pageServer) get(n int) error {
	resp, err := ps.client.Get(ps.base + strconv.Itoa(n))
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	got, err := io.Copy(io.Discard, resp.Body)
	switch {
	case err != nil:
		return err
	case resp.StatusCode != http.StatusOK:
		return fmt.Errorf("status %s", resp.Status)
	case got != int64(n):
		return fmt.Errorf("page of %d bytes, want %d", got, n)
	}
	return nil
}

func (ps *pageServer) close() error {
	ps.client.CloseIdleConnections()
	err := ps.srv.Close()
	if serr := <-ps.done; !errors.Is(serr, http.ErrServerClosed) {
		return serr
	}
	return err
}
