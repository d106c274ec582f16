package main

import (
	"flag"
	"fmt"
	"io"
	"math"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/pqkem/pqkem/internal/cli"
	"github.com/pqkem/pqkem/internal/dudect"
)

var cmdCT = &cli.Command{
	Name:    "ct",
	Summary: "test on this machine that secret-dependent operations run in constant time",
	Args:    "[-target PATTERNS] [-path avx2|generic|all] [-samples N] [-time DURATION] [-threshold T] [-json] [-list] [-md FILE]",
	Doc: `
Ct runs the dudect timing test (Reparaz, Balasch, Verbauwhede, "Dude, is
my code constant time?", 2017) on this machine: each target operation
runs on inputs of two classes, in a random interleaved order, and Welch's
t-test compares the two distributions of running times, raw, cropped at
100 percentiles and in second order. The table gives, for each target,
the measurements per class and the largest |t| of each run.

|t| below 4.5 is consistent with constant time at that many measurements;
|t| above 10 is a leak. A constant-time target at or above 4.5 is
measured a second time, and the |t| of both runs is shown: load from
other processes can cross the line once, a leak crosses it every time.
Quiet machines and more samples give stronger evidence: the usual bar is
10^6 measurements per class.

The targets (-list prints them): decapsulation of valid against tampered
ciphertexts for every scheme (ML-KEM, the hybrids, FrodoKEM; for the Frodo
paper's key exchange, whose keys serve one exchange, Alice1 on a fresh
key of valid against random ciphertexts, and its Alice0 and Bob on a fixed
against random secret randomness, which covers its sampler, hint and
rounding, reported but not asserted: one fixed input shows the data even
in constant-time code); the pake
samplers on inputs FIPS 203 SampleNTT reads few against many bytes for;
pake Respond with a fixed against random passwords; and controls: an A/A
test (the same inputs in both classes, the harness's noise floor) and,
on 1 KiB inputs, an early-exit compare and crypto/subtle's compare. The
positive controls (the early-exit compare and sampler A0, variable time
on purpose) must show |t| above 10: they show that the test can fail.
Each target runs on the AVX2 assembly and on the generic Go code where
the CPU has AVX2.

-samples sets the measurements per class for a target as costly as an
ML-KEM-768 decapsulation; cheaper targets get proportionally more (up to
10 times as many), dearer ones fewer (at least 1,000). -time stops a
target early, with fewer measurements. Progress goes to standard error.
-md FILE also writes the table to FILE as a Markdown document with the
machine, the Go version, pqkem's commit and the command line that
regenerates it (docs/ct-results.md is such a file).

The exit status is 1 if a constant-time target shows |t| above -threshold
on every run (both, where it ran twice), or a positive control does not
show a leak.`,
	Example: `
pqkem-bench ct -target ML-KEM-768
pqkem-bench ct -target ML-KEM,control -samples 1000000 -time 10m
pqkem-bench ct -list
pqkem-bench ct -json > ct.json
pqkem-bench ct -samples 1000000 -time 10m -md docs/ct-results.md`,
	New: func() cli.Runner { return new(ctCmd) },
}

// ctCmd is one run of pqkem-bench ct.
type ctCmd struct {
	target    string
	path      string
	samples   int
	limit     time.Duration
	threshold float64
	listOnly  bool
	outputFlags
}

func (c *ctCmd) Flags(fs *flag.FlagSet) {
	fs.StringVar(&c.target, "target", "all", "comma-separated `PATTERNS`: run the targets whose name (scheme/operation/path, see -list) contains one, ignoring case")
	fs.StringVar(&c.path, "path", "all", "the code `path` to measure: avx2, generic or all")
	fs.IntVar(&c.samples, "samples", 100000, "measurements per class for a target of cost 1 (ML-KEM-768 decapsulation), scaled by each target's cost")
	fs.DurationVar(&c.limit, "time", 30*time.Second, "stop each target after this long, with the measurements taken so far (0: no limit)")
	fs.Float64Var(&c.threshold, "threshold", dudect.LeakThreshold, "exit with status 1 if a constant-time target shows |t| above this on every run")
	fs.BoolVar(&c.listOnly, "list", false, "list the targets with their classes and do not measure")
	c.outputFlags.define(fs, true)
}

