// Package clitest checks the documentation of a [cli.Program] from its
// tests: that help documents every command, and that the package comment
// lists the commands the program has.
package clitest

import (
	"bytes"
	"flag"
	"go/parser"
	"go/token"
	"strings"
	"testing"

	"github.com/pqkem/pqkem/internal/cli"
)

// CheckHelp checks that `prog help` lists every command with its summary
// and that the help of each, from `prog help`, `prog help cmd`, `prog cmd
// -h` and `prog cmd -help`, gives its synopsis, every flag and an example
// of it, on standard output with exit status 0.
func CheckHelp(t *testing.T, p *cli.Program) {
	t.Helper()
	all := run(t, p, "help")
	for _, c := range p.All() {
		if !strings.Contains(all, "  "+c.Name+" ") || !strings.Contains(all, c.Summary) {
			t.Errorf("%s help does not list %s with its summary", p.Name, c.Name)
		}
		checkCommandHelp(t, p, c, all)
		for _, args := range [][]string{{"help", c.Name}, {c.Name, "-h"}, {c.Name, "-help"}} {
			checkCommandHelp(t, p, c, run(t, p, args...))
		}
	}
}

// run runs p with args, which must succeed and write nothing to standard
// error, and returns its standard output.
func run(t *testing.T, p *cli.Program, args ...string) string {
	t.Helper()
	var stdout, stderr bytes.Buffer
	if code := p.Run(args, &stdout, &stderr); code != cli.ExitOK || stderr.Len() > 0 {
		t.Fatalf("%s %s: exit status %d, stderr %q", p.Name, strings.Join(args, " "), code, stderr.String())
	}
	return stdout.String()
}

func checkCommandHelp(t *testing.T, p *cli.Program, c *cli.Command, text string) {
	t.Helper()
	for _, want := range []string{"usage: " + p.Name + " " + c.Name, "Example:\n  " + p.Name + " " + c.Name} {
		if !strings.Contains(text, want) {
			t.Errorf("help for %s does not say %q:\n%s", c.Name, want, text)
		}
	}
	fs, _ := p.FlagSet(c)
	fs.VisitAll(func(f *flag.Flag) {
		if !strings.Contains(text, "  -"+f.Name) {
			t.Errorf("help for %s does not document -%s:\n%s", c.Name, f.Name, text)
		}
	})
}

// CheckPackageDoc checks that the package comment in the Go file named
// file lists the commands of p after a line "The commands are:", one an
// indented line with its name and summary, in the order of p.All().
func CheckPackageDoc(t *testing.T, p *cli.Program, file string) {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), file, nil, parser.ParseComments|parser.PackageClauseOnly)
	if err != nil {
		t.Fatal(err)
	}
	if f.Doc == nil {
		t.Fatalf("%s has no package comment", file)
	}
	_, list, ok := strings.Cut(f.Doc.Text(), "The commands are:\n\n")
	if !ok {
		t.Fatalf("the package comment in %s has no line \"The commands are:\"", file)
	}
	var got []string
	for line := range strings.SplitSeq(list, "\n") {
		if !strings.HasPrefix(line, "\t") {
			break
		}
		got = append(got, strings.Join(strings.Fields(line), " "))
	}
	var want []string
	for _, c := range p.All() {
		want = append(want, c.Name+" "+c.Summary)
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("the package comment in %s lists the commands\n\t%s\nwant (from the table)\n\t%s",
			file, strings.Join(got, "\n\t"), strings.Join(want, "\n\t"))
	}
}
