package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math"
	"text/tabwriter"
	"time"

	"github.com/pqkem/pqkem/internal/cttargets"
	"github.com/pqkem/pqkem/internal/dudect"
)

func init() {
	register(&command{
		name:    "ct-check",
		summary: "test on this machine that secret-dependent operations run in constant time",
		args:    "[-target PATTERNS] [-path avx2|generic|all] [-samples N] [-time DURATION] [-threshold T] [-json] [-list]",
		doc: `
Ct-check runs the dudect timing test (Reparaz, Balasch, Verbauwhede,
"Dude, is my code constant time?", 2017) on this machine: each target
operation runs on inputs of two classes, in a random interleaved order,
and Welch's t-test compares the two distributions of running times, raw,
cropped at 100 percentiles and in second order. The table gives, for each
target, the measurements per class and the largest |t|.

|t| below 4.5 is consistent with constant time at that many measurements;
|t| above 10 is a leak. A constant-time target above 4.5 is measured a
second time (runs = 2) and the smaller |t| is shown: load from other
processes can cross the line once, a leak crosses it every time. Quiet
machines and more samples give stronger evidence: the usual bar is 10^6
measurements per class.

The targets (-list prints them): decapsulation of valid against tampered
ciphertexts for every scheme (ML-KEM, the hybrids, FrodoKEM); the pake
samplers on inputs FIPS 203 SampleNTT reads few against many bytes for;
pake Respond with a fixed against random passwords; and two controls on
1 KiB inputs, an early-exit compare and crypto/subtle's compare. The
positive controls (the early-exit compare and sampler A0, variable time
on purpose) must show |t| above 10: they show that the test can fail.
Each target runs on the AVX2 assembly and on the generic Go code where
the CPU has AVX2.

-samples sets the measurements per class for a target as costly as an
ML-KEM-768 decapsulation; cheaper targets get proportionally more (up to
10 times as many), dearer ones fewer (at least 1,000). -time stops a
target early, with fewer measurements. Progress goes to standard error.

The exit status is 1 if a constant-time target shows |t| above -threshold
on both runs, or a positive control does not show a leak.`,
		example: `
pqkem ct-check -target ML-KEM-768
pqkem ct-check -target ML-KEM,control -samples 1000000 -time 10m
pqkem ct-check -list
pqkem ct-check -json > ct.json`,
		setup: func(fs *flag.FlagSet) func(*output, []string) error {
			target := fs.String("target", "all", "comma-separated `PATTERNS`: run the targets whose name (scheme/operation/path, see -list) contains one, ignoring case")
			path := fs.String("path", "all", "the code `path` to measure: avx2, generic or all")
			samples := fs.Int("samples", 100000, "measurements per class for a target of cost 1 (ML-KEM-768 decapsulation), scaled by each target's cost")
			limit := fs.Duration("time", 30*time.Second, "stop each target after this long, with the measurements taken so far (0: no limit)")
			threshold := fs.Float64("threshold", dudect.LeakThreshold, "exit with status 1 if a constant-time target shows |t| above this on two runs")
			asJSON := fs.Bool("json", false, "print the results as JSON instead of a table")
			listOnly := fs.Bool("list", false, "list the targets with their classes and do not measure")
			return func(out *output, args []string) error {
				if err := noArgs(args); err != nil {
					return err
				}
				if *samples < 10 {
					return usagef("-samples must be at least 10, got %d", *samples)
				}
				if *limit < 0 {
					return usagef("-time must not be negative, got %v", *limit)
				}
				if !(*threshold > 0) {
					return usagef("-threshold must be positive, got %v", *threshold)
				}
				switch *path {
				case "all", cttargets.PathAVX2, cttargets.PathGeneric:
				default:
					return usagef("-path must be avx2, generic or all, got %q", *path)
				}
				targets := cttargets.Select(cttargets.All(), *target)
				if *path != "all" {
					var kept []*cttargets.Target
					for _, t := range targets {
						if t.Path == *path || t.Path == cttargets.PathNone {
							kept = append(kept, t)
						}
					}
					targets = kept
				}
				if len(targets) == 0 {
					return usagef("no target matches -target %q -path %s; pqkem ct-check -list shows them", *target, *path)
				}
				if *listOnly {
					return listTargets(out.stdout, targets, *samples)
				}
				results, failed := ctCheck(out.stderr, targets, *samples, *limit, *threshold)
				if *asJSON {
					enc := json.NewEncoder(out.stdout)
					enc.SetIndent("", "  ")
					if err := enc.Encode(results); err != nil {
						return err
					}
				} else {
					printCTResults(out.stdout, results)
				}
				if len(failed) > 0 {
					return fmt.Errorf("%d target(s) failed: %v", len(failed), failed)
				}
				return nil
			}
		},
	})
}

