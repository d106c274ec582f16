package tunnel

import "time"

type buckets struct{}

func newBuckets(rate float64, burst, keys int) *buckets { return &buckets{} }

func (b *buckets) allow(key string, now time.Time) bool { return true }
