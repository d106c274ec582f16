package cli

import (
	"flag"
	"fmt"
)

// help returns the help command every program has.
func (p *Program) help() *Command {
	example := p.Name + " help"
	if len(p.Commands) > 0 {
		example += "\n" + p.Name + " help " + p.Commands[0].Name
	}
	return &Command{
		Name:    "help",
		Summary: "show help for " + p.Name + " or for one command",
		Args:    "[command]",
		Doc: fmt.Sprintf(`
Help with no argument describes %[1]s and every command, with its flags
and an example. With a command name, it describes that command only, as
'%[1]s <command> -h' does.`, p.Name),
		Example: example,
		New:     func() Runner { return helpRunner{p} },
	}
}

type helpRunner struct{ p *Program }

func (helpRunner) Flags(*flag.FlagSet) {}

// Run prints the help for the command named in args, or for the program
// and every command if args is empty.
func (h helpRunner) Run(out *Output, args []string) error {
	p := h.p
	switch len(args) {
	case 0:
		p.printOverview(out.Stdout)
		for _, c := range p.All() {
			fmt.Fprintf(out.Stdout, "\n-- %s %s --\n\n", p.Name, c.Name)
			p.PrintHelp(out.Stdout, c)
		}
		return nil
	case 1:
		c := p.Lookup(args[0])
		if c == nil {
			return Usagef("unknown command %q", args[0])
		}
		p.PrintHelp(out.Stdout, c)
		return nil
	}
	return Usagef("help takes at most one command name, not %d arguments", len(args))
}
