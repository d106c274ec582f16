package metrics

import (
	"math"
	"slices"
	"sort"
	"strconv"
	"sync/atomic"
)

// A Histogram counts observations, such as handshake latencies in
// seconds, in buckets by upper bound, and keeps their sum.
type Histogram struct {
	desc
	// bounds are the buckets' upper bounds, increasing and finite; the
	// last bucket, +Inf, has none.
	bounds []float64
	// counts[i] counts the observations in bucket i alone (not
	// cumulative), with len(bounds)+1 buckets.
	counts []atomic.Uint64
	// sum holds the float64 bits of the sum of the observations.
	sum atomic.Uint64
}

// Histogram registers and returns a new histogram named name, with help
// text help and buckets with the upper bounds buckets. The bounds are
// sorted; duplicates, NaN and infinities are left out, and the bucket
// +Inf, which counts every observation, is always there. The histogram
// writes the series name_bucket, name_sum and name_count, whose names
// must be free too.
func (r *Registry) Histogram(name, help string, buckets []float64) *Histogram {
	var bounds []float64
	for _, b := range buckets {
		if !math.IsNaN(b) && !math.IsInf(b, 0) {
			bounds = append(bounds, b)
		}
	}
	slices.Sort(bounds)
	bounds = slices.Compact(bounds)
	h := &Histogram{
		desc:   desc{name, help, "histogram"},
		bounds: bounds,
		counts: make([]atomic.Uint64, len(bounds)+1),
	}
	r.register(h, h.desc, name+"_bucket", name+"_sum", name+"_count")
	return h
}

// Observe counts v in its bucket, the first whose upper bound is v or
// more, and adds it to the sum. A NaN counts in the +Inf bucket only (and
// makes the sum NaN).
func (h *Histogram) Observe(v float64) {
	i := sort.SearchFloat64s(h.bounds, v)
	if math.IsNaN(v) {
		i = len(h.bounds)
	}
	h.counts[i].Add(1)
	for {
		old := h.sum.Load()
		if h.sum.CompareAndSwap(old, math.Float64bits(math.Float64frombits(old)+v)) {
			return
		}
	}
}

func (h *Histogram) appendText(b []byte) []byte {
	b = appendHeader(b, h.desc)
	// The count is the sum of the buckets as they are read, so that it
	// equals the +Inf bucket's even while observations go on.
	var total uint64
	for i := range h.counts {
		total += h.counts[i].Load()
		b = append(b, h.name...)
		b = append(b, `_bucket{le="`...)
		if i < len(h.bounds) {
			b = appendFloat(b, h.bounds[i])
		} else {
			b = append(b, "+Inf"...)
		}
		b = append(b, `"} `...)
		b = strconv.AppendUint(b, total, 10)
		b = append(b, '\n')
	}
	b = append(b, h.name...)
	b = append(b, "_sum "...)
	b = appendFloat(b, math.Float64frombits(h.sum.Load()))
	b = append(b, '\n')
	b = append(b, h.name...)
	b = append(b, "_count "...)
	b = strconv.AppendUint(b, total, 10)
	return append(b, '\n')
}
