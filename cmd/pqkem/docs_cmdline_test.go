package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestDocsCommandLines checks every pqkem command line in README.md and
// docs/*.md against the commands and their flags, so that the docs
// cannot drift from the command: the lines of sh, bash, shell, console
// and ini code blocks (a pqkem command line, or one run by go run, ssh,
// systemd-socket-activate, ExecStart=), the "$ " lines of code blocks
// without a language, and the inline code spans that start with
// "pqkem ". The command must exist and its flags must parse.
func TestDocsCommandLines(t *testing.T) {
	files, err := filepath.Glob("../../docs/*.md")
	if err != nil {
		t.Fatal(err)
	}
	files = append(files, "../../README.md")
	n := 0
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		for _, cl := range docCommandLines(string(data)) {
			n++
			if err := checkCommandLine(cl.words); err != nil {
				t.Errorf("%s:%d: %s: %v", filepath.Base(file), cl.line, strings.Join(cl.words, " "), err)
			}
		}
	}
	t.Logf("%d pqkem command lines checked", n)
	if n < 20 {
		t.Errorf("found %d pqkem command lines in the docs, want at least 20: is the parser broken?", n)
	}
}

// A docCommandLine is the words of a pqkem command, "pqkem" first.
type docCommandLine struct {
	line  int
	words []string
}

var inlineCode = regexp.MustCompile("`(pqkem [^`]+)`")

// docCommandLines returns the pqkem command lines of a Markdown text.
func docCommandLines(text string) []docCommandLine {
	var out []docCommandLine
	lines := strings.Split(text, "\n")
	fence := "" // the info string of the open code block, or "" outside
	inBlock := false
	for i := 0; i < len(lines); i++ {
		line := lines[i]
		lineNo := i + 1
		if trimmed := strings.TrimSpace(line); strings.HasPrefix(trimmed, "```") {
			if inBlock {
				inBlock = false
			} else {
				inBlock, fence = true, strings.TrimSpace(strings.TrimPrefix(trimmed, "```"))
			}
			continue
		}
		if !inBlock {
			for _, m := range inlineCode.FindAllStringSubmatch(line, -1) {
				for _, cmd := range shellCommands(m[1]) {
					out = append(out, docCommandLine{lineNo, cmd})
				}
			}
			continue
		}
		switch fence {
		case "sh", "bash", "shell", "console", "ini":
		case "":
			// A transcript: the lines after a "$ " prompt.
			if !strings.HasPrefix(strings.TrimSpace(line), "$ ") {
				continue
			}
		default:
			continue
		}
		for strings.HasSuffix(line, "\\") && i+1 < len(lines) {
			i++
			line = strings.TrimSuffix(line, "\\") + " " + lines[i]
		}
		line = strings.TrimPrefix(strings.TrimSpace(line), "$ ")
		if fence == "ini" {
			_, cmd, ok := strings.Cut(line, "ExecStart=")
			if !ok {
				continue
			}
			line = cmd
		}
		for _, cmd := range shellCommands(line) {
			out = append(out, docCommandLine{lineNo, cmd})
		}
	}
	return out
}

// shellCommands splits a shell line into simple commands and returns
// those that run pqkem, from the word "pqkem" on.
func shellCommands(line string) [][]string {
	var cmds [][]string
	for _, words := range shellSplit(line) {
		for len(words) > 0 && (words[0] == "do" || words[0] == "then" || words[0] == "else" || words[0] == "time" || words[0] == "!") {
			words = words[1:]
		}
		if len(words) == 0 {
			continue
		}
		start := -1
		switch {
		case isPqkem(words[0]):
			start = 0
		case len(words) > 2 && words[0] == "go" && words[1] == "run" && words[2] == "./cmd/pqkem":
			start = 2
		case words[0] == "ssh" || words[0] == "systemd-socket-activate" || words[0] == "sudo" || words[0] == "exec":
			for j, w := range words {
				if isPqkem(w) {
					start = j
					break
				}
			}
		}
		if start >= 0 {
			cmds = append(cmds, words[start:])
		}
		// ssh -o ProxyCommand='pqkem connect ...': the option's value is
		// a command line of its own.
		for _, w := range words {
			if _, proxy, ok := strings.Cut(w, "ProxyCommand="); ok && start < 0 {
				cmds = append(cmds, shellCommands(proxy)...)
			}
		}
	}
	return cmds
}

