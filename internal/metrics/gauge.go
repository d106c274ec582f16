package metrics

import (
	"strconv"
	"sync/atomic"
)

// A Gauge is a number that goes up and down, such as the connections
// open now.
type Gauge struct {
	v atomic.Int64
}

// Add adds delta, which may be negative, to g.
func (g *Gauge) Add(delta int64) { g.v.Add(delta) }

// Set sets g to v.
func (g *Gauge) Set(v int64) { g.v.Store(v) }

// Load returns g's value.
func (g *Gauge) Load() int64 { return g.v.Load() }

// gauge is a registered [Gauge].
type gauge struct {
	desc
	Gauge
}

// Gauge registers and returns a new gauge named name, with help text
// help.
func (r *Registry) Gauge(name, help string) *Gauge {
	g := &gauge{desc: desc{name, help, "gauge"}}
	r.register(g, g.desc)
	return &g.Gauge
}

func (g *gauge) appendText(b []byte) []byte {
	b = appendHeader(b, g.desc)
	b = append(b, g.name...)
	b = append(b, ' ')
	b = strconv.AppendInt(b, g.Load(), 10)
	return append(b, '\n')
}
