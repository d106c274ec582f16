package main

import (
	"flag"
	"fmt"
	"io"
	"runtime"
	"runtime/debug"

	"github.com/pqkem/pqkem/internal/cli"
)

var cmdVersion = &cli.Command{
	Name:    "version",
	Summary: "print the version of pqkem and the Go it was built with",
	Args:    "",
	Doc: `
Version prints the module version of the pqkem it is (a release tag such
as v1.2.0, or "(devel)" for a build from a checkout), the version
control revision and time it was built from, with "+dirty" when the
checkout had uncommitted changes, and the Go version and platform, all
from the build information Go records in the binary.`,
	Example: `
pqkem version`,
	New: func() cli.Runner { return new(versionCmd) },
}

type versionCmd struct{}

func (*versionCmd) Flags(*flag.FlagSet) {}

func (*versionCmd) Run(out *cli.Output, args []string) error {
	if err := cli.NoArgs(args); err != nil {
		return err
	}
	info, _ := debug.ReadBuildInfo()
	return printVersion(out.Stdout, info)
}

// printVersion writes the version line of a binary with build
// information info (nil if it has none).
func printVersion(w io.Writer, info *debug.BuildInfo) error {
	version, revision, when, dirty := "(unknown)", "", "", false
	if info != nil {
		version = info.Main.Version
		for _, s := range info.Settings {
			switch s.Key {
			case "vcs.revision":
				revision = s.Value
			case "vcs.time":
				when = s.Value
			case "vcs.modified":
				dirty = s.Value == "true"
			}
		}
	}
	line := "pqkem " + version
	if revision != "" {
		line += " " + revision
		if dirty {
			line += "+dirty"
		}
		if when != "" {
			line += " " + when
		}
	}
	_, err := fmt.Fprintf(w, "%s %s %s/%s\n", line, runtime.Version(), runtime.GOOS, runtime.GOARCH)
	return err
}