func isPqkem(word string) bool {
	return word == "pqkem" || strings.HasSuffix(word, "/pqkem")
}

// shellSplit splits line into the words of its simple commands, as sh
// would: quotes, backslashes, comments, and the operators | & ; ( ) and
// $( that separate commands. Redirections and what they name are
// dropped.
func shellSplit(line string) [][]string {
	var cmds [][]string
	var words []string
	var word strings.Builder
	inWord, redirect := false, false
	endWord := func() {
		if inWord {
			if !redirect {
				words = append(words, word.String())
			}
			redirect = false
		}
		word.Reset()
		inWord = false
	}
	endCmd := func() {
		endWord()
		cmds = append(cmds, words)
		words = nil
	}
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case c == '\'':
			j := strings.IndexByte(line[i+1:], '\'')
			if j < 0 {
				j = len(line) - i - 1
			}
			word.WriteString(line[i+1 : i+1+j])
			inWord = true
			i += j + 1
		case c == '"':
			for i++; i < len(line) && line[i] != '"'; i++ {
				if line[i] == '\\' && i+1 < len(line) {
					i++
				}
				word.WriteByte(line[i])
			}
			inWord = true
		case c == '\\' && i+1 < len(line):
			i++
			word.WriteByte(line[i])
			inWord = true
		case c == '#' && !inWord:
			endCmd()
			return cmds
		case c == ' ' || c == '\t':
			endWord()
		case c == '$' && i+1 < len(line) && line[i+1] == '(':
			endCmd()
			i++
		case strings.IndexByte("|&;()", c) >= 0:
			endCmd()
		case c == '<' || c == '>':
			// 2>file, >> file, >&2: the redirection and its target are
			// no words.
			if inWord && strings.Trim(word.String(), "0123456789") == "" {
				word.Reset()
				inWord = false
			}
			endWord()
			for i+1 < len(line) && (line[i+1] == '>' || line[i+1] == '&' || line[i+1] == ' ') {
				i++
			}
			redirect = true
		default:
			word.WriteByte(c)
			inWord = true
		}
	}
	endCmd()
	return cmds
}

// checkCommandLine checks that words, "pqkem" and its arguments, name a
// command and flags it has, with values its flags take.
func checkCommandLine(words []string) error {
	if len(words) < 2 {
		return errors.New("no command")
	}
	name := words[1]
	if strings.HasSuffix(name, ":") {
		return nil // a line of a log, not a command
	}
	c := program.Lookup(name)
	if c == nil {
		return fmt.Errorf("unknown command %q", name)
	}
	fs, _ := program.FlagSet(c)
	fs.SetOutput(io.Discard)
	args := words[2:]
	for {
		if err := fs.Parse(args); errors.Is(err, flag.ErrHelp) {
			return nil
		} else if err != nil {
			return err
		}
		args = fs.Args()
		// help's argument names a command or a topic, unless it is a
		// placeholder in capitals (COMMAND).
		if c.Name == "help" && len(args) > 0 && strings.ToUpper(args[0]) != args[0] && program.Lookup(args[0]) == nil && program.LookupTopic(args[0]) == nil {
			return fmt.Errorf("no command or topic %q", args[0])
		}
		// pake takes flags after its subcommand, as its Run parses them.
		if c != cmdPake || len(args) == 0 {
			return nil
		}
		args = args[1:]
	}
}

