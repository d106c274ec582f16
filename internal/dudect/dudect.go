// Package dudect is the statistics and the measurement loop of a
// dudect-style timing test (Reparaz, Balasch, Verbauwhede, "Dude, is my
// code constant time?", DATE 2017): an operation runs on inputs from two
// classes, in a random interleaved order, and Welch's t-test compares the
// two distributions of running times, raw and cropped at a range of
// percentiles (cropping removes the long upper tail that interrupts, page
// faults and other processes add), plus the second-order test on the
// centred squares. |t| above 4.5 suggests that the time depends on the
// class; dudect takes |t| above 10 as a clear leak.
//
// The one implementation of the method in pqkem: `pqkem-bench ct`
// (github.com/pqkem/pqkem/cmd/pqkem-bench) runs it over its list of
// targets, and the timing test of package pake uses it too. It depends on
// nothing in pqkem, so any package's tests can import it.
//
// Timestamps are the CPU's time-stamp counter on amd64 (see [Now]) and the
// monotonic clock elsewhere or with the purego tag.
//
// # Noise
//
// Timing on a shared machine is noisy, and the noise is not stationary:
// other processes come and go. The design keeps the noise from turning
// into a false |t|: the class of each measurement is drawn at random
// before the run, so load that changes over time falls on both classes
// alike and only inflates the variance (lowering |t|, never biasing it);
// the cropped tests discard the slow tail where interference lives; and
// [Measure] locks the goroutine to its thread and collects garbage before
// it starts. A |t| between 4.5 and 10 on a constant-time target is best
// answered by running again (pqkem-bench ct does, and reports both runs):
// a real leak comes back, a burst of noise does not.
package dudect

import (
	crand "crypto/rand"
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"time"
)

// Threshold is dudect's line: |t| below it is consistent with constant
// time at the number of measurements taken.
const Threshold = 4.5

// LeakThreshold is the |t| dudect calls a definite leak.
const LeakThreshold = 10

// Times holds the measured durations of each class, in TimerUnit.
type Times [2][]float64

// Measure runs op n times for each class, in a random order of the 2n
// calls, after a warm-up of min(n, 1000) calls per class, and returns the
// duration of each call by class. op(class, r) must do the class's work;
// r is a random non-negative int, drawn afresh for every call, with which
// op picks one of its prepared inputs (r % len(inputs)).
//
// The input must not be chosen by a per-class counter. Two classes that
// step through their inputs in lockstep couple the state they leave
// behind (cache lines, pages, TLB entries shared by input i of one class
// and input i of the other) to the random walk of the difference of the
// two counts, which turns into a slowly varying bias between the classes:
// with counters, an A/A test (the same inputs in both classes) of ML-KEM
// decapsulation gave |t| up to 23 here. Independent random choices leave
// no such coupling.
func Measure(n int, op func(class, r int)) Times {
	return MeasureWithin(n, 0, op)
}

// MeasureWithin is Measure that stops early, with fewer measurements, once
// limit has passed (limit 0: no limit). The classes stay balanced within a
// few measurements since their order is random.
func MeasureWithin(n int, limit time.Duration, op func(class, r int)) Times {
	var c, r int
	return MeasureSplit(n, limit, Split{
		Setup: func(class, rr int) { c, r = class, rr },
		Run:   func() { op(c, r) },
	})
}

// Split is an operation in two parts: Setup(class, r), which is not timed,
// and Run, which is. Setup should put the class's input where Run reads
// it, the same memory for both classes (copy it into one buffer), so that
// the classes differ in nothing but the contents: not in addresses, not in
// which inputs are in the cache.
type Split struct {
	Setup func(class, r int)
	Run   func()
}

