package main

import (
	"bytes"
	"flag"
	"strings"
	"testing"

	"github.com/pqkem/pqkem/kem"
)

// pqkem runs the command in-process and returns its exit status, standard
// output and standard error.
func pqkem(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code = run(args, &out, &errOut)
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
		{[]string{"demo", "-no-such-flag"}, "flag provided but not defined: -no-such-flag"},
		{[]string{"demo", "extra"}, `unexpected argument "extra"`},
		{[]string{"demo", "-alg"}, "flag needs an argument"},
		{[]string{"demo", "-alg", "ML-KEM-2048"}, "ML-KEM-512, ML-KEM-768, ML-KEM-1024"},
		{[]string{"list", "extra"}, `unexpected argument "extra"`},
		{[]string{"list", "-alg", "ML-KEM-768"}, "flag provided but not defined: -alg"},
		{[]string{"help", "frobnicate"}, `unknown command "frobnicate"`},
		{[]string{"help", "demo", "list"}, "at most one command"},
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

// checkHelp checks that text documents command c: its synopsis, every
// flag, and an example.
func checkHelp(t *testing.T, c *command, text string) {
	t.Helper()
	for _, want := range []string{"usage: pqkem " + c.name, "Example:\n  pqkem " + c.name} {
		if !strings.Contains(text, want) {
			t.Errorf("help for %s does not say %q:\n%s", c.name, want, text)
		}
	}
	fs, _ := c.flagSet()
	fs.VisitAll(func(f *flag.Flag) {
		if !strings.Contains(text, "  -"+f.Name) {
			t.Errorf("help for %s does not document -%s:\n%s", c.name, f.Name, text)
		}
	})
}

func TestHelp(t *testing.T) {
	if len(commands) < 3 {
		t.Fatalf("only %d commands registered", len(commands))
	}
	for _, args := range [][]string{{"help"}, {"-h"}, {"--help"}} {
		code, stdout, stderr := pqkem(t, args...)
		wantCode(t, args, code, exitOK, stderr)
		for _, c := range commands {
			if !strings.Contains(stdout, "  "+c.name+" ") || !strings.Contains(stdout, c.summary) {
				t.Errorf("pqkem %s does not list %s", args[0], c.name)
			}
			checkHelp(t, c, stdout)
		}
	}
	for _, c := range commands {
		for _, args := range [][]string{{c.name, "-h"}, {c.name, "-help"}, {"help", c.name}} {
			code, stdout, stderr := pqkem(t, args...)
			wantCode(t, args, code, exitOK, stderr)
			checkHelp(t, c, stdout)
			if stderr != "" {
				t.Errorf("pqkem %s wrote to stderr: %q", strings.Join(args, " "), stderr)
			}
		}
	}
}
