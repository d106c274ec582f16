package main

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/pqkem/pqkem/internal/cli"
	"github.com/pqkem/pqkem/internal/cli/clitest"
)

// TestMain lets the test binary be flood's child process, as main lets
// pqkem-bench be.
func TestMain(m *testing.M) {
	if spec, ok := os.LookupEnv(attackerEnv); ok {
		os.Exit(attackerMain(spec, os.Stdin, os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

// pqkemBench runs the command in-process and returns its exit status,
// standard output and standard error.
func pqkemBench(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code = program.Run(args, &out, &errOut)
	return code, out.String(), errOut.String()
}

// usageCase is a command line with a usage error, and what standard error
// must say.
type usageCase struct {
	args []string
	want string
}

// checkUsage checks that each case exits with status 2, the reason on
// standard error and nothing on standard output.
func checkUsage(t *testing.T, cases []usageCase) {
	t.Helper()
	for _, tc := range cases {
		code, stdout, stderr := pqkemBench(t, tc.args...)
		wantCode(t, tc.args, code, cli.ExitUsage, stderr)
		if !strings.Contains(stderr, tc.want) || stdout != "" {
			t.Errorf("pqkem-bench %s: stderr %q, stdout %q; want %q on stderr", strings.Join(tc.args, " "), stderr, stdout, tc.want)
		}
	}
}

func wantCode(t *testing.T, args []string, code, want int, stderr string) {
	t.Helper()
	if code != want {
		t.Fatalf("pqkem-bench %s: exit status %d, want %d; stderr:\n%s", strings.Join(args, " "), code, want, stderr)
	}
}

func TestHelp(t *testing.T) {
	clitest.CheckHelp(t, program)
}

func TestPackageDoc(t *testing.T) {
	clitest.CheckPackageDoc(t, program, "main.go")
}

// TestUsage checks the usage errors of every command: exit status 2, the
// reason on standard error, nothing on standard output.
func TestUsage(t *testing.T) {
	checkUsage(t, []usageCase{
		{[]string{"kem", "-rounds", "0"}, "-rounds must be at least 1"},
		{[]string{"kem", "-sample", "0s"}, "-sample must be positive"},
		{[]string{"kem", "-alg", "nope"}, "unknown"},
		{[]string{"kem", "extra"}, `unexpected argument "extra"`},
		{[]string{"pake", "-rounds", "0"}, "-rounds must be at least 1"},
		{[]string{"pake", "-sample", "-1ms"}, "-sample must be positive"},
		{[]string{"pake", "listen"}, `unexpected argument "listen"`},
		{[]string{"ct", "-samples", "0"}, "-samples must be at least 10"},
		{[]string{"ct", "-time", "-1s"}, "-time must not be negative"},
		{[]string{"ct", "-threshold", "0"}, "-threshold must be positive"},
		{[]string{"ct", "-path", "neon"}, "-path must be avx2, generic or all"},
		{[]string{"ct", "-target", "no-such-scheme"}, "no target matches"},
		{[]string{"ct", "extra"}, `unexpected argument "extra"`},
		{[]string{"bench"}, `unknown command "bench"`},
	})
}
