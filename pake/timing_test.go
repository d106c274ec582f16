package pake

import (
	"crypto/rand"
	"crypto/sha3"
	"flag"
	"math"
	"os"
	"testing"

	"github.com/pqkem/pqkem/internal/dudect"
)

// The timing test, in the style of dudect, with the statistics of
// internal/dudect (Reparaz, Balasch, Verbauwhede,
// "Dude, is my code constant time?", 2017): time an operation on inputs
// from two classes, interleaved in random order, and compare the two
// distributions of running times with Welch's t-test, on the raw times and
// on the times below dudect's percentiles (which removes the long tail that
// interrupts and other processes add), and on the squared deviations (the
// second-order test). |t| above 4.5 suggests a
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
// variable time, runs as the positive control: the test must see it. A
// calibration row runs crypto/sha3's SHAKE128 on the samplers' classes:
// constant-time code whose |t| shows how much this machine's timing
// depends on a fixed input's data alone (it is reported, never failed).
var (
	timingFlag      = flag.Bool("timing", false, "run the dudect-style timing test (TestTiming)")
	timingN         = flag.Int("timing-n", 100000, "TestTiming: measurements per sampler (Respond: a fifth)")
	timingThreshold = flag.Float64("timing-threshold", 10, "TestTiming: fail if a constant-time target shows |t| above this")
)

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
	// measureSeeds times run on the samplers' two classes of seeds. The
	// class's seed is copied into one buffer before the timer starts, so
	// the classes differ only in its contents. Both classes' Setup does
	// the same work, a copy from a random entry of a table of 4,096 (the
	// fixed class's table holds the fixed seed in every entry): copying
	// from one hot variable for one class and from a random place in a
	// 136 KiB table for the other evicts different cache lines before the
	// timed call, which gave the constant-time samplers |t| of 5 to 8.5 at
	// 200,000 samples.
	measureSeeds := func(run func(seed *[34]byte)) dudect.Result {
		var seed [34]byte
		var pools [2][][34]byte
		for c := range pools {
			pools[c] = make([][34]byte, 4096)
			for i := range pools[c] {
				if c == 0 {
					pools[c][i] = fixed
				} else {
					rand.Read(pools[c][i][:])
				}
			}
		}
		return dudect.Analyze(dudect.MeasureSplit(n, 0, dudect.Split{
			Setup: func(class, r int) {
				p := pools[class&1]
				seed = p[r%len(p)]
			},
			Run: func() { run(&seed) },
		}))
	}
	for _, smp := range []Sampler{a0VariableTime, A1, B0, C1} {
		var out [256]uint16
		res := measureSeeds(func(seed *[34]byte) { smp.Sample(&out, seed) })
		results = append(results, result{"sampler " + smp.String(), smp.ConstantTime(), res.T, math.Abs(res.RawT)})
	}

	// The calibration row: crypto/sha3's SHAKE128 squeezing C1's 6,144
	// bytes, code that is constant time beyond doubt, on the same classes.
	// On a machine whose timing depends on the data itself (through power
	// and clock frequency, say), a single fixed input shows up here too,
	// and the samplers' rows should be read against it.
	var buf [c1Bytes]byte
	res := measureSeeds(func(seed *[34]byte) {
		h := sha3.NewSHAKE128()
		h.Write(seed[:])
		h.Read(buf[:])
	})
	calibration := len(results) // the index of the calibration row
	results = append(results, result{"calibration: crypto/sha3 SHAKE128", true, res.T, math.Abs(res.RawT)})

	nr := max(n/5, 1000)
	for _, name := range []string{"Tempo-C1-ML-KEM-768", "Tempo-A1-ML-KEM-768", "Tempo-B0-ML-KEM-512", "NoIC-C1-ML-KEM-768", "NoIC-A1-ML-KEM-768", "NoIC-B0-ML-KEM-1024", "NoIC-A0-ML-KEM-768", "Tempo-A0-ML-KEM-768"} {
		s := schemeNamed(name)
		pw0, sid := randBytes(32), randBytes(32)
		_, msg1, _ := s.Start(pw0, sid)
		pw := make([]byte, 32)
		var pools [2][][]byte // as for the samplers: the same work for both classes
		for c := range pools {
			pools[c] = make([][]byte, 4096)
			for i := range pools[c] {
				if c == 0 {
					pools[c][i] = pw0
				} else {
					pools[c][i] = randBytes(32)
				}
			}
		}
		times := dudect.MeasureSplit(nr, 0, dudect.Split{
			Setup: func(class, r int) {
				p := pools[class&1]
				copy(pw, p[r%len(p)])
			},
			Run: func() { s.Respond(pw, sid, msg1) },
		})
		res := dudect.Analyze(times)
		results = append(results, result{"Respond " + name, s.Sampler().ConstantTime(), res.T, math.Abs(res.RawT)})
	}
	for i, r := range results {
		verdict := "ok"
		switch {
		case i == calibration:
			verdict = "calibration (constant-time library code: this machine's floor for a fixed input)"
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
		if r.ct && i != calibration && r.tmax > *timingThreshold {
			t.Errorf("%s: max |t| = %.2f above %.1f", r.name, r.tmax, *timingThreshold)
		}
	}
}
