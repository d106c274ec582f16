package main

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestCTCheckControls(t *testing.T) {
	// A high -threshold: this tests the command, not the machine's noise.
	args := []string{"ct-check", "-target", "control", "-samples", "2000", "-time", "20s", "-threshold", "1000"}
	code, stdout, stderr := pqkem(t, args...)
	wantCode(t, args, code, exitOK, stderr)
	for _, want := range []string{"A/A ML-KEM-768", "early-exit compare", "subtle.ConstantTimeCompare", "positive control", "SAMPLES/CLASS"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("ct-check table does not say %q:\n%s", want, stdout)
		}
	}
	if !strings.Contains(stderr, "] control/A/A") || !strings.Contains(stderr, "control/subtle") {
		t.Errorf("no progress on stderr: %q", stderr)
	}
}

func TestCTCheckJSON(t *testing.T) {
	args := []string{"ct-check", "-target", "control/early", "-samples", "2000", "-json"}
	code, stdout, stderr := pqkem(t, args...)
	wantCode(t, args, code, exitOK, stderr)
	var results []ctResult
	if err := json.Unmarshal([]byte(stdout), &results); err != nil {
		t.Fatalf("ct-check -json: %v\n%s", err, stdout)
	}
	if len(results) != 1 {
		t.Fatalf("%d results, want 1", len(results))
	}
	r := results[0]
	if r.Target != "control/early-exit compare/-" || !r.Control || r.ConstantTime || r.T <= 10 ||
		r.Samples[0] < 1000 || r.Samples[1] < 1000 || r.Runs != 1 || r.Unit == "" {
		t.Errorf("unexpected result %+v", r)
	}
}

func TestCTCheckList(t *testing.T) {
	args := []string{"ct-check", "-list"}
	code, stdout, stderr := pqkem(t, args...)
	wantCode(t, args, code, exitOK, stderr)
	for _, want := range []string{"ML-KEM-512/Decapsulate/", "ML-KEM-1024/Decapsulate/generic", "X-Wing/Decapsulate/",
		"FrodoKEM-640-AES/Decapsulate/", "pake sampler/Sample A0/", "Tempo-C1-ML-KEM-768/Respond/", "control/early-exit compare/-",
		"positive control (must leak)"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("ct-check -list does not list %q:\n%s", want, stdout)
		}
	}
	args = []string{"ct-check", "-list", "-path", "generic", "-target", "ml-kem-768/decap"}
	code, stdout, stderr = pqkem(t, args...)
	wantCode(t, args, code, exitOK, stderr)
	if lines := strings.Split(strings.TrimSpace(stdout), "\n"); len(lines) != 2 || !strings.HasPrefix(lines[1], "ML-KEM-768/Decapsulate/generic") {
		t.Errorf("ct-check %s:\n%s", strings.Join(args[1:], " "), stdout)
	}
}

func TestCTCheckUsage(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"ct-check", "-samples", "0"}, "-samples must be at least 10"},
		{[]string{"ct-check", "-time", "-1s"}, "-time must not be negative"},
		{[]string{"ct-check", "-threshold", "0"}, "-threshold must be positive"},
		{[]string{"ct-check", "-path", "neon"}, "-path must be avx2, generic or all"},
		{[]string{"ct-check", "-target", "no-such-scheme"}, "no target matches"},
		{[]string{"ct-check", "extra"}, `unexpected argument "extra"`},
	} {
		code, stdout, stderr := pqkem(t, tc.args...)
		wantCode(t, tc.args, code, exitUsage, stderr)
		if !strings.Contains(stderr, tc.want) || stdout != "" {
			t.Errorf("pqkem %s: stderr %q, stdout %q; want %q on stderr", strings.Join(tc.args, " "), stderr, stdout, tc.want)
		}
	}
}