func (c *ctCmd) Run(out *cli.Output, args []string) error {
	if err := cli.NoArgs(args); err != nil {
		return err
	}
	if c.samples < 10 {
		return cli.Usagef("-samples must be at least 10, got %d", c.samples)
	}
	if c.limit < 0 {
		return cli.Usagef("-time must not be negative, got %v", c.limit)
	}
	if !(c.threshold > 0) {
		return cli.Usagef("-threshold must be positive, got %v", c.threshold)
	}
	switch c.path {
	case "all", pathAVX2, pathGeneric:
	default:
		return cli.Usagef("-path must be avx2, generic or all, got %q", c.path)
	}
	targets := selectTargets(allTargets(), c.target)
	if c.path != "all" {
		var kept []*target
		for _, t := range targets {
			if t.Path == c.path || t.Path == pathNone {
				kept = append(kept, t)
			}
		}
		targets = kept
	}
	if len(targets) == 0 {
		return cli.Usagef("no target matches -target %q -path %s; pqkem-bench ct -list shows them", c.target, c.path)
	}
	if c.listOnly {
		return listTargets(out.Stdout, targets, c.samples)
	}
	results := ctCheck(out.Stderr, targets, c.samples, c.limit, c.threshold)
	if err := c.write(out.Stdout, results,
		func(w io.Writer) { printCTResults(w, results) },
		"Constant-time measurements (dudect)",
		func(r *report) { mdCTResults(r, results, c.threshold) }); err != nil {
		return err
	}
	var failed []string
	for _, r := range results {
		if r.Failed {
			failed = append(failed, r.Target)
		}
	}
	if len(failed) > 0 {
		return fmt.Errorf("%d target(s) failed: %s", len(failed), strings.Join(failed, ", "))
	}
	return nil
}

// ctResult is one row of the table, and of the JSON output.
type ctResult struct {
	Target       string    `json:"target"`
	Scheme       string    `json:"scheme"`
	Operation    string    `json:"operation"`
	Path         string    `json:"path"`
	Classes      [2]string `json:"classes"`
	ConstantTime bool      `json:"constant_time"`
	FixedInput   bool      `json:"fixed_input"`
	Control      bool      `json:"positive_control"`
	Runs         []ctRun   `json:"runs"` // one, or two for a constant-time target whose first run crossed dudect.Threshold
	Unit         string    `json:"unit"`
	Seconds      float64   `json:"seconds"`
	Verdict      string    `json:"verdict"`
	Failed       bool      `json:"failed"`
	Error        string    `json:"error,omitempty"`
}

// ctRun is one run of a target.
type ctRun struct {
	Samples [2]int     `json:"samples"` // measurements per class
	T       float64    `json:"t"`       // largest |t|; -1 for too few measurements
	Test    string     `json:"test"`    // which test gave it
	RawT    float64    `json:"raw_t"`
	Median  [2]float64 `json:"median"`
}

func ctCheck(progress io.Writer, targets []*target, samples int, limit time.Duration, threshold float64) []ctResult {
	fmt.Fprintf(progress, "pqkem-bench ct: %d target(s), timer %s; pass line |t| < %.1f\n", len(targets), dudect.TimerUnit, dudect.Threshold)
	var results []ctResult
	for i, t := range targets {
		n := t.samples(samples)
		fmt.Fprintf(progress, "pqkem-bench ct: [%d/%d] %s, %d per class ... ", i+1, len(targets), t.name(), n)
		start := time.Now()
		runs, err := t.check(n, limit)
		r := ctResult{
			Target: t.name(), Scheme: t.Scheme, Operation: t.Operation, Path: t.Path,
			Classes: t.Classes, ConstantTime: t.ConstantTime, FixedInput: t.FixedInput, Control: t.Control,
			Unit: dudect.TimerUnit, Seconds: math.Round(time.Since(start).Seconds()*10) / 10,
		}
		if err != nil {
			r.Error, r.Verdict, r.Failed = err.Error(), "error", true
			fmt.Fprintf(progress, "error: %v\n", err)
			results = append(results, r)
			continue
		}
		r.Verdict, r.Failed = ctVerdict(t, runs, threshold)
		for _, res := range runs {
			run := ctRun{Samples: res.N, T: res.T, Test: res.Test, RawT: res.RawT, Median: res.Median}
			if math.IsNaN(run.T) { // JSON has no NaN
				run.T, run.RawT = -1, 0
			}
			r.Runs = append(r.Runs, run)
		}
		fmt.Fprintf(progress, "|t| = %s (%.1fs)\n", r.ts(), r.Seconds)
		results = append(results, r)
	}
	return results
}

