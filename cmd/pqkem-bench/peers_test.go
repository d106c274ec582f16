package main

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/pqkem/pqkem/internal/cli"
)

// harnessOutput is the harness's output for one mode: a comment line,
// progress and the table, as perfbench prints it. The ratios of pqkem grow
// with run (1, 2, 3, ...) and are 0.1 higher at the avx2 level, so that
// the medians, the lowest and the highest over runs can be checked.
func harnessOutput(mode, cpu string, run int) string {
	r := 0.8 + 0.01*float64(run)
	if cpu == "avx2" {
		r += 0.1
	}
	var b strings.Builder
	fmt.Fprintf(&b, "# go1.26.8 linux/amd64 GOMAXPROCS=1 mode=%s rounds=3\nround 1/3round 2/3round 3/3\n", mode)
	b.WriteString("group                              impl                median µs       p10 µs    ratio\n")
	line := func(group, impl string, ratio float64) {
		fmt.Fprintf(&b, "%-34s %-16s %12.2f %12.2f %8.2f\n", group, impl, 10*ratio, 9*ratio, ratio)
	}
	switch mode {
	case "cbytes":
		for _, g := range []string{"ML-KEM-768 keygen", "ML-KEM-768 encaps"} {
			line(g, "c-avx2", 1)
			line(g, "pqkem-bytes", r)
			line(g, "pqkem-parsed", r-0.5)
		}
	case "kem":
		line("ML-KEM-512 keygen", "pqkem", 1)
		line("ML-KEM-512 keygen", "gmsm", 2+r)
		line("ML-KEM-512 keygen", "circl", 3+r)
		line("ML-KEM-768 decaps", "pqkem", 1)
		line("ML-KEM-768 decaps", "std", 10+r)
		line("ML-KEM-768 decaps", "gmsm", 2+r)
		line("ML-KEM-768 decaps", "circl", 3+r)
	case "cfrodo":
		line("FrodoKEM-640-SHAKE keygen", "c-shake", 1)
		line("FrodoKEM-640-SHAKE keygen", "pqkem", r-0.2)
		line("FrodoKEM-640-SHAKE decaps", "c-shake", 1)
		line("FrodoKEM-640-SHAKE decaps", "pqkem-bytes", r-0.1)
		line("FrodoKEM-640-SHAKE decaps", "pqkem-parsed", r-0.3)
	}
	return b.String()
}

func TestParseHarness(t *testing.T) {
	r, err := parseHarness([]byte(harnessOutput("cbytes", "avx512", 2)))
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"ML-KEM-768 keygen", "ML-KEM-768 encaps"}; fmt.Sprint(r.groups) != fmt.Sprint(want) {
		t.Errorf("groups %q, want %q", r.groups, want)
	}
	if got := r.ratio[[2]string{"ML-KEM-768 encaps", "pqkem-bytes"}]; got != 0.82 {
		t.Errorf("ratio of pqkem-bytes in encaps: %v, want 0.82", got)
	}
	for _, bad := range []string{
		"",
		"group impl median p10 ratio\n",
		"group impl median p10 ratio\nML-KEM-768 keygen c 1.0 1.0 x\n",
		"group impl median p10 ratio\nML-KEM-768 keygen c 1.0 1.0 1.0\nML-KEM-768 keygen c 1.0 1.0 1.0\n",
	} {
		if _, err := parseHarness([]byte(bad)); err == nil {
			t.Errorf("parseHarness(%q): no error", bad)
		}
	}
}

