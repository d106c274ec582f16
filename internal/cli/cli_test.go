package cli_test

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"strings"
	"syscall"
	"testing"

	"github.com/pqkem/pqkem/internal/cli"
	"github.com/pqkem/pqkem/internal/cli/clitest"
)

// echo prints its arguments, or fails as its flags say.
type echo struct {
	upper      bool
	fail, help bool
	hint       bool
}

func (e *echo) Flags(fs *flag.FlagSet) {
	fs.BoolVar(&e.upper, "upper", false, "print in upper case")
	fs.BoolVar(&e.fail, "fail", false, "fail with an operational error")
	fs.BoolVar(&e.help, "help-from-run", false, "return flag.ErrHelp from Run")
	fs.BoolVar(&e.hint, "hint", false, "fail with a usage error that has a hint")
}

func (e *echo) Run(out *cli.Output, args []string) error {
	switch {
	case e.fail:
		return fmt.Errorf("failing: %w", errors.ErrUnsupported)
	case e.help:
		return flag.ErrHelp
	case e.hint:
		return cli.WithHint(cli.Usagef("hinted\nsecond line"), "try harder")
	case len(args) == 0:
		return cli.Usagef("echo needs an argument")
	}
	s := strings.Join(args, " ")
	if e.upper {
		s = strings.ToUpper(s)
	}
	fmt.Fprintln(out.Stdout, s)
	return nil
}

type quiet struct{}

func (quiet) Flags(*flag.FlagSet)             {}
func (quiet) Run(*cli.Output, []string) error { return nil }

var testProgram = &cli.Program{
	Name:    "prog",
	Summary: "a program for the tests.",
	Commands: []*cli.Command{
		{Name: "echo", Summary: "print the arguments", Args: "[-upper] WORD...", Doc: "Echo prints its arguments.",
			Example: "prog echo hello\nprog echo -upper hello", New: func() cli.Runner { return new(echo) }},
		{Name: "quiet", Summary: "do nothing", Doc: "Quiet does nothing.", Example: "prog quiet",
			New: func() cli.Runner { return quiet{} }},
	},
	Topics: []*cli.Topic{
		{Name: "files", Summary: "how files are written", Doc: "\nFiles are written.\n"},
	},
}

func runProg(args ...string) (code int, stdout, stderr string) {
	var out, errOut bytes.Buffer
	code = testProgram.Run(args, &out, &errOut)
	return code, out.String(), errOut.String()
}

func TestRun(t *testing.T) {
	for _, tc := range []struct {
		args           []string
		code           int
		stdout, stderr string // parts of what each must say; "" for nothing at all
	}{
		{[]string{"echo", "a", "b"}, cli.ExitOK, "a b\n", ""},
		{[]string{"echo", "-upper", "a"}, cli.ExitOK, "A\n", ""},
		// Flags are fresh on every run.
		{[]string{"echo", "a"}, cli.ExitOK, "a\n", ""},
		{[]string{"echo", "-fail", "a"}, cli.ExitError, "", "prog echo: failing: unsupported operation"},
		{[]string{"echo"}, cli.ExitUsage, "", "prog echo: echo needs an argument\nusage: prog echo [-upper] WORD...\nRun 'prog echo -h' for details."},
		{[]string{"echo", "-no-such-flag"}, cli.ExitUsage, "", "prog echo: flag provided but not defined: -no-such-flag\nusage: prog echo"},
		{[]string{"echo", "-uper", "a"}, cli.ExitUsage, "", "prog echo: flag provided but not defined: -uper\nhint: did you mean -upper?\nusage: prog echo"},
		{[]string{"echo", "--uper", "a"}, cli.ExitUsage, "", "prog echo: flag provided but not defined: -uper\nhint: did you mean -upper?\n"},
		{[]string{"echo", "-upper=maybe", "a"}, cli.ExitUsage, "", "prog echo: invalid boolean value \"maybe\" for -upper"},
		{[]string{"echo", "-hint"}, cli.ExitUsage, "", "prog echo: hinted\nprog echo: second line\nhint: try harder\nusage: prog echo"},
		{[]string{"ehco", "a"}, cli.ExitUsage, "", "prog: unknown command \"ehco\"\nhint: did you mean 'prog echo'?\n"},
		{[]string{"help", "file"}, cli.ExitUsage, "", "prog help: unknown command or topic \"file\"\nhint: did you mean 'prog help files'?\n"},
		{[]string{"help", "files"}, cli.ExitOK, "Files are written.\n", ""},
		{[]string{"files"}, cli.ExitUsage, "", "prog: unknown command \"files\"\nhint: files is a help topic: 'prog help files'\n"},
		{[]string{"echo", "-help-from-run"}, cli.ExitOK, "usage: prog echo", ""},
		{[]string{"echo", "-h"}, cli.ExitOK, "usage: prog echo [-upper] WORD...\n\nEcho prints its arguments.\n\nFlags:\n  -fail           fail with an operational error\n", ""},
		{nil, cli.ExitUsage, "", "usage: prog <command>"},
		{[]string{"frobnicate"}, cli.ExitUsage, "", `prog: unknown command "frobnicate"`},
		{[]string{"help", "frobnicate"}, cli.ExitUsage, "", `unknown command or topic "frobnicate"`},
		{[]string{"help", "echo", "quiet"}, cli.ExitUsage, "", "at most one name"},
		{[]string{"help", "quiet"}, cli.ExitOK, "usage: prog quiet\n\nQuiet does nothing.\n\nExample:\n  prog quiet\n", ""},
	} {
		code, stdout, stderr := runProg(tc.args...)
		if code != tc.code {
			t.Errorf("prog %q: exit status %d, want %d; stderr %q", tc.args, code, tc.code, stderr)
		}
		for _, c := range []struct{ name, got, want string }{{"stdout", stdout, tc.stdout}, {"stderr", stderr, tc.stderr}} {
			if c.want == "" && c.got != "" || !strings.Contains(c.got, c.want) {
				t.Errorf("prog %q: %s %q, want %q in it", tc.args, c.name, c.got, c.want)
			}
		}
	}
}

