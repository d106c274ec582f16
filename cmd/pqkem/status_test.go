package main

import (
	"bufio"
	"bytes"
	"io"
	"net"
	"net/http"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	proxyproto "github.com/pires/go-proxyproto"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/pqkem/pqkem/internal/leaktest"
)

var statusRE = regexp.MustCompile(`status on (\S+): `)

// proxyService reads the PROXY protocol v2 header of each connection
// with github.com/pires/go-proxyproto, sends its connection back as an
// echo, and passes on the headers.
func proxyService(t *testing.T) (string, <-chan *proxyproto.Header) {
	t.Helper()
	ln := listenLoopback(t)
	headers := make(chan *proxyproto.Header, 10)
	serveConns(t, ln, func(c net.Conn) {
		c.SetDeadline(time.Now().Add(10 * time.Second))
		r := bufio.NewReader(c)
		h, err := proxyproto.Read(r)
		if err != nil {
			t.Errorf("the service read no PROXY header: %v", err)
			return
		}
		headers <- h
		io.Copy(c, r)
		c.(*net.TCPConn).CloseWrite()
	})
	return ln.Addr().String(), headers
}

// TestTunnelStatusAndProxyProtocol runs serve in pqIK with -status and
// -proxy-protocol: the service gets the client's address and key
// fingerprint in a PROXY v2 header, and /metrics, parsed with the
// format's own parser, counts the connection, the refused handshake and
// the bytes.
func TestTunnelStatusAndProxyProtocol(t *testing.T) {
	leaktest.Check(t)
	dir := t.TempDir()
	tunnelKeys(t, dir, "ML-KEM-768", "server", "alice", "mallory")
	svc, headers := proxyService(t)
	srv := serveTunnel(t, dir, svc, "-allow", filepath.Join(dir, "alice.pub"), "-proxy-protocol", "-status", "127.0.0.1:0")
	waitLog(t, srv.log, "status on ")
	status := statusRE.FindStringSubmatch(srv.log.String())[1]

	code, stdout, stderr := connectStdin(t, []byte("hello"), "-pub", filepath.Join(dir, "server.pub"), "-key", filepath.Join(dir, "alice.pem"), "-to", srv.addr, "-quiet")
	if code != exitOK || stdout != "hello" {
		t.Fatalf("alice: exit status %d, %q; stderr:\n%s", code, stdout, stderr)
	}
	h := <-headers
	if src, ok := h.SourceAddr.(*net.TCPAddr); !ok || !src.IP.IsLoopback() {
		t.Errorf("the PROXY header's source is %v, want the client's loopback address", h.SourceAddr)
	}
	if dst, ok := h.DestinationAddr.(*net.TCPAddr); !ok || dst.String() != srv.addr {
		t.Errorf("the PROXY header's destination is %v, want %s", h.DestinationAddr, srv.addr)
	}
	tlvs, err := h.TLVs()
	if err != nil || len(tlvs) != 1 || tlvs[0].Type != 0xE0 {
		t.Fatalf("the PROXY header's TLVs: %+v, %v; want one of type 0xE0", tlvs, err)
	}
	fp := keyFingerprint(t, filepath.Join(dir, "alice.pub"))
	if got := "SHA256:" + hexString(tlvs[0].Value); got != fp {
		t.Errorf("the TLV holds %s, want alice's fingerprint %s", got, fp)
	}

	if code, _, _ := connectStdin(t, []byte("hello"), "-pub", filepath.Join(dir, "server.pub"), "-key", filepath.Join(dir, "mallory.pem"), "-to", srv.addr, "-quiet"); code != exitError {
		t.Errorf("mallory: exit status %d, want 1", code)
	}
	waitLog(t, srv.log, "refused: ")
	// alice's connection is counted as closed before its log line.
	waitLog(t, srv.log, "5 bytes from the client, 5 bytes from the service")

	resp, err := http.Get("http://" + status + "/healthz")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || string(body) != "ok\n" {
		t.Errorf("/healthz: %d %q", resp.StatusCode, body)
	}
	resp, err = http.Get("http://" + status + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	p := expfmt.NewTextParser(model.UTF8Validation)
	families, err := p.TextToMetricFamilies(resp.Body)
	if err != nil {
		t.Fatalf("/metrics does not parse: %v", err)
	}
	for _, want := range []struct {
		name, label string
		value       float64
	}{
		{"pqkem_tunnel_connections_total", "", 1},
		{"pqkem_tunnel_connections_open", "", 0},
		{"pqkem_tunnel_connections_closed_total", "ok", 1},
		{"pqkem_tunnel_handshakes_total", "ok", 1},
		{"pqkem_tunnel_handshakes_total", "refused", 1},
		{"pqkem_tunnel_bytes_total", "up", 5},
		{"pqkem_tunnel_bytes_total", "down", 5},
		{"pqkem_tunnel_rate_limited_total", "", 0},
		{"pqkem_tunnel_dropped_total", "", 0},
	} {
		if got, ok := metricValue(families[want.name], want.label); !ok || got != want.value {
			t.Errorf("%s{%s} = %v (found %v), want %v", want.name, want.label, got, ok, want.value)
		}
	}
	if hs := families["pqkem_tunnel_handshake_seconds"]; hs == nil || hs.GetMetric()[0].GetHistogram().GetSampleCount() != 1 {
		t.Errorf("pqkem_tunnel_handshake_seconds: %v, want one sample", hs)
	}
}

// metricValue returns the value of the sample of f whose label has the
// value label ("" for a metric without labels).
func metricValue(f *dto.MetricFamily, label string) (float64, bool) {
	if f == nil {
		return 0, false
	}
	for _, m := range f.GetMetric() {
		if label != "" && (len(m.GetLabel()) != 1 || m.GetLabel()[0].GetValue() != label) {
			continue
		}
		switch {
		case m.GetCounter() != nil:
			return m.GetCounter().GetValue(), true
		case m.GetGauge() != nil:
			return m.GetGauge().GetValue(), true
		}
	}
	return 0, false
}

func hexString(b []byte) string {
	const digits = "0123456789abcdef"
	var s bytes.Buffer
	for _, c := range b {
		s.WriteByte(digits[c>>4])
		s.WriteByte(digits[c&15])
	}
	return s.String()
}

// TestTunnelStatusUsage checks that -status must be a loopback address
// or a Unix socket.
func TestTunnelStatusUsage(t *testing.T) {
	dir := t.TempDir()
	tunnelKeys(t, dir, "ML-KEM-768", "server")
	code, _, stderr := pqkem(t, "serve", "-key", filepath.Join(dir, "server.pem"), "-listen", "127.0.0.1:0", "-to", "127.0.0.1:1", "-status", "0.0.0.0:9100")
	if code != exitUsage || !strings.Contains(stderr, "-status 0.0.0.0:9100: want a loopback") {
		t.Errorf("-status on all addresses: exit status %d, %q", code, stderr)
	}
}