// TestHelpReferences checks that the topics and commands that the help
// texts send the reader to exist, and that each command's examples parse.
func TestHelpReferences(t *testing.T) {
	ref := regexp.MustCompile(`'(pqkem [^']+)'`)
	check := func(where, text string) {
		for _, m := range ref.FindAllStringSubmatch(text, -1) {
			words := strings.Fields(m[1])
			if strings.Contains(m[1], "<") || len(words) < 2 {
				continue // a pattern such as 'pqkem help <topic>'
			}
			if err := checkCommandLine(words); err != nil {
				t.Errorf("%s refers to '%s': %v", where, m[1], err)
			}
		}
	}
	for _, c := range program.All() {
		var help strings.Builder
		program.PrintHelp(&help, c)
		check("pqkem help "+c.Name, help.String())
		for line := range strings.SplitSeq(strings.TrimSpace(c.Example), "\n") {
			cmds := shellCommands(line)
			if len(cmds) == 0 {
				t.Errorf("pqkem help %s: example %q runs no pqkem command", c.Name, line)
			}
			for _, words := range cmds {
				if err := checkCommandLine(words); err != nil {
					t.Errorf("pqkem help %s: example %q: %v", c.Name, line, err)
				}
			}
		}
	}
	for _, topic := range program.Topics {
		check("pqkem help "+topic.Name, topic.Doc)
	}
}

// TestDocsCommandLinesParser checks that the parser finds the command
// lines it should, and that the check catches what drifted.
func TestDocsCommandLinesParser(t *testing.T) {
	doc := "Run `pqkem keygen -algo X` first.\n" +
		"```sh\n" +
		"$ pqkem pub -in key.pem \\\n    -out pub.pem 2>/dev/null # a comment -nope\n" +
		"echo hi | pqkem connect -pub 'a b.pub' -to x:1 -cipher=AESGCM > out.txt && pqkem frobnicate\n" +
		"for a in $(pqkem list -names); do go run ./cmd/pqkem demo -alg \"$a\" -v; done\n" +
		"ssh host pqkem pake listen -addr :7000 -no-such-flag\n" +
		"ssh -o ProxyCommand='pqkem connect -pub s.pub -to %h:1 -quit' h\n" +
		"pqkem serve: listening on [::]:9443\n" +
		"pqkem help tunel\n" +
		"useradd pqkem\n" +
		"```\n" +
		"```ini\nExecStart=/usr/local/bin/pqkem serve -key k.pem -timeout 5x\n```\n" +
		"```go\npqkem keygen -bogus\n```\n"
	var got []string
	for _, cl := range docCommandLines(doc) {
		line := strings.Join(cl.words, " ")
		if err := checkCommandLine(cl.words); err != nil {
			line += ": " + err.Error()
		}
		got = append(got, fmt.Sprintf("%d %s", cl.line, line))
	}
	want := []string{
		"1 pqkem keygen -algo X: flag provided but not defined: -algo",
		"3 pqkem pub -in key.pem -out pub.pem",
		"5 pqkem connect -pub a b.pub -to x:1 -cipher=AESGCM",
		`5 pqkem frobnicate: unknown command "frobnicate"`,
		"6 pqkem list -names",
		"6 ./cmd/pqkem demo -alg $a -v: flag provided but not defined: -v",
		"7 pqkem pake listen -addr :7000 -no-such-flag: flag provided but not defined: -no-such-flag",
		"8 pqkem connect -pub s.pub -to %h:1 -quit: flag provided but not defined: -quit",
		"9 pqkem serve: listening on [::]:9443",
		`10 pqkem help tunel: no command or topic "tunel"`,
		`14 /usr/local/bin/pqkem serve -key k.pem -timeout 5x: invalid value "5x" for flag -timeout: parse error`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("found\n\t%s\nwant\n\t%s", strings.Join(got, "\n\t"), strings.Join(want, "\n\t"))
	}
}