func TestUsageWraps(t *testing.T) {
	err := cli.Usage(fmt.Errorf("bad: %w", errors.ErrUnsupported))
	if !errors.Is(err, errors.ErrUnsupported) {
		t.Errorf("cli.Usage(err) = %v: does not wrap err", err)
	}
	if cli.NoArgs(nil) != nil || cli.NoArgs([]string{"x"}) == nil {
		t.Errorf("cli.NoArgs")
	}
}

// TestHelp checks that help lists every command, help included, and
// documents each one.
func TestHelp(t *testing.T) {
	cmds := testProgram.All()
	if len(cmds) != 3 || cmds[2].Name != "help" {
		t.Fatalf("All() = %d commands, want echo, quiet, help", len(cmds))
	}
	clitest.CheckHelp(t, testProgram)
}

// failingWriter fails every write as a closed pipe does.
type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) {
	return 0, &fs.PathError{Op: "write", Path: "/dev/stdout", Err: syscall.EPIPE}
}

// TestStdoutFailure checks that a command whose standard output fails
// fails with one line saying so, though it did not check its writes, and
// so does help.
func TestStdoutFailure(t *testing.T) {
	for _, args := range [][]string{{"echo", "a"}, {"echo", "-h"}, {"help"}, {"help", "echo"}} {
		var stderr bytes.Buffer
		code := testProgram.Run(args, failingWriter{}, &stderr)
		want := "prog " + args[0] + ": standard output: " + syscall.EPIPE.Error() + "\n"
		if code != cli.ExitError || stderr.String() != want {
			t.Errorf("prog %q to a closed pipe: exit status %d, stderr %q; want %d and %q", args, code, stderr.String(), cli.ExitError, want)
		}
	}
	// A command's own error comes first.
	var stderr bytes.Buffer
	if code := testProgram.Run([]string{"echo", "-fail", "a"}, failingWriter{}, &stderr); code != cli.ExitError || !strings.Contains(stderr.String(), "failing") {
		t.Errorf("prog echo -fail: exit status %d, stderr %q", code, stderr.String())
	}
}

func TestHints(t *testing.T) {
	err := cli.Usagef("bad")
	if cli.Hint(err) != "" || cli.WithHint(nil, "x") != nil || cli.WithHint(err, "") != err {
		t.Errorf("WithHint: a hint from nothing")
	}
	h := cli.Hintf(err, "use %s", "-x")
	if h.Error() != "bad" || cli.Hint(h) != "use -x" || !errors.Is(h, err) {
		t.Errorf("Hintf(Usagef(bad), ...) = %q, hint %q", h, cli.Hint(h))
	}
	wrapped := fmt.Errorf("outer: %w", h)
	if cli.Hint(wrapped) != "use -x" {
		t.Errorf("Hint does not find the hint of a wrapped error")
	}
}

func TestNearest(t *testing.T) {
	names := []string{"alg", "out", "format", "force", "ML-KEM-768", "ML-KEM-512", "X-Wing"}
	for _, tc := range []struct{ name, want string }{
		{"algo", "alg"},
		{"al", "alg"},
		{"outt", "out"},
		{"forma", "format"},
		{"ml-kem-769", "ML-KEM-768"},
		{"mlkem768", "ML-KEM-768"},
		{"xwing", "X-Wing"},
		{"zzz", ""},
		{"o", "out"},
		{"f", ""}, // format or force
		{"X-W", "X-Wing"},
		{"frobnicate", ""},
		{"", ""},
	} {
		if got := cli.Nearest(tc.name, names); got != tc.want {
			t.Errorf("Nearest(%q) = %q, want %q", tc.name, got, tc.want)
		}
	}
}

// TestFlagsHelp checks the flags' lines: one a line, a default after
// the description, long descriptions wrapped under their column.
func TestFlagsHelp(t *testing.T) {
	p := &cli.Program{Name: "prog", Commands: []*cli.Command{{Name: "f", Example: "prog f", New: func() cli.Runner { return new(flagger) }}}}
	var out bytes.Buffer
	p.PrintHelp(&out, p.Commands[0])
	want := `
Flags:
  -a-very-long-flag-name-indeed
              a flag whose name is long
  -count int  how many (default 3)
  -name S     the name S of something that has a description longer than fits on
              one line of the help, so that it wraps (default "x")
  -v          be verbose
`
	if !strings.Contains(out.String(), want) {
		t.Errorf("help:\n%s\nwant in it:%s", out.String(), want)
	}
}

type flagger struct{}

func (flagger) Flags(fs *flag.FlagSet) {
	fs.Bool("a-very-long-flag-name-indeed", false, "a flag whose name is long")
	fs.Int("count", 3, "how many")
	fs.String("name", "x", "the name `S` of something that has a description longer than fits on one line of the help, so that it wraps")
	fs.Bool("v", false, "be verbose")
}
func (flagger) Run(*cli.Output, []string) error { return nil }
