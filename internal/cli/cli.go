// Package cli is the frame of pqkem's commands, cmd/pqkem and
// cmd/pqkem-bench: a [Program] is one table of [Command] values, each with
// its synopsis, its help and a [Runner] that defines its flags and runs it,
// and of help [Topic] values, texts that several commands share, as cmd/go
// lists its commands and topics. The frame parses the flags, prints the
// help (`prog help` lists the commands and topics, `prog help cmd` and
// `prog cmd -h` describe one command, `prog help topic` prints a topic),
// reports errors and turns them into the exit status: [ExitOK],
// [ExitError] for an operational error, [ExitUsage] for a usage error (see
// [Usagef]). Every line of an error starts with "prog cmd: ", the flag
// package's errors included; an error may carry a hint ([WithHint]),
// printed under it as "hint: ...". A command whose standard output fails
// (a closed pipe, a full disk) fails too, with one line saying so, whether
// or not it checked its writes.
package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"
)

// Exit statuses.
const (
	ExitOK    = 0
	ExitError = 1 // an operational error: a failed key exchange, a bad file, a wrong key
	ExitUsage = 2 // a usage error: an unknown command or flag, a missing or unexpected argument
)

// Output is where a command writes.
type Output struct {
	Stdout, Stderr io.Writer
}

// StdoutFile returns the file standard output writes to, if it is one.
func (o *Output) StdoutFile() (*os.File, bool) {
	w := o.Stdout
	if sw, ok := w.(*stickyWriter); ok {
		w = sw.w
	}
	f, ok := w.(*os.File)
	return f, ok
}

// stickyWriter is a command's standard output: it remembers the first
// write error and fails every write after it, so that the frame reports
// it even if the command did not look.
type stickyWriter struct {
	w   io.Writer
	err error
}

func (s *stickyWriter) Write(p []byte) (int, error) {
	if s.err != nil {
		return 0, s.err
	}
	n, err := s.w.Write(p)
	if err != nil {
		s.err = fmt.Errorf("standard output: %w", unwrapPath(err))
	}
	return n, s.err
}

// unwrapPath returns the cause of a *fs.PathError ("write /dev/stdout:
// broken pipe" is "broken pipe"), or err.
func unwrapPath(err error) error {
	if pe, ok := errors.AsType[*fs.PathError](err); ok {
		return pe.Err
	}
	return err
}

// A Runner is one run of a command.
type Runner interface {
	// Flags defines the command's flags on fs, bound to the runner.
	Flags(fs *flag.FlagSet)
	// Run runs the command once the flags are parsed, with the arguments
	// left after them. An error from [Usagef] or [Usage] gives exit status
	// [ExitUsage], one that is [flag.ErrHelp] prints the command's help and
	// gives [ExitOK], any other [ExitError].
	Run(out *Output, args []string) error
}

// A Command is one entry of a program's table.
type Command struct {
	Name    string
	Summary string // one line, for the list of commands
	Args    string // the synopsis after "prog name", such as "[-alg NAME]"
	Doc     string // what the command does, for its help
	Example string // example command lines, one a line, for its help

	// New returns a fresh Runner for one run: its flags start at their
	// defaults.
	New func() Runner
}

// A Topic is a text of help that is not a command's, shown by
// `prog help name`: what several commands share, such as how they write
// files.
type Topic struct {
	Name    string
	Summary string // one line, for the list of topics
	Doc     string
}

// A Program is a command with subcommands.
type Program struct {
	Name     string     // "pqkem"
	Summary  string     // one line: what the program is
	Commands []*Command // in the order help lists them; "help" is added
	Topics   []*Topic   // in the order help lists them
	// Exit ends the process with the command's status; nil means os.Exit.
	Exit func(code int)
}

// Main runs the program with the process's arguments and exits with its
// status. A write to a closed pipe is an error of the command (see
// [Program.Run]) rather than a silent death by SIGPIPE.
func (p *Program) Main() {
	notifySIGPIPE()
	code := p.Run(os.Args[1:], os.Stdout, os.Stderr)
	if p.Exit != nil {
		p.Exit(code)
	}
	os.Exit(code)
}

// All returns the program's commands, help included.
func (p *Program) All() []*Command {
	return append(p.Commands[:len(p.Commands):len(p.Commands)], p.help())
}

// Lookup returns the command called name, or nil.
func (p *Program) Lookup(name string) *Command {
	for _, c := range p.All() {
		if c.Name == name {
			return c
		}
	}
	return nil
}

