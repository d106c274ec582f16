package ratelimit

import (
	"math"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/pqkem/pqkem/internal/leaktest"
)

// t0 is the fake clock's start; at(s) is s seconds after it.
var t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

func at(s float64) time.Time { return t0.Add(time.Duration(s * float64(time.Second))) }

// step is one call of Allow and its expected result.
type step struct {
	key  string
	at   float64
	want bool
}

func TestBucketsAllow(t *testing.T) {
	tests := []struct {
		name           string
		rate           float64
		burst, maxKeys int
		steps          []step
	}{
		{"burst then refill", 2, 3, 10, []step{
			{"a", 0, true}, {"a", 0, true}, {"a", 0, true}, {"a", 0, false},
			{"a", 0.25, false}, // half a token
			{"a", 0.5, true}, {"a", 0.5, false},
			{"a", 1.5, true}, {"a", 1.5, true}, {"a", 1.5, false},
		}},
		{"refill stops at burst", 1, 2, 10, []step{
			{"a", 0, true}, {"a", 0, true}, {"a", 0, false},
			{"a", 1000, true}, {"a", 1000, true}, {"a", 1000, false},
		}},
		{"keys are independent", 1, 1, 10, []step{
			{"a", 0, true}, {"a", 0, false}, {"b", 0, true}, {"b", 0, false}, {"c", 0.5, true},
		}},
		{"time going backwards adds nothing", 1, 1, 10, []step{
			{"a", 10, true}, {"a", 0, false}, {"a", 10.5, false}, {"a", 11, true},
		}},
		{"no limit", 0, 1, 1, []step{{"a", 0, true}, {"a", 0, true}, {"b", 0, true}}},
		{"negative rate", -1, 0, 0, []step{{"a", 0, true}, {"a", 0, true}}},
		{"NaN rate", math.NaN(), 1, 1, []step{{"a", 0, true}, {"a", 0, true}}},
		{"infinite rate", math.Inf(1), 1, 1, []step{{"a", 0, true}, {"a", 0, true}}},
		{"burst below 1 is 1", 1, 0, 10, []step{{"a", 0, true}, {"a", 0, false}, {"a", 1, true}}},
		{"maxKeys below 1 is 1", 1, 1, -5, []step{{"a", 0, true}, {"a", 0, false}, {"b", 0, true}, {"a", 0, true}}},
		{"tiny rate", 1e-300, 1, 2, []step{{"a", 0, true}, {"a", 1e9, false}, {"b", 0, true}, {"c", 0, true}, {"a", 1e9, true}}},
		// maxKeys 2. a empties its bucket at 0 (full again at 2), b takes
		// one of its two tokens at 0.5 (full again at 1.5). At 1.6 c comes:
		// b, full again, makes room although a was used less recently, so
		// a is still limited: it has 1.6 tokens, not 2.
		{"a full bucket is dropped first", 1, 2, 2, []step{
			{"a", 0, true}, {"a", 0, true}, {"b", 0.5, true}, {"c", 1.6, true},
			{"a", 1.6, true}, {"a", 1.6, false},
		}},
		// No bucket is full at 0.2: a, used least recently, is dropped and
		// starts again with a full bucket, while b is still limited.
		{"else the least recently used", 1, 2, 2, []step{
			{"a", 0, true}, {"a", 0, true}, {"b", 0.1, true}, {"b", 0.1, true},
			{"c", 0.2, true},
			{"b", 0.2, false},
			{"a", 0.2, true}, {"a", 0.2, true}, {"a", 0.2, false},
		}},
		// Using a key makes it the most recent: b is dropped, not a.
		{"use moves a key to the front", 1, 1, 2, []step{
			{"a", 0, true}, {"b", 0.1, true}, {"a", 0.2, false}, {"c", 0.3, true},
			{"a", 0.4, false}, {"b", 0.4, true},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := NewBuckets(tt.rate, tt.burst, tt.maxKeys)
			for i, s := range tt.steps {
				if got := b.Allow(s.key, at(s.at)); got != s.want {
					t.Fatalf("step %d: Allow(%q, %v s) = %v, want %v", i, s.key, s.at, got, s.want)
				}
			}
		})
	}
}

func TestBucketsBounded(t *testing.T) {
	b := NewBuckets(1, 5, 100)
	for i := range 10000 {
		b.Allow(strconv.Itoa(i), at(float64(i%7)/10))
		if n := b.Len(); n > 100 {
			t.Fatalf("%d keys after %d calls, want at most 100", n, i+1)
		}
	}
	if len(b.keys) != b.lru.Len() || len(b.keys) != len(b.full) {
		t.Errorf("%d keys, %d in the LRU list, %d in the heap", len(b.keys), b.lru.Len(), len(b.full))
	}
	for i, k := range b.full {
		if k.index != i || b.keys[k.key] != k {
			t.Fatalf("heap entry %d: index %d, key %q", i, k.index, k.key)
		}
	}
}

func TestBucketsNil(t *testing.T) {
	var b *Buckets
	if !b.Allow("a", t0) || b.Len() != 0 {
		t.Error("a nil *Buckets does not allow everything")
	}
}

func TestBucketsConcurrent(t *testing.T) {
	leaktest.Check(t)
	const burst, workers, calls = 50, 8, 100
	b := NewBuckets(1, burst, 4)
	var allowed [3]atomic.Int64
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for i := range calls {
				k := (w + i) % 3
				if b.Allow(strconv.Itoa(k), t0) {
					allowed[k].Add(1)
				}
			}
		})
	}
	wg.Wait()
	// At one instant each key gets its burst and no more.
	for k := range allowed {
		if n := allowed[k].Load(); n != burst {
			t.Errorf("key %d: %d allowed, want %d", k, n, burst)
		}
	}
}

func TestBucketsAllocs(t *testing.T) {
	b := NewBuckets(1, 1, 10)
	b.Allow("a", t0)
	if n := testing.AllocsPerRun(100, func() { b.Allow("a", t0) }); n != 0 {
		t.Errorf("Allow of a known key allocates %v times, want 0", n)
	}
}
