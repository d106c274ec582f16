package dudect

import (
	"math"
	"math/rand/v2"
	"sort"
	"testing"
)

func TestWelch(t *testing.T) {
	// Means 2 and 5, variances 2.5 and 2.5, five values each:
	// t = -3 / sqrt(0.5 + 0.5) = -3.
	a := []float64{0, 1, 2, 3, 4}
	b := []float64{3, 4, 5, 6, 7}
	if got := Welch(a, b); math.Abs(got+3) > 1e-12 {
		t.Errorf("Welch = %v, want -3", got)
	}
	if got := Welch(b, a); math.Abs(got-3) > 1e-12 {
		t.Errorf("Welch = %v, want 3", got)
	}
	if got := Welch([]float64{1, 1}, []float64{1, 1}); got != 0 {
		t.Errorf("Welch of constant equal samples = %v, want 0", got)
	}
	if got := Welch([]float64{1}, b); !math.IsNaN(got) {
		t.Errorf("Welch of one value = %v, want NaN", got)
	}
	// Unequal sizes and variances: a = {1, 2, 3} (mean 2, var 1), b = {10,
	// 20, 30, 40} (mean 25, var 166.67): t = -23 / sqrt(1/3 + 41.667).
	want := -23 / math.Sqrt(1.0/3+500.0/3/4)
	if got := Welch([]float64{1, 2, 3}, []float64{10, 20, 30, 40}); math.Abs(got-want) > 1e-12 {
		t.Errorf("Welch = %v, want %v", got, want)
	}
}

func TestCrops(t *testing.T) {
	if len(Crops) != 100 || math.Abs(Crops[0]-(1-math.Pow(0.5, 0.1))) > 1e-15 || math.Abs(Crops[99]-(1-math.Pow(0.5, 10))) > 1e-15 {
		t.Fatalf("Crops = %v ... %v", Crops[0], Crops[len(Crops)-1])
	}
	for i := 1; i < len(Crops); i++ {
		if Crops[i] <= Crops[i-1] {
			t.Fatal("Crops are not increasing")
		}
	}
}

// noisy returns n draws of base plus heavy-tailed noise, as timings on a
// busy machine look: mostly small jitter, now and then a long stall.
func noisy(r *rand.Rand, n int, base float64) []float64 {
	x := make([]float64, n)
	for i := range x {
		x[i] = base + 20*r.NormFloat64()
		if r.IntN(50) == 0 {
			x[i] += 5000 * r.ExpFloat64()
		}
	}
	return x
}

// TestAnalyze checks the statistics on synthetic times: the same
// distribution stays below the line, a shift of a tenth of the jitter's
// standard deviation hidden under heavy-tailed noise is found by the
// cropped tests, and the cropped statistics agree with a direct
// computation.
func TestAnalyze(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	same := Analyze(Times{noisy(r, 200000, 1000), noisy(r, 200000, 1000)})
	if same.T >= Threshold {
		t.Errorf("equal distributions: %v", same)
	}
	shifted := Analyze(Times{noisy(r, 200000, 1000), noisy(r, 200000, 1002)})
	if shifted.T < LeakThreshold {
		t.Errorf("shifted distributions: %v", shifted)
	}
	if shifted.Test == "raw" {
		t.Errorf("the raw test found the shift under heavy-tailed noise, the cropped ones should do better: %v", shifted)
	}
	if same.N != [2]int{200000, 200000} {
		t.Errorf("N = %v", same.N)
	}

	// One crop recomputed by hand.
	times := Times{noisy(r, 5000, 1000), noisy(r, 5000, 1010)}
	res := Analyze(times)
	pooled := append(append([]float64{}, times[0]...), times[1]...)
	var best float64
	for _, p := range Crops {
		cut := quantile(pooled, p)
		var c [2][]float64
		for k := range 2 {
			for _, x := range times[k] {
				if x <= cut {
					c[k] = append(c[k], x)
				}
			}
		}
		if len(c[0]) >= MinPerClass && len(c[1]) >= MinPerClass {
			best = max(best, math.Abs(Welch(c[0], c[1])))
		}
	}
	best = max(best, math.Abs(Welch(times[0], times[1])))
	if res.Test != "second order" && math.Abs(res.T-best) > 1e-9*best {
		t.Errorf("Analyze: |t| = %v, direct computation %v", res.T, best)
	}
	if res.T < best-1e-9*best {
		t.Errorf("Analyze: |t| = %v below the largest first-order |t| %v", res.T, best)
	}
}

func quantile(x []float64, p float64) float64 {
	s := append([]float64{}, x...)
	sort.Float64s(s)
	return s[int(p*float64(len(s)-1))]
}

func TestMeasureOrder(t *testing.T) {
	var calls [2]int
	var seen [2]map[int]bool
	seen[0], seen[1] = map[int]bool{}, map[int]bool{}
	times := Measure(3000, func(class, r int) {
		if r < 0 {
			t.Fatalf("negative input index %d", r)
		}
		seen[class][r%256] = true
		calls[class]++
	})
	// Warm-up of 1000 per class, then 3000 per class.
	if calls != [2]int{4000, 4000} || len(times[0]) != 3000 || len(times[1]) != 3000 {
		t.Errorf("calls %v, times %d and %d", calls, len(times[0]), len(times[1]))
	}
	// 4000 random indices modulo 256 hit every value (all but with
	// probability about 256 e^-15.6).
	if len(seen[0]) != 256 || len(seen[1]) != 256 {
		t.Errorf("the random indices hit %d and %d of 256 values", len(seen[0]), len(seen[1]))
	}
	o := classOrder(newRand(), 1000)
	ones, runs := 0, 1
	for i, c := range o {
		ones += int(c)
		if i > 0 && c != o[i-1] {
			runs++
		}
	}
	// A random order of 1000 + 1000 has about 1000 runs (sd about 22).
	if ones != 1000 || runs < 850 || runs > 1150 {
		t.Errorf("class order: %d ones, %d runs", ones, runs)
	}
}

func TestNowAdvances(t *testing.T) {
	a := Now()
	x := 0
	for i := range 100000 {
		x += i
	}
	_ = x
	if b := Now(); b <= a {
		t.Errorf("Now went from %d to %d (%s)", a, b, TimerUnit)
	}
}