// MeasureSplit is MeasureWithin for an operation with an untimed setup.
func MeasureSplit(n int, limit time.Duration, op Split) Times {
	r := newRand()
	order := classOrder(r, n)
	index := make([]int32, len(order))
	for i := range index {
		index[i] = int32(r.Uint32() >> 1)
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()

	for _, c := range classOrder(r, min(n, 1000)) {
		op.Setup(int(c), int(r.Uint32()>>1))
		op.Run()
	}
	runtime.GC()

	var times Times
	times[0] = make([]float64, 0, n)
	times[1] = make([]float64, 0, n)
	start := time.Now()
	for k, c := range order {
		if limit > 0 && k%64 == 0 && time.Since(start) > limit {
			break
		}
		op.Setup(int(c), int(index[k]))
		t0 := Now()
		op.Run()
		t1 := Now()
		times[c] = append(times[c], float64(t1-t0))
	}
	return times
}

func newRand() *rand.Rand {
	var seed [32]byte
	crand.Read(seed[:])
	return rand.New(rand.NewChaCha8(seed))
}

// classOrder returns n zeros and n ones in a random order.
func classOrder(r *rand.Rand, n int) []byte {
	order := make([]byte, 2*n)
	for i := n; i < 2*n; i++ {
		order[i] = 1
	}
	r.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
	return order
}

// Welch returns Welch's t statistic of two samples: the difference of the
// means over its standard error. It is NaN if either sample has fewer than
// two values, and 0 if both have no variance and equal means.
func Welch(a, b []float64) float64 {
	ma, va := meanVar(a)
	mb, vb := meanVar(b)
	return welchFrom(ma, va, len(a), mb, vb, len(b))
}

func welchFrom(ma, va float64, na int, mb, vb float64, nb int) float64 {
	if na < 2 || nb < 2 {
		return math.NaN()
	}
	se := math.Sqrt(va/float64(na) + vb/float64(nb))
	if se == 0 {
		if ma == mb {
			return 0
		}
		return math.Copysign(math.Inf(1), ma-mb)
	}
	return (ma - mb) / se
}

// meanVar returns the mean and the unbiased variance of x (Welford).
func meanVar(x []float64) (mean, variance float64) {
	var w welford
	for _, v := range x {
		w.add(v)
	}
	return w.mean, w.variance()
}

// Crops are the percentiles at which Analyze crops the pooled times:
// dudect's 1 - 0.5^(10 (i+1) / 100) for i < 100, from 6.7 % to 99.9 %.
var Crops = func() []float64 {
	p := make([]float64, 100)
	for i := range p {
		p[i] = 1 - math.Pow(0.5, 10*float64(i+1)/100)
	}
	return p
}()

// MinPerClass is the fewest measurements of each class that a cropped test
// needs for Analyze to count it.
const MinPerClass = 100

// Result is the outcome of Analyze.
type Result struct {
	N      [2]int     // measurements of each class
	T      float64    // the largest |t| over every test: dudect's statistic
	Test   string     // the test that gave T: "raw", "crop 93.8%" or "second order"
	RawT   float64    // t of the raw times (signed: class 0 slower is positive)
	Mean   [2]float64 // mean time of each class
	Median [2]float64 // median time of each class
}

// Verdict says what T means against Threshold and LeakThreshold.
func (r Result) Verdict() string {
	switch {
	case math.IsNaN(r.T):
		return "too few measurements"
	case r.T < Threshold:
		return "no leak seen"
	case r.T < LeakThreshold:
		return "possible leak (rerun on a quieter machine)"
	default:
		return "leak"
	}
}

func (r Result) String() string {
	return fmt.Sprintf("|t| = %.2f (%s; raw t = %.2f), n = %d + %d, medians %.0f and %.0f %s: %s",
		r.T, r.Test, r.RawT, r.N[0], r.N[1], r.Median[0], r.Median[1], TimerUnit, r.Verdict())
}

// Analyze runs the tests of dudect on times: Welch's t on the raw times,
// on the times at or below each of the Crops percentiles of the pooled
// times (where each class keeps at least MinPerClass values), and on the
// squared deviations from each class's mean (the second-order test). T is
// the largest |t|.
func Analyze(times Times) Result {
	var r Result
	var sorted [2][]float64
	for c := range 2 {
		r.N[c] = len(times[c])
		sorted[c] = slices.Clone(times[c])
		slices.Sort(sorted[c])
		if len(sorted[c]) > 0 {
			r.Median[c] = sorted[c][len(sorted[c])/2]
		}
	}
	if r.N[0] < 2 || r.N[1] < 2 {
		r.T, r.RawT, r.Test = math.NaN(), math.NaN(), "raw"
		return r
	}
	var mean, variance [2]float64
	for c := range 2 {
		mean[c], variance[c] = meanVar(times[c])
	}
	r.Mean = mean
	r.RawT = welchFrom(mean[0], variance[0], r.N[0], mean[1], variance[1], r.N[1])
	r.T, r.Test = math.Abs(r.RawT), "raw"

	// Cropped tests: the kept values of a class are a prefix of its sorted
	// times, and the cuts grow, so one Welford pass per class serves all.
	pooled := slices.Concat(sorted[0], sorted[1])
	slices.Sort(pooled)
	type stat struct {
		n       int
		mean, v float64
	}
	var prefix [2][]stat
	for c := range 2 {
		var w welford
		k := 0
		for _, p := range Crops {
			cut := pooled[int(p*float64(len(pooled)-1))]
			for k < len(sorted[c]) && sorted[c][k] <= cut {
				w.add(sorted[c][k])
				k++
			}
			prefix[c] = append(prefix[c], stat{w.n, w.mean, w.variance()})
		}
	}
	for i, p := range Crops {
		a, b := prefix[0][i], prefix[1][i]
		if a.n < MinPerClass || b.n < MinPerClass {
			continue
		}
		if t := math.Abs(welchFrom(a.mean, a.v, a.n, b.mean, b.v, b.n)); t > r.T {
			r.T, r.Test = t, fmt.Sprintf("crop %.1f%%", 100*p)
		}
	}

	// Second order: do the spreads differ?
	var sq [2][]float64
	for c := range 2 {
		sq[c] = make([]float64, len(times[c]))
		for i, x := range times[c] {
			sq[c][i] = (x - mean[c]) * (x - mean[c])
		}
	}
	if t := math.Abs(Welch(sq[0], sq[1])); t > r.T {
		r.T, r.Test = t, "second order"
	}
	return r
}

type welford struct {
	n        int
	mean, m2 float64
}

func (w *welford) add(x float64) {
	w.n++
	d := x - w.mean
	w.mean += d / float64(w.n)
	w.m2 += d * (x - w.mean)
}

func (w *welford) variance() float64 {
	if w.n < 2 {
		return 0
	}
	return w.m2 / float64(w.n-1)
}

// RandomBytes returns n bytes from crypto/rand, for preparing inputs.
func RandomBytes(n int) []byte {
	b := make([]byte, n)
	crand.Read(b)
	return b
}

// RandomIndex returns a uniformly random int in [0, n) from crypto/rand.
func RandomIndex(n int) int {
	var b [8]byte
	crand.Read(b[:])
	return int(binary.LittleEndian.Uint64(b[:]) % uint64(n))
}
