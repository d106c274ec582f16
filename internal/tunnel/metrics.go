package tunnel

import (
	"net/http"
	"time"

	"github.com/pqkem/pqkem/internal/metrics"
)

// The causes the metrics tell apart, as label values. A cause not listed
// counts as "other".
var (
	// HandshakeResults are the values of pqkem_tunnel_handshakes_total's
	// label result: "ok", or why the handshake failed.
	HandshakeResults = []string{"ok", "no-handshake", "timeout", "closed", "refused", "authentication", "protocol", "dropped", "busy", "shutdown", "failed"}
	// CloseResults are the values of pqkem_tunnel_connections_closed_total's
	// label result: "ok" for a connection whose two directions ended
	// cleanly, or the cause of its failure.
	CloseResults = []string{"ok", "idle", "shutdown", "tampered", "truncated", "reset", "timeout", "failed"}
)

// Metrics are a proxy's counters, served by [Metrics.Handler] in the
// Prometheus text format:
//
//	pqkem_tunnel_handshakes_open                 gauge: connections in their handshake
//	pqkem_tunnel_handshakes_total{result}        counter: handshakes ended, by result (HandshakeResults)
//	pqkem_tunnel_handshake_seconds               histogram: from the first bytes to the end of a successful handshake
//	pqkem_tunnel_rate_limited_total              counter: connections reset by the per-source rate of failed handshakes
//	pqkem_tunnel_dropped_total                   counter: handshakes dropped for newer connections
//	pqkem_tunnel_dial_failures_total             counter: failures to open the other end
//	pqkem_tunnel_connections_open                gauge: connections being forwarded
//	pqkem_tunnel_connections_total               counter: connections forwarded
//	pqkem_tunnel_connections_closed_total{result} counter: forwarded connections ended, by result (CloseResults)
//	pqkem_tunnel_bytes_total{direction}          counter: bytes forwarded, "up" from the accepted side, "down" to it
//
// Without a Handshake function (pqkem connect -listen, whose PQNoise
// handshake is part of opening the other end) no handshake counts as
// "ok", and a failed one counts among the dial failures.
//
// A nil *Metrics counts nothing.
type Metrics struct {
	reg          metrics.Registry
	hsOpen       *metrics.Gauge
	handshakes   *metrics.CounterVec
	hsSeconds    *metrics.Histogram
	rateLimitedN *metrics.Counter
	droppedN     *metrics.Counter
	dialFailures *metrics.Counter
	connsOpen    *metrics.Gauge
	connsTotal   *metrics.Counter
	connsClosed  *metrics.CounterVec
	bytesUp      *metrics.Counter
	bytesDown    *metrics.Counter
}

// NewMetrics returns a proxy's counters, all at zero.
func NewMetrics() *Metrics {
	m := new(Metrics)
	r := &m.reg
	m.hsOpen = r.Gauge("pqkem_tunnel_handshakes_open", "Connections in their handshake.")
	m.handshakes = r.CounterVec("pqkem_tunnel_handshakes_total", "Handshakes ended, by result: ok, or the cause of the failure.", "result", HandshakeResults...)
	m.hsSeconds = r.Histogram("pqkem_tunnel_handshake_seconds", "Time from a client's first bytes to the end of its successful handshake.",
		[]float64{0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10})
	m.rateLimitedN = r.Counter("pqkem_tunnel_rate_limited_total", "Connections reset at once: their address's failed handshakes were over -rate.")
	m.droppedN = r.Counter("pqkem_tunnel_dropped_total", "Handshakes dropped for newer connections (-max-handshakes or -max-per-source reached).")
	m.dialFailures = r.Counter("pqkem_tunnel_dial_failures_total", "Failures to connect to the other end once a handshake was complete.")
	m.connsOpen = r.Gauge("pqkem_tunnel_connections_open", "Connections being forwarded.")
	m.connsTotal = r.Counter("pqkem_tunnel_connections_total", "Connections forwarded since the start.")
	m.connsClosed = r.CounterVec("pqkem_tunnel_connections_closed_total", "Forwarded connections ended, by result: ok if both directions ended cleanly, or the cause of the failure.", "result", CloseResults...)
	bytes := r.CounterVec("pqkem_tunnel_bytes_total", "Bytes forwarded: up from the accepted connection, down to it.", "direction", "up", "down")
	m.bytesUp, m.bytesDown = bytes.With("up"), bytes.With("down")
	return m
}

// Handler serves GET /metrics and GET /healthz.
func (m *Metrics) Handler() http.Handler { return m.reg.Handler() }

func (m *Metrics) rateLimited() {
	if m != nil {
		m.rateLimitedN.Inc()
	}
}

func (m *Metrics) handshakeStarted() {
	if m != nil {
		m.hsOpen.Add(1)
	}
}

func (m *Metrics) handshakeEnded() {
	if m != nil {
		m.hsOpen.Add(-1)
	}
}

// handshake counts a handshake's result, and for "ok" its duration.
func (m *Metrics) handshake(result string, d time.Duration) {
	if m == nil {
		return
	}
	m.handshakes.With(result).Inc()
	switch result {
	case "ok":
		m.hsSeconds.Observe(d.Seconds())
	case "dropped":
		m.droppedN.Inc()
	}
}

func (m *Metrics) dialFailed() {
	if m != nil {
		m.dialFailures.Inc()
	}
}

func (m *Metrics) connOpened() {
	if m != nil {
		m.connsOpen.Add(1)
		m.connsTotal.Inc()
	}
}

func (m *Metrics) connClosed(result string) {
	if m != nil {
		m.connsOpen.Add(-1)
		m.connsClosed.With(result).Inc()
	}
}

// countBytes is Forward's OnBytes for the metrics.
func (m *Metrics) countBytes(up bool, n int) {
	if m == nil {
		return
	}
	if up {
		m.bytesUp.Add(uint64(n))
	} else {
		m.bytesDown.Add(uint64(n))
	}
}
