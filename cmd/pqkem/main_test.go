package main

import (
	"bytes"
	"os/exec"
	"strings"
	"testing"

	"github.com/pqkem/pqkem/internal/cli"
	"github.com/pqkem/pqkem/internal/cli/clitest"
	"github.com/pqkem/pqkem/kem"
)

const (
	exitOK    = cli.ExitOK
	exitError = cli.ExitError
	exitUsage = cli.ExitUsage
)

// pqkem runs the command in-process and returns its exit status, standard
// output and standard error.
func pqkem(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code = program.Run(args, &out, &errOut)
	return code, out.String(), errOut.String()
}

// withSchemes makes the commands see schemes instead of kem.All() for the
// rest of the test.
func withSchemes(t *testing.T, schemes ...kem.Scheme) {
	old := allSchemes
	allSchemes = func() []kem.Scheme { return schemes }
	t.Cleanup(func() { allSchemes = old })
}

func wantCode(t *testing.T, args []string, code, want int, stderr string) {
	t.Helper()
	if code != want {
		t.Fatalf("pqkem %s: exit status %d, want %d; stderr:\n%s", strings.Join(args, " "), code, want, stderr)
	}
}

func TestUsageErrors(t *testing.T) {
	for _, tc := range []struct {
		args   []string
		stderr string // a part of what standard error must say
	}{
		{nil, "usage: pqkem <command>"},
		{[]string{"frobnicate"}, `unknown command "frobnicate"`},
		{[]string{"bench"}, `unknown command "bench"`},
		{[]string{"demo", "-no-such-flag"}, "flag provided but not defined: -no-such-flag"},
		{[]string{"demo", "extra"}, `unexpected argument "extra"`},
		{[]string{"demo", "-alg"}, "flag needs an argument"},
		{[]string{"demo", "-alg", "ML-KEM-2048"}, "pqkem demo: -alg: unknown scheme \"ML-KEM-2048\"\nhint: "},
		{[]string{"demo", "-alg", "ML-KEM-769"}, "pqkem demo: -alg: unknown scheme \"ML-KEM-769\"\nhint: did you mean ML-KEM-768? 'pqkem list -names' lists every scheme\nusage: pqkem demo"},
		{[]string{"keygen", "-alg", "kyber1024", "-out", "k.pem"}, "hint: did you mean ML-KEM-1024?"},
		{[]string{"keygen", "-alg", "NoSuchKEM", "-out", "k.pem"}, "hint: 'pqkem list -names' lists every scheme\n"},
		{[]string{"keygen", "-algo", "ML-KEM-768"}, "pqkem keygen: flag provided but not defined: -algo\nhint: did you mean -alg?\nusage: pqkem keygen"},
		{[]string{"serve", "-lisen", ":1"}, "pqkem serve: flag provided but not defined: -lisen\nhint: did you mean -listen?\n"},
		{[]string{"pake", "-adr", ":1"}, "pqkem pake: flag provided but not defined: -adr\nhint: did you mean -addr?\n"},
		{[]string{"pake", "listen", "-adr", ":1"}, "pqkem pake: flag provided but not defined: -adr\nhint: did you mean -addr?\n"},
		{[]string{"demo", "-max", "x"}, "pqkem demo: flag provided but not defined: -max\nusage"},
		{[]string{"serve", "-max", "x"}, "pqkem serve: invalid value \"x\" for flag -max: parse error\nusage"},
		{[]string{"keygn"}, "pqkem: unknown command \"keygn\"\nhint: did you mean 'pqkem keygen'?\n"},
		{[]string{"help", "tunel"}, "pqkem help: unknown command or topic \"tunel\"\nhint: did you mean 'pqkem help tunnel'?\n"},
		{[]string{"list", "extra"}, `unexpected argument "extra"`},
		{[]string{"list", "-alg", "ML-KEM-768"}, "flag provided but not defined: -alg"},
		{[]string{"help", "frobnicate"}, `unknown command or topic "frobnicate"`},
		{[]string{"help", "demo", "list"}, "at most one name"},
	} {
		code, stdout, stderr := pqkem(t, tc.args...)
		wantCode(t, tc.args, code, exitUsage, stderr)
		if !strings.Contains(stderr, tc.stderr) {
			t.Errorf("pqkem %s: stderr %q does not say %q", strings.Join(tc.args, " "), stderr, tc.stderr)
		}
		if stdout != "" {
			t.Errorf("pqkem %s: a usage error wrote to stdout: %q", strings.Join(tc.args, " "), stdout)
		}
	}
}

func TestHelp(t *testing.T) {
	clitest.CheckHelp(t, program)
}

func TestPackageDoc(t *testing.T) {
	clitest.CheckPackageDoc(t, program, "main.go")
}

// TestHelpLength checks that `pqkem help` lists the commands and topics
// in under 60 lines and that each command's help fits a screen.
func TestHelpLength(t *testing.T) {
	clitest.CheckHelpLength(t, program, 60, 40)
}

// TestDeps checks what the package comment says the command links: pqkem,
// the standard library and golang.org/x/crypto, x/sys and x/term.
func TestDeps(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list; skipped with -short")
	}
	out, err := exec.Command("go", "list", "-deps", "-f", "{{if not .Standard}}{{.ImportPath}}{{end}}", ".").Output()
	if err != nil {
		t.Skipf("go list: %v", err)
	}
	if !strings.Contains(string(out), "github.com/pqkem/pqkem/kem\n") {
		t.Fatalf("go list -deps does not list package kem:\n%s", out)
	}
	for _, pkg := range strings.Fields(string(out)) {
		ok := false
		for _, prefix := range []string{"github.com/pqkem/pqkem/", "golang.org/x/crypto/", "golang.org/x/sys/", "golang.org/x/term"} {
			ok = ok || strings.HasPrefix(pkg, prefix)
		}
		if !ok {
			t.Errorf("pqkem links %s, which its package comment does not name", pkg)
		}
	}
}
