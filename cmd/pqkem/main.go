// Command pqkem makes post-quantum key exchange visible from a terminal.
//
// Usage:
//
//	pqkem <command> [flags] [arguments]
//
// The commands are:
//
//	demo    run a key exchange with every scheme and check that both sides agree
//	list    list every scheme with its sizes and status
//	keygen  generate a private key and write it to a file
//	pub     write the public key of a private key
//	encap   encapsulate a fresh shared key to a public key
//	decap   decapsulate a ciphertext with a private key
//	inspect describe a key file without showing secrets
//	pake    agree on a key with a peer who knows the same password (over TCP)
//	help    show help for pqkem or for one command
//
// Key files are PKCS#8 and SubjectPublicKeyInfo, PEM or DER, as RFC 9935
// and OpenSSL 3.5 have them for ML-KEM; see package
// github.com/pqkem/pqkem/keyfile for every scheme's encoding.
//
// Run `pqkem help` for every command's flags, with examples, or
// `pqkem <command> -h` for one command.
//
// Exit status: 0 on success, 1 on an operational error (a failed key
// exchange, a bad file, a wrong key), 2 on a usage error (an unknown
// command or flag, a missing or unexpected argument).
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/pqkem/pqkem/kem"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// Exit statuses, as CONVENTIONS.md sets them.
const (
	exitOK    = 0
	exitError = 1 // operational error
	exitUsage = 2 // usage error
)

// command is one subcommand. Each lives in a file of its own (demo.go,
// list.go, ...) that adds it to commands with register from an init
// function.
type command struct {
	name    string
	summary string // one line, for the list of commands
	args    string // the synopsis after "pqkem name", such as "[-alg NAME]"
	doc     string // what the command does, for its help
	example string // example command lines, one a line, for its help

	// setup defines the command's flags on fs and returns the function
	// that runs the command once fs has parsed them, with the arguments
	// left after the flags. An error of type usageError gives exit
	// status 2; any other error, 1.
	setup func(fs *flag.FlagSet) func(out *output, args []string) error
}

// output is where a command writes.
type output struct {
	stdout, stderr io.Writer
}

// usageError is an error in how the command was called: exit status 2.
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error {
	return usageError{fmt.Sprintf(format, args...)}
}

// noArgs is the check for commands that take no arguments beyond flags.
func noArgs(args []string) error {
	if len(args) > 0 {
		return usagef("unexpected argument %q", args[0])
	}
	return nil
}

// schemeFlag looks up the scheme named by an -alg flag; an unknown name
// is a usage error.
func schemeFlag(name string) (kem.Scheme, error) {
	s, err := kem.ByName(name)
	if err != nil {
		return nil, usageError{err.Error()}
	}
	return s, nil
}

// allSchemes lists the schemes the commands iterate over. Tests replace it.
var allSchemes = kem.All

var commands []*command

func register(c *command) {
	commands = append(commands, c)
	slices.SortFunc(commands, func(a, b *command) int { return strings.Compare(a.name, b.name) })
}

func lookup(name string) *command {
	for _, c := range commands {
		if c.name == name {
			return c
		}
	}
	return nil
}

// run runs pqkem with args (without the program name) and returns the exit
// status.
func run(args []string, stdout, stderr io.Writer) int {
	out := &output{stdout, stderr}
	if len(args) == 0 {
		printOverview(stderr)
		return exitUsage
	}
	name := args[0]
	switch name {
	case "-h", "-help", "--help":
		name = "help"
	}
	c := lookup(name)
	if c == nil {
		fmt.Fprintf(stderr, "pqkem: unknown command %q\nRun 'pqkem help' for usage.\n", args[0])
		return exitUsage
	}
	return c.run(out, args[1:])
}

func (c *command) flagSet() (*flag.FlagSet, func(*output, []string) error) {
	fs := flag.NewFlagSet("pqkem "+c.name, flag.ContinueOnError)
	fs.Usage = func() {} // run and help print the usage themselves
	return fs, c.setup(fs)
}

func (c *command) run(out *output, args []string) int {
	fs, exec := c.flagSet()
	fs.SetOutput(out.stderr) // for the flag package's own error messages
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			c.printHelp(out.stdout)
			return exitOK
		}
		c.printUsageHint(out.stderr)
		return exitUsage
	}
	err := exec(out, fs.Args())
	if err == nil {
		return exitOK
	}
	fmt.Fprintf(out.stderr, "pqkem %s: %v\n", c.name, err)
	if errors.As(err, new(usageError)) {
		c.printUsageHint(out.stderr)
		return exitUsage
	}
	return exitError
}

func (c *command) synopsis() string {
	return strings.TrimSpace("pqkem " + c.name + " " + c.args)
}

func (c *command) printUsageHint(w io.Writer) {
	fmt.Fprintf(w, "usage: %s\nRun 'pqkem %s -h' for details.\n", c.synopsis(), c.name)
}

// printHelp prints the command's synopsis, description, flags and example.
func (c *command) printHelp(w io.Writer) {
	fs, _ := c.flagSet()
	fmt.Fprintf(w, "usage: %s\n\n%s\n", c.synopsis(), strings.TrimSpace(c.doc))
	hasFlags := false
	fs.VisitAll(func(*flag.Flag) { hasFlags = true })
	if hasFlags {
		fmt.Fprintf(w, "\nFlags:\n")
		fs.SetOutput(w)
		fs.PrintDefaults()
	}
	fmt.Fprintf(w, "\nExample:\n")
	for line := range strings.SplitSeq(strings.TrimSpace(c.example), "\n") {
		fmt.Fprintf(w, "  %s\n", line)
	}
}

func printOverview(w io.Writer) {
	fmt.Fprintf(w, "pqkem: post-quantum key exchange from the command line.\n\n")
	fmt.Fprintf(w, "usage: pqkem <command> [flags] [arguments]\n\nCommands:\n")
	for _, c := range commands {
		fmt.Fprintf(w, "  %-8s %s\n", c.name, c.summary)
	}
	fmt.Fprintf(w, "\nRun 'pqkem help' for every command's flags, or 'pqkem <command> -h' for one.\n")
	fmt.Fprintf(w, "Exit status: 0 success, 1 operational error, 2 usage error.\n")
}
