package tunnel

import (
	"sync"
	"time"

	"github.com/pqkem/pqkem/internal/ratelimit"
)

// failureLimit is the per-source limit of failed handshakes: each
// failure takes a token from its source's bucket, and a source whose
// bucket is empty has its new connections reset at accept for the time
// a token takes to come back. Successful handshakes take nothing, so a
// client that completes its handshakes is never limited, however often
// it connects; a source that floods the server with handshakes that
// cannot succeed (random bytes, replays, idle sockets, a wrong key) gets
// rate failed ones a second, after a burst.
type failureLimit struct {
	buckets *ratelimit.Buckets
	pause   time.Duration // how long an empty source stays blocked: a token's time
	maxKeys int

	mu      sync.Mutex
	blocked map[string]time.Time // until when each blocked source is
}

func newFailureLimit(rate float64, burst, maxKeys int) *failureLimit {
	return &failureLimit{
		buckets: ratelimit.NewBuckets(rate, burst, maxKeys),
		pause:   time.Duration(float64(time.Second) / rate),
		maxKeys: maxKeys,
		blocked: make(map[string]time.Time),
	}
}

// allow reports whether a new connection from source may start its
// handshake at now.
func (l *failureLimit) allow(source string, now time.Time) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	until, ok := l.blocked[source]
	if !ok {
		return true
	}
	if now.Before(until) {
		return false
	}
	delete(l.blocked, source)
	return true
}

// failed counts a failed handshake of source at now, and blocks source
// if it had no token left.
func (l *failureLimit) failed(source string, now time.Time) {
	if l.buckets.Allow(source, now) {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.blocked) >= l.maxKeys {
		for k, until := range l.blocked {
			if !now.Before(until) {
				delete(l.blocked, k)
			}
		}
		if len(l.blocked) >= l.maxKeys {
			// More sources blocked at once than the map may hold: start
			// over rather than grow (the buckets still hold their counts).
			clear(l.blocked)
		}
	}
	l.blocked[source] = now.Add(l.pause)
}
