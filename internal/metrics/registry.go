// Package metrics counts what a server does and serves the counts in the
// Prometheus text exposition format, version 0.0.4, for a Prometheus
// server (or any scraper of the format) to collect: counters, counters
// by the value of one label, gauges and histograms, registered in a
// [Registry] and written by [Registry.WriteText] or served over HTTP by
// [Registry.Handler].
//
// Updating a metric is lock-free (sync/atomic) and allocates nothing, so
// that the hot paths of a server can count as they go.
package metrics

import (
	"fmt"
	"sync"
)

// A Registry holds metrics and writes them in the order in which they
// were registered. The zero value is an empty registry ready to use. It
// is safe for concurrent use.
//
// The registering methods panic if the name of the metric (or of its
// label) is not valid in the format or is already taken in the registry:
// the names are fixed in the program, so such a name is a programming
// error, as a second registration of a pattern is for [net/http.ServeMux].
type Registry struct {
	mu      sync.Mutex
	metrics []metric
	// names holds the names of the registered metrics and of the series
	// they write (a histogram's _bucket, _sum and _count).
	names map[string]bool
}

// A metric is a registered metric: it appends its HELP and TYPE lines
// and its samples in the text format.
type metric interface {
	appendText(b []byte) []byte
}

// desc is what every metric has: its name, its help text and its type
// ("counter", "gauge", "histogram").
type desc struct {
	name, help, typ string
}

// register adds m, named by d, after checking that d's name and the
// names of the series it writes are valid and not taken.
func (r *Registry) register(m metric, d desc, series ...string) {
	if !validName(d.name) {
		panic(fmt.Sprintf("metrics: invalid metric name %q", d.name))
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.names == nil {
		r.names = make(map[string]bool)
	}
	names := append([]string{d.name}, series...)
	for _, n := range names {
		if r.names[n] {
			panic(fmt.Sprintf("metrics: metric name %q registered twice", n))
		}
	}
	for _, n := range names {
		r.names[n] = true
	}
	r.metrics = append(r.metrics, m)
}

// validName reports whether name is a valid metric name:
// [a-zA-Z_:][a-zA-Z0-9_:]*.
func validName(name string) bool {
	if name == "" {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !(c == '_' || c == ':' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || i > 0 && '0' <= c && c <= '9') {
			return false
		}
	}
	return true
}

// validLabelName reports whether name is a valid label name for a
// [CounterVec]: [a-zA-Z_][a-zA-Z0-9_]*, not starting with "__", which the
// format keeps for its own use, and not "le", a histogram's.
func validLabelName(name string) bool {
	if name == "" || name == "le" || len(name) >= 2 && name[:2] == "__" {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !(c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || i > 0 && '0' <= c && c <= '9') {
			return false
		}
	}
	return true
}
