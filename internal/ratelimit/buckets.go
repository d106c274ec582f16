// Package ratelimit bounds how often something may happen: per-key token
// buckets ([Buckets]), for limiting what each source address may start,
// and a [Summary] of events by cause, for writing failures to a log at a
// bounded rate however many there are.
package ratelimit

import (
	"container/heap"
	"container/list"
	"math"
	"sync"
	"time"
)

// Buckets holds a token bucket for each key, such as a client's IP
// address: each bucket holds up to burst tokens and gains rate tokens a
// second, and [Buckets.Allow] takes one. A key seen for the first time
// starts with a full bucket.
//
// The number of buckets is bounded. When a new key comes and all the
// room is taken, a bucket that has filled up again is dropped, which
// changes nothing (a key seen again starts with a full bucket), and
// otherwise the one of the key used least recently, which forgets how
// much that key had used.
//
// Buckets is safe for concurrent use.
type Buckets struct {
	rate    float64 // tokens a second, > 0, or no limit
	burst   float64 // at least 1
	maxKeys int     // at least 1

	mu   sync.Mutex
	keys map[string]*bucket
	// lru orders the buckets by use, the most recent at the front.
	lru list.List
	// full orders the buckets by the time they are full again.
	full fullHeap
}

// bucket is the state of one key.
type bucket struct {
	key    string
	tokens float64
	// last is when tokens was last brought up to date.
	last time.Time
	// fullAt is when the bucket holds burst tokens again.
	fullAt time.Time
	// elem is the bucket's element in Buckets.lru, index its index in
	// Buckets.full.
	elem  *list.Element
	index int
}

// NewBuckets returns buckets that let each key take burst tokens at once
// and rate tokens a second after that, for at most maxKeys keys at a
// time. A rate of zero or less (or NaN or +Inf) means no limit: [Buckets.Allow]
// always reports true. A burst below 1 counts as 1, a maxKeys below 1
// as 1.
func NewBuckets(rate float64, burst int, maxKeys int) *Buckets {
	if !(rate > 0) || math.IsInf(rate, 1) {
		rate = 0
	}
	return &Buckets{
		rate:    rate,
		burst:   float64(max(burst, 1)),
		maxKeys: max(maxKeys, 1),
		keys:    make(map[string]*bucket),
	}
}

// Allow takes a token from key's bucket at time now and reports whether
// there was one. Time that goes backwards (a now before the one of an
// earlier call) adds no tokens. A nil *Buckets allows everything.
func (b *Buckets) Allow(key string, now time.Time) bool {
	if b == nil || b.rate == 0 {
		return true
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	k := b.keys[key]
	if k == nil {
		if len(b.keys) >= b.maxKeys {
			b.evict(now)
		}
		k = &bucket{key: key, tokens: b.burst, last: now}
		k.elem = b.lru.PushFront(k)
		b.keys[key] = k
		heap.Push(&b.full, k)
	} else {
		if elapsed := now.Sub(k.last); elapsed > 0 {
			k.tokens = min(b.burst, k.tokens+elapsed.Seconds()*b.rate)
			k.last = now
		}
		b.lru.MoveToFront(k.elem)
	}
	ok := k.tokens >= 1
	if ok {
		k.tokens--
	}
	k.fullAt = k.last.Add(b.refill(b.burst - k.tokens))
	heap.Fix(&b.full, k.index)
	return ok
}

// maxRefill bounds the time until a bucket is full, so that it fits a
// time.Duration whatever the rate.
const maxRefill = 100 * 365 * 24 * time.Hour

// refill returns how long the buckets take to gain tokens.
func (b *Buckets) refill(tokens float64) time.Duration {
	s := tokens / b.rate
	if !(s < maxRefill.Seconds()) {
		return maxRefill
	}
	return time.Duration(math.Ceil(s * float64(time.Second)))
}

// evict drops a bucket that is full again at now or, if there is none,
// the one used least recently.
func (b *Buckets) evict(now time.Time) {
	k := b.full[0]
	if k.fullAt.After(now) {
		k = b.lru.Back().Value.(*bucket)
	}
	b.lru.Remove(k.elem)
	heap.Remove(&b.full, k.index)
	delete(b.keys, k.key)
}

// Len returns the number of keys that have a bucket.
func (b *Buckets) Len() int {
	if b == nil {
		return 0
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	return len(b.keys)
}

// fullHeap is a min-heap of buckets by fullAt, for container/heap.
type fullHeap []*bucket

func (h fullHeap) Len() int           { return len(h) }
func (h fullHeap) Less(i, j int) bool { return h[i].fullAt.Before(h[j].fullAt) }
func (h fullHeap) Swap(i, j int) {
	h[i], h[j] = h[j], h[i]
	h[i].index = i
	h[j].index = j
}

func (h *fullHeap) Push(x any) {
	k := x.(*bucket)
	k.index = len(*h)
	*h = append(*h, k)
}

func (h *fullHeap) Pop() any {
	old := *h
	k := old[len(old)-1]
	old[len(old)-1] = nil
	*h = old[:len(old)-1]
	return k
}
