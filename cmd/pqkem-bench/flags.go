package main

import (
	"encoding/json"
	"flag"
	"io"
	"time"

	"github.com/pqkem/pqkem/internal/cli"
)

// roundsFlags are the flags of the speed commands, kem and pake: how many
// alternating rounds they run, and how long each operation is timed in
// each.
type roundsFlags struct {
	rounds int
	sample time.Duration
}

func (r *roundsFlags) define(fs *flag.FlagSet, rounds int, sampleDoc string) {
	fs.IntVar(&r.rounds, "rounds", rounds, "number of alternating `rounds`; the table gives medians over them")
	fs.DurationVar(&r.sample, "sample", 20*time.Millisecond, sampleDoc)
}

func (r *roundsFlags) check() error {
	if r.rounds < 1 {
		return cli.Usagef("-rounds must be at least 1, got %d", r.rounds)
	}
	if r.sample <= 0 {
		return cli.Usagef("-sample must be positive, got %v", r.sample)
	}
	return nil
}

// outputFlags are the flags that say where a command's results go: -md,
// and -json for the commands that have it.
type outputFlags struct {
	fs     *flag.FlagSet
	asJSON bool
	md     string
}

func (o *outputFlags) define(fs *flag.FlagSet, withJSON bool) {
	o.fs = fs
	if withJSON {
		fs.BoolVar(&o.asJSON, "json", false, "print the results as JSON instead of a table")
	}
	fs.StringVar(&o.md, "md", "", "also write the results to `FILE` as a Markdown document, with the machine, the Go version, the commit and the command line")
}

// write prints results to w, as JSON with -json and with text otherwise,
// and with -md writes the report that md fills, under title, to the file.
func (o *outputFlags) write(w io.Writer, results any, text func(io.Writer), title string, md func(*report)) error {
	if o.asJSON {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		if err := enc.Encode(results); err != nil {
			return err
		}
	} else {
		text(w)
	}
	if o.md == "" {
		return nil
	}
	r := newReport(title, o.fs)
	md(r)
	return r.writeFile(o.md)
}
