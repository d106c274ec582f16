package dudect_test

import (
	"flag"
	"os"
	"testing"
	"time"

	"github.com/pqkem/pqkem/internal/cttargets"
	"github.com/pqkem/pqkem/internal/dudect"
)

// The timing test runs only when asked, being slow and sensitive to the
// machine's load, with the -ct flag of the test binary or PQKEM_CT=1:
//
//	go test -run TestConstantTime -v ./internal/dudect -ct
//	go test -run TestConstantTime -v ./internal/dudect -ct -ct-n 1000000 -ct-targets ML-KEM
//	PQKEM_CT=1 go test -run TestConstantTime -v -timeout 2h ./internal/dudect
//
// (go test takes the package list only before the first flag it does not
// know.) It measures every target of package cttargets, scaling the number
// of measurements down by each target's cost, and fails if a
// constant-time target shows |t| above -ct-threshold twice in a row
// (Target.Check reruns it once) or if a positive control does not show
// |t| above dudect.LeakThreshold. `pqkem ct-check` runs the same targets
// from the command line.
var (
	ctFlag      = flag.Bool("ct", false, "run the dudect timing test TestConstantTime")
	ctN         = flag.Int("ct-n", 100000, "TestConstantTime: measurements per class for a target of cost 1 (ML-KEM-768 decapsulation); cheaper targets get more, up to 10x, dearer ones fewer, at least 1000")
	ctLimit     = flag.Duration("ct-time", 60*time.Second, "TestConstantTime: time limit per target")
	ctTargets   = flag.String("ct-targets", "all", "TestConstantTime: comma-separated substrings of the target names to run")
	ctThreshold = flag.Float64("ct-threshold", dudect.LeakThreshold, "TestConstantTime: fail if a constant-time target shows |t| above this")
)

func TestConstantTime(t *testing.T) {
	if !*ctFlag && os.Getenv("PQKEM_CT") != "1" {
		t.Skip("the timing test runs only with -ct or PQKEM_CT=1: go test -run TestConstantTime -v ./internal/dudect -ct")
	}
	targets := cttargets.Select(cttargets.All(), *ctTargets)
	if len(targets) == 0 {
		t.Fatalf("no target matches %q", *ctTargets)
	}
	t.Logf("timer: %s; pass line |t| < %.1f, failure above %.1f", dudect.TimerUnit, dudect.Threshold, *ctThreshold)
	for _, tg := range targets {
		n := tg.Samples(*ctN)
		res, runs, err := tg.Check(n, *ctLimit)
		if err != nil {
			t.Errorf("%v", err)
			continue
		}
		t.Logf("%-48s n = %7d + %7d  |t| = %7.2f  (%s, %d run(s))  %s",
			tg.Name(), res.N[0], res.N[1], res.T, res.Test, runs, res.Verdict())
		switch {
		case tg.Control && !(res.T > dudect.LeakThreshold):
			t.Errorf("%s: the positive control gives |t| = %.2f, not above %.0f: the harness cannot see a leak here", tg.Name(), res.T, float64(dudect.LeakThreshold))
		case tg.ConstantTime && res.T > *ctThreshold:
			t.Errorf("%s: |t| = %.2f above %.1f on two runs: timing depends on the class (%s against %s)",
				tg.Name(), res.T, *ctThreshold, tg.Classes[0], tg.Classes[1])
		}
	}
}

// TestHarnessSeesEarlyExit runs in every go test: the early-exit compare
// control must give a clear leak in a fraction of a second, so a broken
// timer or a broken statistic cannot pass unnoticed. (A 1-byte against a
// 1024-byte loop differ by hundreds of cycles: no load makes that vanish.)
func TestHarnessSeesEarlyExit(t *testing.T) {
	targets := cttargets.Select(cttargets.All(), "control/early-exit")
	if len(targets) != 1 {
		t.Fatalf("found %d early-exit controls", len(targets))
	}
	res, err := targets[0].Run(20000, 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%s: %v", targets[0].Name(), res)
	if !(res.T > 10*dudect.LeakThreshold) {
		t.Errorf("early-exit compare: |t| = %.2f, want far above %.0f", res.T, float64(dudect.LeakThreshold))
	}
}
