package pake

import (
	"bytes"
	"crypto/rand"
	"flag"
	"math"
	"os"
	"slices"
	"testing"
	"time"
)

// The timing test, in the style of dudect (Reparaz, Balasch, Verbauwhede,
// "Dude, is my code constant time?", 2017): time an operation on inputs
// from two classes, interleaved in random order, and compare the two
// distributions of running times with Welch's t-test, on the raw times and
// on the times below several percentiles (which removes the long tail that
// interrupts and other processes add). |t| above 4.5 suggests a
// dependence on the class; dudect takes |t| > 10 as a clear leak.
//
// It runs only when asked, being slow and sensitive to machine noise, with
// the -timing flag of the test binary or PQKEM_TIMING=1:
//
//	go test -run TestTiming -v ./pake -timing
//	cd pake && go test -run TestTiming -timing -timing-n=200000 -v
//	PQKEM_TIMING=1 go test -run TestTiming -v ./pake
//
// (go test takes the package list only before the first flag it does not
// know, so "go test -timing ./pake" would pass ./pake to the test binary.)
//
// Classes: for the samplers, a fixed seed against random seeds (the fixed
// one chosen so that A0 reads far more than the average); for Respond, a
// fixed password against random passwords, on one fixed msg1. A0, which is
// variable time, runs as the positive control: the test must see it.
var (
	timingFlag      = flag.Bool("timing", false, "run the dudect-style timing test (TestTiming)")
	timingN         = flag.Int("timing-n", 100000, "TestTiming: measurements per sampler (Respond: a fifth)")
	timingThreshold = flag.Float64("timing-threshold", 10, "TestTiming: fail if a constant-time target shows |t| above this")
)

// welch returns Welch's t statistic of two samples.
func welch(a, b []float64) float64 {
	mean := func(x []float64) (m, v float64) {
		for _, y := range x {
			m += y
		}
		m /= float64(len(x))
		for _, y := range x {
			v += (y - m) * (y - m)
		}
		return m, v / float64(len(x)-1)
	}
	ma, va := mean(a)
	mb, vb := mean(b)
	return (ma - mb) / math.Sqrt(va/float64(len(a))+vb/float64(len(b)))
}

// maxT returns the largest |t| over the raw times and the times cropped
// at several percentiles of the pooled distribution, and the raw |t|.
func maxT(times [2][]float64) (maxAbs, raw float64) {
	pooled := slices.Concat(times[0], times[1])
	slices.Sort(pooled)
	raw = math.Abs(welch(times[0], times[1]))
	maxAbs = raw
	for _, p := range []float64{0.5, 0.75, 0.9, 0.95, 0.99} {
		cut := pooled[int(p*float64(len(pooled)-1))]
		var c [2][]float64
		for k := range c {
			for _, x := range times[k] {
				if x <= cut {
					c[k] = append(c[k], x)
				}
			}
		}
		if len(c[0]) > 10 && len(c[1]) > 10 {
			maxAbs = max(maxAbs, math.Abs(welch(c[0], c[1])))
		}
	}
	return maxAbs, raw
}

// measure prepares the input of each of n measurements with
// prepare(class, i), the classes in random order, then runs op(i) on them
// after a warm-up and returns the times of each class. Both classes' inputs
// sit in the same arrays, so that memory effects fall on both alike.
func measure(n int, prepare func(class, i int), op func(i int)) [2][]float64 {
	classes := make([]byte, n)
	rand.Read(classes)
	for i := range n {
		prepare(int(classes[i]&1), i)
	}
	for i := range min(n, 1000) {
		op(i)
	}
	var times [2][]float64
	for i := range n {
		start := time.Now()
		op(i)
		d := time.Since(start)
		times[classes[i]&1] = append(times[classes[i]&1], float64(d.Nanoseconds()))
	}
	return times
}

// slowSeed finds a seed for which A0 reads many more XOF bytes than usual.
func slowSeed() [34]byte {
	var best [34]byte
	most := 0
	for range 3000 {
		var s [34]byte
		rand.Read(s[:])
		if c := a0Consumed(&s); c > most {
			best, most = s, c
		}
	}
	return best
}

func TestTiming(t *testing.T) {
	if !*timingFlag && os.Getenv("PQKEM_TIMING") != "1" {
		t.Skip("the timing test runs only with -timing or PQKEM_TIMING=1: go test -run TestTiming -v ./pake -timing")
	}
	n := *timingN
	fixed := slowSeed()
	t.Logf("fixed seed: A0 reads %d XOF bytes (the mean is about 472)", a0Consumed(&fixed))
	type result struct {
		name     string
		ct       bool
		tmax, tr float64
	}
	var results []result
	for _, smp := range []Sampler{A0, A1, B0, C1} {
		seeds := make([][34]byte, n)
		var out [256]uint16
		times := measure(n, func(class, i int) {
			if class == 0 {
				seeds[i] = fixed
			} else {
				rand.Read(seeds[i][:])
			}
		}, func(i int) { smp.Sample(&out, &seeds[i]) })
		tm, tr := maxT(times)
		results = append(results, result{"sampler " + smp.String(), smp.ConstantTime(), tm, tr})
	}

	nr := max(n/5, 1000)
	for _, name := range []string{"Tempo-C1-ML-KEM-768", "Tempo-A1-ML-KEM-768", "Tempo-B0-ML-KEM-512", "NoIC-C1-ML-KEM-768", "NoIC-A1-ML-KEM-768", "NoIC-B0-ML-KEM-1024", "NoIC-A0-ML-KEM-768", "Tempo-A0-ML-KEM-768"} {
		s, _ := SchemeByName(name)
		pw0, sid := randBytes(32), randBytes(32)
		_, msg1, _ := s.Start(pw0, sid)
		pws := make([][]byte, nr)
		times := measure(nr, func(class, i int) {
			if class == 0 {
				pws[i] = bytes.Clone(pw0)
			} else {
				pws[i] = randBytes(32)
			}
		}, func(i int) { s.Respond(pws[i], sid, msg1) })
		tm, tr := maxT(times)
		results = append(results, result{"Respond " + name, s.Sampler().ConstantTime(), tm, tr})
	}
	for _, r := range results {
		verdict := "ok"
		switch {
		case !r.ct && r.tmax > 4.5:
			verdict = "leak seen (positive control: variable time)"
		case !r.ct:
			verdict = "positive control NOT detected (too few measurements or too much noise)"
		case r.tmax > *timingThreshold:
			verdict = "LEAK?"
		case r.tmax > 4.5:
			verdict = "above 4.5: rerun on a quiet machine"
		}
		t.Logf("%-32s max |t| = %7.2f  (raw %6.2f)  %s", r.name, r.tmax, r.tr, verdict)
		if r.ct && r.tmax > *timingThreshold {
			t.Errorf("%s: max |t| = %.2f above %.1f", r.name, r.tmax, *timingThreshold)
		}
	}
}
