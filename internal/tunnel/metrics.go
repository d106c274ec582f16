package tunnel

import (
	"net/http"
	"time"
)

// Metrics are a proxy's counters. A nil *Metrics counts nothing.
type Metrics struct{}

// NewMetrics returns a proxy's counters.
func NewMetrics() *Metrics { return &Metrics{} }

// Handler serves /metrics and /healthz.
func (m *Metrics) Handler() http.Handler { return http.NotFoundHandler() }

func (m *Metrics) rateLimited()                    {}
func (m *Metrics) handshakeStarted()               {}
func (m *Metrics) handshakeEnded()                 {}
func (m *Metrics) handshake(string, time.Duration) {}
func (m *Metrics) dialFailed()                     {}
func (m *Metrics) connOpened()                     {}
func (m *Metrics) connClosed(*Result)              {}
