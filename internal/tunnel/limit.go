package tunnel

import (
	"time"

	"github.com/pqkem/pqkem/internal/ratelimit"
)

// buckets is the per-source rate limit of handshakes.
type buckets struct{ b *ratelimit.Buckets }

func newBuckets(rate float64, burst, keys int) *buckets {
	return &buckets{ratelimit.NewBuckets(rate, burst, keys)}
}

func (b *buckets) allow(key string, now time.Time) bool { return b.b.Allow(key, now) }
