// Package clitest checks the documentation of a [cli.Program] from its
// tests: that help documents every command, and that the package comment
// lists the commands the program has.
package clitest

import (
	"bytes"
	"flag"
	"go/parser"
	"go/token"
	"slices"
	"strings"
	"testing"

	"github.com/pqkem/pqkem/internal/cli"
)

// CheckHelp checks that `prog help` lists every command and topic with
// its summary, that the help of each command, from `prog help cmd`, `prog
// cmd -h` and `prog cmd -help`, gives its synopsis, every flag and an
// example of it, and that `prog help topic` prints the topic, each on
// standard output with exit status 0.
func CheckHelp(t *testing.T, p *cli.Program) {
	t.Helper()
	all := run(t, p, "help")
	for _, c := range p.All() {
		if !strings.Contains(all, "  "+c.Name+" ") || !strings.Contains(all, c.Summary) {
			t.Errorf("%s help does not list %s with its summary", p.Name, c.Name)
		}
		for _, args := range [][]string{{"help", c.Name}, {c.Name, "-h"}, {c.Name, "-help"}} {
			checkCommandHelp(t, p, c, run(t, p, args...))
		}
	}
	for _, topic := range p.Topics {
		if !strings.Contains(all, "  "+topic.Name+" ") || !strings.Contains(all, topic.Summary) {
			t.Errorf("%s help does not list the topic %s with its summary", p.Name, topic.Name)
		}
		if got := run(t, p, "help", topic.Name); got != strings.TrimSpace(topic.Doc)+"\n" {
			t.Errorf("%s help %s = %q, want the topic's text", p.Name, topic.Name, got)
		}
	}
}

// CheckHelpLength checks that `prog help` has fewer than overview lines
// and the help of each command at most command lines, but for the
// commands named in except, and reports how long each is.
func CheckHelpLength(t *testing.T, p *cli.Program, overview, command int, except ...string) {
	t.Helper()
	if n := strings.Count(run(t, p, "help"), "\n"); n >= overview {
		t.Errorf("%s help has %d lines, want fewer than %d", p.Name, n, overview)
	}
	for _, c := range p.All() {
		n := strings.Count(run(t, p, "help", c.Name), "\n")
		t.Logf("%s help %s: %d lines", p.Name, c.Name, n)
		if n > command && !slices.Contains(except, c.Name) {
			t.Errorf("%s help %s has %d lines, want at most %d", p.Name, c.Name, n, command)
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
// indented line with its name and summary, in the order of p.All(), and
// its topics, if it has any, after a line "The help topics are:".
func CheckPackageDoc(t *testing.T, p *cli.Program, file string) {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), file, nil, parser.ParseComments|parser.PackageClauseOnly)
	if err != nil {
		t.Fatal(err)
	}
	if f.Doc == nil {
		t.Fatalf("%s has no package comment", file)
	}
	var commands, topics []string
	for _, c := range p.All() {
		commands = append(commands, c.Name+" "+c.Summary)
	}
	for _, topic := range p.Topics {
		topics = append(topics, topic.Name+" "+topic.Summary)
	}
	checkList(t, f.Doc.Text(), file, "The commands are:", commands)
	if len(topics) > 0 {
		checkList(t, f.Doc.Text(), file, "The help topics are:", topics)
	}
}

// checkList checks that doc has the indented lines want after the line
// heading.
func checkList(t *testing.T, doc, file, heading string, want []string) {
	t.Helper()
	_, list, ok := strings.Cut(doc, heading+"\n\n")
	if !ok {
		t.Errorf("the package comment in %s has no line %q", file, heading)
		return
	}
	var got []string
	for line := range strings.SplitSeq(list, "\n") {
		if !strings.HasPrefix(line, "\t") {
			break
		}
		got = append(got, strings.Join(strings.Fields(line), " "))
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("the package comment in %s lists after %q\n\t%s\nwant (from the table)\n\t%s",
			file, heading, strings.Join(got, "\n\t"), strings.Join(want, "\n\t"))
	}
}
