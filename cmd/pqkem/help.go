package main

import (
	"flag"
	"fmt"
)

func init() {
	register(&command{
		name:    "help",
		summary: "show help for pqkem or for one command",
		args:    "[command]",
		doc: `
Help with no argument describes pqkem and every command, with its flags
and an example. With a command name, it describes that command only, as
'pqkem <command> -h' does.`,
		example: `
pqkem help
pqkem help demo`,
		setup: func(fs *flag.FlagSet) func(*output, []string) error {
			return help
		},
	})
}

// help prints the help for the command named in args, or for pqkem and
// every command if args is empty.
func help(out *output, args []string) error {
	switch len(args) {
	case 0:
		printOverview(out.stdout)
		for _, c := range commands {
			fmt.Fprintf(out.stdout, "\n-- pqkem %s --\n\n", c.name)
			c.printHelp(out.stdout)
		}
		return nil
	case 1:
		c := lookup(args[0])
		if c == nil {
			return usagef("unknown command %q", args[0])
		}
		c.printHelp(out.stdout)
		return nil
	}
	return usagef("help takes at most one command name, not %d arguments", len(args))
}