// Run runs the program with args (without the program name) and returns
// the exit status.
func (p *Program) Run(args []string, stdout, stderr io.Writer) int {
	out := &Output{&stickyWriter{w: stdout}, stderr}
	if len(args) == 0 {
		p.printOverview(stderr)
		return ExitUsage
	}
	name := args[0]
	switch name {
	case "-h", "-help", "--help":
		name = "help"
	}
	c := p.Lookup(name)
	if c == nil {
		fmt.Fprintf(stderr, "%s: unknown command %q\n", p.Name, args[0])
		if p.LookupTopic(name) != nil {
			fmt.Fprintf(stderr, "hint: %s is a help topic: '%s help %s'\n", name, p.Name, name)
		} else if near := Nearest(name, p.commandNames()); near != "" {
			fmt.Fprintf(stderr, "hint: did you mean '%s %s'?\n", p.Name, near)
		}
		fmt.Fprintf(stderr, "Run '%s help' for usage.\n", p.Name)
		return ExitUsage
	}
	return p.run(c, out, args[1:])
}

// FlagSet returns a flag set with the flags of c defined, and the runner
// they are bound to.
func (p *Program) FlagSet(c *Command) (*flag.FlagSet, Runner) {
	fs := flag.NewFlagSet(p.Name+" "+c.Name, flag.ContinueOnError)
	fs.Usage = func() {} // run and help print the usage themselves
	r := c.New()
	r.Flags(fs)
	return fs, r
}

func (p *Program) run(c *Command, out *Output, args []string) int {
	fs, r := p.FlagSet(c)
	// The flag package's own messages are not printed: its error is
	// reported as any other, after "prog cmd:".
	fs.SetOutput(io.Discard)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			p.PrintHelp(out.Stdout, c)
			return p.exit(c, out, nil)
		}
		return p.exit(c, out, Usage(err))
	}
	err := r.Run(out, fs.Args())
	if errors.Is(err, flag.ErrHelp) {
		p.PrintHelp(out.Stdout, c)
		err = nil
	}
	return p.exit(c, out, err)
}

// exit reports err, or the failure of standard output if the command
// succeeded otherwise, and returns the exit status.
func (p *Program) exit(c *Command, out *Output, err error) int {
	if err == nil {
		err = out.Stdout.(*stickyWriter).err
	}
	if err == nil {
		return ExitOK
	}
	for line := range strings.SplitSeq(err.Error(), "\n") {
		fmt.Fprintf(out.Stderr, "%s %s: %s\n", p.Name, c.Name, line)
	}
	hint := Hint(err)
	if hint == "" {
		hint = p.flagHint(c, err)
	}
	if hint != "" {
		fmt.Fprintf(out.Stderr, "hint: %s\n", hint)
	}
	if errors.As(err, new(usageError)) {
		p.printUsageHint(out.Stderr, c)
		return ExitUsage
	}
	return ExitError
}

// flagHint suggests the flag of c nearest to the one an error of the flag
// package says is not defined, or returns "".
func (p *Program) flagHint(c *Command, err error) string {
	name, ok := strings.CutPrefix(err.Error(), "flag provided but not defined: -")
	if !ok {
		return ""
	}
	name = strings.TrimPrefix(name, "-")
	fs, _ := p.FlagSet(c)
	var names []string
	fs.VisitAll(func(f *flag.Flag) { names = append(names, f.Name) })
	if near := Nearest(name, names); near != "" {
		return "did you mean -" + near + "?"
	}
	return ""
}

func (p *Program) commandNames() []string {
	var names []string
	for _, c := range p.All() {
		names = append(names, c.Name)
	}
	return names
}

func (p *Program) synopsis(c *Command) string {
	return strings.TrimSpace(p.Name + " " + c.Name + " " + c.Args)
}

func (p *Program) printUsageHint(w io.Writer, c *Command) {
	fmt.Fprintf(w, "usage: %s\nRun '%s %s -h' for details.\n", p.synopsis(c), p.Name, c.Name)
}

// usageError is an error in how the command was called: exit status 2.
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

// Usagef returns a usage error: the program prints it with the command's
// synopsis and exits with status [ExitUsage].
func Usagef(format string, args ...any) error {
	return usageError{fmt.Errorf(format, args...)}
}

// Usage marks err as a usage error, as [Usagef] does.
func Usage(err error) error {
	return usageError{err}
}

// NoArgs is the check for commands that take no arguments beyond flags.
func NoArgs(args []string) error {
	if len(args) > 0 {
		return Usagef("unexpected argument %q", args[0])
	}
	return nil
}
