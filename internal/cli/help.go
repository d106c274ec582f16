package cli

import (
	"flag"
	"fmt"
	"io"
	"strings"
)

// helpWidth is the width help is wrapped to: the flags' descriptions
// wrap at it.
const helpWidth = 80

// help returns the help command every program has.
func (p *Program) help() *Command {
	example := p.Name + " help"
	if len(p.Commands) > 0 {
		example += "\n" + p.Name + " help " + p.Commands[0].Name
	}
	if len(p.Topics) > 0 {
		example += "\n" + p.Name + " help " + p.Topics[0].Name
	}
	summary, args := "show help for "+p.Name+" or for one command", "[command]"
	doc := `
Help with no argument lists the commands. With a command's name it
describes that command, its flags and examples, as '%[1]s <command> -h'
does.`
	if len(p.Topics) > 0 {
		summary, args = "show help for "+p.Name+", one command or one topic", "[command|topic]"
		doc = `
Help with no argument lists the commands and the help topics. With a
command's name it describes that command, its flags and examples, as
'%[1]s <command> -h' does; with a topic's name it prints that topic.`
	}
	return &Command{
		Name:    "help",
		Summary: summary,
		Args:    args,
		Doc:     fmt.Sprintf(doc, p.Name),
		Example: example,
		New:     func() Runner { return helpRunner{p} },
	}
}

// LookupTopic returns the topic called name, or nil.
func (p *Program) LookupTopic(name string) *Topic {
	for _, t := range p.Topics {
		if t.Name == name {
			return t
		}
	}
	return nil
}

type helpRunner struct{ p *Program }

func (helpRunner) Flags(*flag.FlagSet) {}

// Run prints the help for the command or topic named in args, or the
// list of commands and topics if args is empty.
func (h helpRunner) Run(out *Output, args []string) error {
	p := h.p
	switch len(args) {
	case 0:
		p.printOverview(out.Stdout)
		return nil
	case 1:
		if c := p.Lookup(args[0]); c != nil {
			p.PrintHelp(out.Stdout, c)
			return nil
		}
		if t := p.LookupTopic(args[0]); t != nil {
			fmt.Fprintf(out.Stdout, "%s\n", strings.TrimSpace(t.Doc))
			return nil
		}
		names := p.commandNames()
		for _, t := range p.Topics {
			names = append(names, t.Name)
		}
		err := Usagef("unknown command or topic %q", args[0])
		if near := Nearest(args[0], names); near != "" {
			return Hintf(err, "did you mean '%s help %s'?", p.Name, near)
		}
		return err
	}
	return Usagef("help takes at most one name, not %d arguments", len(args))
}

// PrintHelp prints the synopsis, description, flags and examples of c.
func (p *Program) PrintHelp(w io.Writer, c *Command) {
	fs, _ := p.FlagSet(c)
	fmt.Fprintf(w, "usage: %s\n\n%s\n", p.synopsis(c), strings.TrimSpace(c.Doc))
	hasFlags := false
	fs.VisitAll(func(*flag.Flag) { hasFlags = true })
	if hasFlags {
		fmt.Fprintf(w, "\nFlags:\n")
		printFlags(w, fs)
	}
	fmt.Fprintf(w, "\nExample:\n")
	for line := range strings.SplitSeq(strings.TrimSpace(c.Example), "\n") {
		fmt.Fprintf(w, "  %s\n", line)
	}
}

// printFlags prints the flags of fs one a line, "-name ARG", then the
// description and the default, wrapped at helpWidth under the
// description's column.
func printFlags(w io.Writer, fs *flag.FlagSet) {
	type row struct{ left, text string }
	var rows []row
	width := 0
	fs.VisitAll(func(f *flag.Flag) {
		arg, usage := flag.UnquoteUsage(f)
		left := "-" + f.Name
		if arg != "" {
			left += " " + arg
		}
		if def := defaultText(f); def != "" {
			usage += " (default " + def + ")"
		}
		rows = append(rows, row{left, usage})
		if len(left) <= 20 {
			width = max(width, len(left))
		}
	})
	indent := strings.Repeat(" ", 2+width+2)
	for _, r := range rows {
		line := "  " + r.left
		if len(r.left) > width {
			fmt.Fprintln(w, line)
			line = indent
		} else {
			line += strings.Repeat(" ", width-len(r.left)+2)
		}
		start := true
		for word := range strings.FieldsSeq(r.text) {
			if !start && len(line)+1+len(word) > helpWidth {
				fmt.Fprintln(w, line)
				line, start = indent, true
			}
			if !start {
				line += " "
			}
			line += word
			start = false
		}
		fmt.Fprintln(w, line)
	}
}

// defaultText returns the default of f as help shows it, or "" for a
// zero value: a string quoted, as flag.PrintDefaults does.
func defaultText(f *flag.Flag) string {
	if f.DefValue == "" || f.DefValue == "0" || f.DefValue == "false" || f.DefValue == "0s" {
		return ""
	}
	if g, ok := f.Value.(flag.Getter); ok {
		if _, isString := g.Get().(string); isString {
			return fmt.Sprintf("%q", f.DefValue)
		}
	}
	return f.DefValue
}

// printOverview lists the commands and the topics.
func (p *Program) printOverview(w io.Writer) {
	fmt.Fprintf(w, "%s: %s\n\n", p.Name, p.Summary)
	fmt.Fprintf(w, "usage: %s <command> [flags] [arguments]\n\nCommands:\n", p.Name)
	width := 0
	for _, c := range p.All() {
		width = max(width, len(c.Name))
	}
	for _, t := range p.Topics {
		width = max(width, len(t.Name))
	}
	for _, c := range p.All() {
		fmt.Fprintf(w, "  %-*s  %s\n", width, c.Name, c.Summary)
	}
	if len(p.Topics) > 0 {
		fmt.Fprintf(w, "\nHelp topics:\n")
		for _, t := range p.Topics {
			fmt.Fprintf(w, "  %-*s  %s\n", width, t.Name, t.Summary)
		}
	}
	fmt.Fprintf(w, "\nRun '%s help <command>' or '%s <command> -h' for a command's flags and\nexamples", p.Name, p.Name)
	if len(p.Topics) > 0 {
		fmt.Fprintf(w, ", '%s help <topic>' for a topic", p.Name)
	}
	fmt.Fprintf(w, ".\nExit status: 0 success, 1 operational error, 2 usage error.\n")
}