// ctVerdict says what the runs of t show, and whether t failed: a
// positive control that shows no leak, or a constant-time target with
// |t| above threshold on every run.
func ctVerdict(t *target, runs []dudect.Result, threshold float64) (verdict string, failed bool) {
	switch first := runs[0]; {
	case t.Control && !(first.T > dudect.LeakThreshold):
		return "FAILED: positive control not detected", true
	case t.Control:
		return "leak, as it must (positive control)", false
	case !t.ConstantTime:
		return first.Verdict() + " (variable time, not asserted)", false
	case t.FixedInput:
		return first.Verdict() + " (a fixed input, not asserted)", false
	}
	var verdicts []string
	above := 0
	for _, r := range runs {
		verdicts = append(verdicts, r.Verdict())
		if r.T > threshold {
			above++
		}
	}
	verdict = strings.Join(verdicts, ", then ")
	if above == len(runs) {
		return fmt.Sprintf("FAILED: |t| above %g on every run: %s", threshold, verdict), true
	}
	return verdict, false
}

// ts is the |t| of each run, "6.21, then 3.05".
func (r *ctResult) ts() string {
	var ts []string
	for _, run := range r.Runs {
		ts = append(ts, fmt.Sprintf("%.2f", run.T))
	}
	return strings.Join(ts, ", then ")
}

// tests is the test that gave each run's |t|.
func (r *ctResult) tests() string {
	var ts []string
	for _, run := range r.Runs {
		ts = append(ts, run.Test)
	}
	return strings.Join(ts, ", then ")
}

// perClass is the fewest measurements of a class in the first run.
func (r *ctResult) perClass() string {
	if len(r.Runs) == 0 {
		return "-"
	}
	return fmt.Sprint(min(r.Runs[0].Samples[0], r.Runs[0].Samples[1]))
}

func printCTResults(w io.Writer, results []ctResult) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "SCHEME\tOPERATION\tPATH\tSAMPLES/CLASS\t|t| (EACH RUN)\tTEST\tVERDICT\n")
	for _, r := range results {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", r.Scheme, r.Operation, r.Path, r.perClass(), r.ts(), r.tests(), r.Verdict)
	}
	tw.Flush()
	fmt.Fprintf(w, "\n|t| < %.1f: no leak seen at that many measurements; above %d: a leak. A constant-time target\n", dudect.Threshold, dudect.LeakThreshold)
	fmt.Fprintf(w, "at or above %.1f runs twice; it fails if both runs are above the threshold.\n", dudect.Threshold)
}

func mdCTResults(rep *report, results []ctResult, threshold float64) {
	rep.para(fmt.Sprintf("Timer: %s. |t| below %.1f is consistent with constant time at that many measurements per class; "+
		"above %d it is a leak. A constant-time target whose first run gives |t| at or above %.1f runs a second time, "+
		"with fresh inputs and a fresh order, and both runs are shown; it fails if every run is above %g. "+
		"A positive control (variable time on purpose) must show |t| above %d.",
		dudect.TimerUnit, dudect.Threshold, dudect.LeakThreshold, dudect.Threshold, threshold, dudect.LeakThreshold))
	var rows [][]string
	for _, r := range results {
		t1, t2 := "", ""
		if len(r.Runs) > 0 {
			t1 = fmt.Sprintf("%.2f (%s)", r.Runs[0].T, r.Runs[0].Test)
		}
		if len(r.Runs) > 1 {
			t2 = fmt.Sprintf("%.2f (%s)", r.Runs[1].T, r.Runs[1].Test)
		}
		rows = append(rows, []string{r.Scheme, r.Operation, r.Path, r.perClass(), t1, t2, r.Verdict})
	}
	rep.table([]string{"scheme", "operation", "path", "measurements per class", "|t| run 1", "|t| run 2", "verdict"}, rows)
}

func listTargets(w io.Writer, targets []*target, samples int) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "TARGET\tSAMPLES/CLASS\tCLASS 0\tCLASS 1\tKIND\n")
	for _, t := range targets {
		kind := "constant time"
		switch {
		case t.Control:
			kind = "positive control (must leak)"
		case !t.ConstantTime:
			kind = "variable time (reported only)"
		case t.FixedInput:
			kind = "constant time, a fixed input (reported only)"
		}
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%s\n", t.name(), t.samples(samples), t.Classes[0], t.Classes[1], kind)
	}
	return tw.Flush()
}