// fakeHarness writes a harness directory whose two binaries are shell
// scripts that print harnessOutput for their -mode, PQKEM_CPU and the
// count of their runs so far, and a go.mod that replaces pqkem with src.
func fakeHarness(t *testing.T, src string) string {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("the fake harness is a shell script")
	}
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "bin"), 0o755); err != nil {
		t.Fatal(err)
	}
	// out/MODE-CPU-RUN.txt hold the outputs; the script counts its runs
	// of each mode and level in a file.
	if err := os.MkdirAll(filepath.Join(dir, "out"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, mode := range []string{"cbytes", "kem", "cfrodo"} {
		for _, cpu := range []string{"avx512", "avx2"} {
			for run := 1; run <= 5; run++ {
				name := filepath.Join(dir, "out", fmt.Sprintf("%s-%s-%d.txt", mode, cpu, run))
				if err := os.WriteFile(name, []byte(harnessOutput(mode, cpu, run)), 0o644); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	script := `#!/bin/sh
mode=$2
[ "$mode" = fail ] && { echo "progress" >&2; echo "cannot open the C library" >&2; exit 1; }
n=$(cat "count-$mode-$PQKEM_CPU" 2>/dev/null || echo 0)
n=$((n + 1))
echo $n > "count-$mode-$PQKEM_CPU"
cat "out/$mode-$PQKEM_CPU-$n.txt"
`
	for _, bin := range []string{"perfbench", "perfbench-c"} {
		if err := os.WriteFile(filepath.Join(dir, "bin", bin), []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	mod := "module perfbench\n\ngo 1.26.0\n\nreplace github.com/pqkem/pqkem => " + src + "\n"
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte(mod), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestPeers(t *testing.T) {
	src := t.TempDir() // not a git checkout
	dir := fakeHarness(t, src)
	md := filepath.Join(t.TempDir(), "peers.md")
	args := []string{"peers", "-harness", dir, "-runs", "3", "-md", md}
	code, stdout, stderr := pqkemBench(t, args...)
	wantCode(t, args, code, cli.ExitOK, stderr)
	doc, err := os.ReadFile(md)
	if err != nil {
		t.Fatal(err)
	}
	// Runs 1, 2, 3: pqkem-bytes 0.81, 0.82, 0.83 at avx512 and 0.91,
	// 0.92, 0.93 at avx2; pqkem-parsed 0.5 less.
	for _, want := range []string{
		"| ML-KEM | bytes in, avx512 | bytes in, avx2 | parsed keys, avx512 | parsed keys, avx2 |",
		"| ML-KEM-768 encapsulate | 0.82 (0.81–0.83) | 0.92 (0.91–0.93) | 0.32 (0.31–0.33) | 0.42 (0.41–0.43) |",
		"| ML-KEM-512 keygen | — | — | 2.82 (2.81–2.83) | 2.92 (2.91–2.93) | 3.82 (3.81–3.83) | 3.92 (3.91–3.93) |",
		"| ML-KEM-768 decapsulate | 10.82 (10.81–10.83) | 10.92 (10.91–10.93) |",
		"| FrodoKEM-640-SHAKE keygen | 0.62 (0.61–0.63) | 0.72 (0.71–0.73) | — | — |",
		"| FrodoKEM-640-SHAKE decapsulate | 0.72 (0.71–0.73) | 0.82 (0.81–0.83) | 0.52 (0.51–0.53) | 0.62 (0.61–0.63) |",
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("stdout has no line %q:\n%s", want, stdout)
		}
		if !strings.Contains(string(doc), want) {
			t.Errorf("-md file has no line %q:\n%s", want, doc)
		}
	}
	for _, want := range []string{
		"# pqkem beside the C peers and the Go implementations",
		"go run -buildvcs=true ./cmd/pqkem-bench peers -harness " + dir + " -md " + md + " -runs 3",
		"Harness: " + dir + " (made by ../shared/peers/bench/build.sh), built against the pqkem in " + src + "; 3 runs at each level (avx512, avx2)",
	} {
		if !strings.Contains(string(doc), want) {
			t.Errorf("-md file has no %q:\n%s", want, doc)
		}
	}
	if n := strings.Count(stderr, "\n"); n != 3*2*3 {
		t.Errorf("%d progress lines, want one per harness run (18):\n%s", n, stderr)
	}
}

func TestPeersErrors(t *testing.T) {
	args := []string{"peers", "-harness", t.TempDir()}
	code, _, stderr := pqkemBench(t, args...)
	if code == cli.ExitOK || !strings.Contains(stderr, "no harness in") || !strings.Contains(stderr, "build.sh") {
		t.Errorf("pqkem-bench %s: exit status %d, stderr %q; want an error with the build hint", strings.Join(args, " "), code, stderr)
	}

	dir := fakeHarness(t, t.TempDir())
	saved := peersModes
	t.Cleanup(func() { peersModes = saved })
	peersModes = []peersMode{{"perfbench-c", "fail", 1}}
	args = []string{"peers", "-harness", dir, "-runs", "1"}
	code, _, stderr = pqkemBench(t, args...)
	if code == cli.ExitOK || !strings.Contains(stderr, "perfbench-c -mode fail") || !strings.Contains(stderr, "cannot open the C library") {
		t.Errorf("pqkem-bench %s: exit status %d, stderr %q; want the harness's last error line", strings.Join(args, " "), code, stderr)
	}

	checkUsage(t, []usageCase{
		{[]string{"peers", "-runs", "0"}, "-runs must be at least 1"},
		{[]string{"peers", "-cpu", " , "}, "-cpu names no level"},
		{[]string{"peers", "extra"}, `unexpected argument "extra"`},
	})
}