// ctResult is one row of the table, and of the JSON output.
type ctResult struct {
	Target       string     `json:"target"`
	Scheme       string     `json:"scheme"`
	Operation    string     `json:"operation"`
	Path         string     `json:"path"`
	Classes      [2]string  `json:"classes"`
	ConstantTime bool       `json:"constant_time"`
	Control      bool       `json:"positive_control"`
	Samples      [2]int     `json:"samples"` // measurements per class
	T            float64    `json:"t"`       // largest |t|
	Test         string     `json:"test"`    // which test gave it
	RawT         float64    `json:"raw_t"`
	Median       [2]float64 `json:"median"`
	Unit         string     `json:"unit"`
	Runs         int        `json:"runs"`
	Seconds      float64    `json:"seconds"`
	Verdict      string     `json:"verdict"`
	Error        string     `json:"error,omitempty"`
}

func ctCheck(progress io.Writer, targets []*cttargets.Target, samples int, limit time.Duration, threshold float64) (results []ctResult, failed []string) {
	fmt.Fprintf(progress, "ct-check: %d target(s), timer %s; pass line |t| < %.1f\n", len(targets), dudect.TimerUnit, dudect.Threshold)
	for i, t := range targets {
		n := t.Samples(samples)
		fmt.Fprintf(progress, "ct-check: [%d/%d] %s, %d per class ... ", i+1, len(targets), t.Name(), n)
		start := time.Now()
		res, runs, err := t.Check(n, limit)
		r := ctResult{
			Target: t.Name(), Scheme: t.Scheme, Operation: t.Operation, Path: t.Path,
			Classes: t.Classes, ConstantTime: t.ConstantTime, Control: t.Control,
			Samples: res.N, T: res.T, Test: res.Test, RawT: res.RawT, Median: res.Median,
			Unit: dudect.TimerUnit, Runs: runs, Seconds: math.Round(time.Since(start).Seconds()*10) / 10,
			Verdict: res.Verdict(),
		}
		switch {
		case err != nil:
			r.Error, r.Verdict = err.Error(), "error"
			failed = append(failed, t.Name())
		case t.Control && !(res.T > dudect.LeakThreshold):
			r.Verdict = "FAILED: positive control not detected"
			failed = append(failed, t.Name())
		case t.Control:
			r.Verdict = "leak, as it must (positive control)"
		case t.ConstantTime && res.T > threshold:
			r.Verdict = "FAILED: " + r.Verdict
			failed = append(failed, t.Name())
		case !t.ConstantTime:
			r.Verdict += " (variable time, not asserted)"
		}
		if math.IsNaN(r.T) { // JSON has no NaN
			r.T, r.RawT = -1, 0
		}
		fmt.Fprintf(progress, "|t| = %.2f (%.1fs)\n", res.T, r.Seconds)
		results = append(results, r)
	}
	return results, failed
}

func printCTResults(w io.Writer, results []ctResult) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "SCHEME\tOPERATION\tPATH\tSAMPLES/CLASS\t|t|\tTEST\tRUNS\tVERDICT\n")
	for _, r := range results {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%.2f\t%s\t%d\t%s\n", r.Scheme, r.Operation, r.Path,
			min(r.Samples[0], r.Samples[1]), r.T, r.Test, r.Runs, r.Verdict)
	}
	tw.Flush()
	fmt.Fprintf(w, "\n|t| < %.1f: no leak seen at that many measurements; above %d: a leak.\n", dudect.Threshold, dudect.LeakThreshold)
}

func listTargets(w io.Writer, targets []*cttargets.Target, samples int) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "TARGET\tSAMPLES/CLASS\tCLASS 0\tCLASS 1\tKIND\n")
	for _, t := range targets {
		kind := "constant time"
		switch {
		case t.Control:
			kind = "positive control (must leak)"
		case !t.ConstantTime:
			kind = "variable time (reported only)"
		}
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%s\n", t.Name(), t.Samples(samples), t.Classes[0], t.Classes[1], kind)
	}
	return tw.Flush()
}
