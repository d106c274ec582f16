package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/pqkem/pqkem/internal/cli"
	"github.com/pqkem/pqkem/internal/dudect"
)

func TestCTControls(t *testing.T) {
	// A high -threshold: this tests the command, not the machine's noise.
	stdout, md, file := runReport(t, "ct", "-target", "control", "-samples", "2000", "-time", "20s", "-threshold", "1000")
	for _, want := range []string{"A/A ML-KEM-768", "early-exit compare", "subtle.ConstantTimeCompare", "positive control", "SAMPLES/CLASS", "|t| (EACH RUN)"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("ct table does not say %q:\n%s", want, stdout)
		}
	}
	checkReport(t, md, "pqkem-bench ct -md "+file+" -samples 2000 -target control -threshold 1000 -time 20s",
		"| scheme | operation | path | measurements per class | \\|t\\| run 1 | \\|t\\| run 2 | verdict |",
		"| control | early-exit compare | - | ", "leak, as it must (positive control)")
}

func TestCTJSON(t *testing.T) {
	args := []string{"ct", "-target", "control/early", "-samples", "2000", "-json"}
	code, stdout, stderr := pqkemBench(t, args...)
	wantCode(t, args, code, cli.ExitOK, stderr)
	var results []ctResult
	if err := json.Unmarshal([]byte(stdout), &results); err != nil {
		t.Fatalf("ct -json: %v\n%s", err, stdout)
	}
	if len(results) != 1 {
		t.Fatalf("%d results, want 1", len(results))
	}
	if !strings.Contains(stderr, "pqkem-bench ct: [1/1] control/early-exit compare/-") {
		t.Errorf("no progress on stderr: %q", stderr)
	}
	r := results[0]
	if r.Target != "control/early-exit compare/-" || !r.Control || r.ConstantTime || r.Failed || len(r.Runs) != 1 || r.Unit == "" {
		t.Fatalf("unexpected result %+v", r)
	}
	if run := r.Runs[0]; run.T <= 10 || run.Samples[0] < 1000 || run.Samples[1] < 1000 {
		t.Errorf("unexpected run %+v", run)
	}
}

// TestCTVerdict checks that a constant-time target fails only when every
// run crosses the threshold, and that the verdict and the table give the
// |t| of every run.
func TestCTVerdict(t *testing.T) {
	ct := &target{Scheme: "S", Operation: "Op", Path: pathGeneric, ConstantTime: true}
	control := &target{Scheme: "control", Operation: "leaky", Path: pathNone, Control: true}
	fixed := &target{Scheme: "S", Operation: "Fixed", Path: pathGeneric, ConstantTime: true, FixedInput: true}
	res := func(t float64) dudect.Result { return dudect.Result{N: [2]int{1000, 1000}, T: t, Test: "raw"} }
	for _, tc := range []struct {
		t      *target
		ts     []float64
		failed bool
		want   string
	}{
		{ct, []float64{1.2}, false, "no leak seen"},
		{ct, []float64{6, 2}, false, "possible leak (rerun on a quieter machine), then no leak seen"},
		{ct, []float64{6, 7}, false, "possible leak (rerun on a quieter machine), then possible leak"},
		{ct, []float64{12, 3}, false, "leak, then no leak seen"},
		{ct, []float64{6, 12}, false, "possible leak (rerun on a quieter machine), then leak"},
		{ct, []float64{12, 11}, true, "FAILED: |t| above 10 on every run: leak, then leak"},
		{ct, []float64{11}, true, "FAILED"}, // one run only where -threshold is below dudect.Threshold
		{fixed, []float64{12}, false, "leak (a fixed input, not asserted)"},
		{fixed, []float64{1.2}, false, "no leak seen (a fixed input, not asserted)"},
		{control, []float64{50}, false, "positive control"},
		{control, []float64{5}, true, "FAILED: positive control not detected"},
	} {
		var runs []dudect.Result
		for _, x := range tc.ts {
			runs = append(runs, res(x))
		}
		verdict, failed := ctVerdict(tc.t, runs, dudect.LeakThreshold)
		if failed != tc.failed || !strings.Contains(verdict, tc.want) {
			t.Errorf("%s with |t| %v: %q, failed %v; want %q, failed %v", tc.t.name(), tc.ts, verdict, failed, tc.want, tc.failed)
		}
	}

	r := ctResult{Scheme: "S", Operation: "Op", Path: pathGeneric, Runs: []ctRun{{T: 6.21, Test: "raw"}, {T: 3.05, Test: "crop 50.0%"}}}
	if got := r.ts(); got != "6.21, then 3.05" {
		t.Errorf("ts() = %q", got)
	}
	var sb strings.Builder
	printCTResults(&sb, []ctResult{r})
	if !strings.Contains(sb.String(), "6.21, then 3.05") {
		t.Errorf("the table does not give both runs:\n%s", sb.String())
	}
	fs, _ := program.FlagSet(cmdCT)
	rep := newReport("t", fs)
	mdCTResults(rep, []ctResult{r}, dudect.LeakThreshold)
	if !strings.Contains(rep.buf.String(), "| 6.21 (raw) | 3.05 (crop 50.0%) |") {
		t.Errorf("the Markdown table does not give both runs:\n%s", rep.buf.String())
	}
}

func TestCTList(t *testing.T) {
	args := []string{"ct", "-list"}
	code, stdout, stderr := pqkemBench(t, args...)
	wantCode(t, args, code, cli.ExitOK, stderr)
	for _, want := range []string{"ML-KEM-512/Decapsulate/", "ML-KEM-1024/Decapsulate/generic", "X-Wing/Decapsulate/",
		"FrodoKEM-640-AES/Decapsulate/", "pake sampler/Sample A0/", "Tempo-C1-ML-KEM-768/Respond/", "control/early-exit compare/-",
		"positive control (must leak)"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("ct -list does not list %q:\n%s", want, stdout)
		}
	}
	args = []string{"ct", "-list", "-path", "generic", "-target", "ml-kem-768/decap"}
	code, stdout, stderr = pqkemBench(t, args...)
	wantCode(t, args, code, cli.ExitOK, stderr)
	if lines := strings.Split(strings.TrimSpace(stdout), "\n"); len(lines) != 2 || !strings.HasPrefix(lines[1], "ML-KEM-768/Decapsulate/generic") {
		t.Errorf("ct %s:\n%s", strings.Join(args[1:], " "), stdout)
	}
}

// TestCTFails checks the exit status of a failing target: with a threshold
// far below any |t| that timing gives, the constant-time compare fails.
func TestCTFails(t *testing.T) {
	args := []string{"ct", "-target", "control/subtle", "-samples", "1000", "-threshold", "1e-9"}
	code, stdout, stderr := pqkemBench(t, args...)
	wantCode(t, args, code, cli.ExitError, stderr)
	if !strings.Contains(stdout, "FAILED: |t| above 1e-09 on every run") ||
		!strings.Contains(stderr, "pqkem-bench ct: 1 target(s) failed: control/subtle.ConstantTimeCompare/-") {
		t.Errorf("pqkem-bench %s:\nstdout %s\nstderr %s", strings.Join(args, " "), stdout, stderr)
	}
}
