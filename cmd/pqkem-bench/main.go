// Command pqkem-bench measures pqkem, for the people who evaluate or
// develop it: speed beside other implementations, and constant time.
//
// Usage:
//
//	pqkem-bench <command> [flags]
//
// The commands are:
//
//	kem   time key generation, encapsulation and decapsulation beside other implementations
//	pake  time the PAKE protocols and samplers, as Table 1 of the Tempo paper
//	pages serve web pages over PQNoise and crypto/tls with net/http, as Table 5 of the Frodo paper
//	flood measure how a running pqkem serve holds up under idle sockets and a handshake flood
//	ct    test on this machine that secret-dependent operations run in constant time
//	peers run the C peers' harness several times and make its tables
//	help  show help for pqkem-bench or for one command
//
// Run `pqkem-bench help` for the list of commands, and `pqkem-bench help
// <command>` or `pqkem-bench <command> -h` for a command's flags and
// examples. Each command prints its
// results, and with -md FILE also writes them to FILE as a Markdown
// document that names the machine, the Go version, pqkem's commit (from
// the build information: build or run with -buildvcs=true to record it)
// and the command line that regenerates it.
//
// Exit status: 0 on success, 1 on an operational error (for ct, a target
// that fails), 2 on a usage error (an unknown command or flag, a bad flag
// value).
//
// Unlike the pqkem command, which links pqkem's own code, the standard
// library and golang.org/x/crypto, x/sys and x/term only, pqkem-bench
// links the implementations it compares with
// (the standard library's crypto/mlkem and Cloudflare's CIRCL) and the
// timing harness of internal/dudect.
package main

import (
	"os"

	"github.com/pqkem/pqkem/internal/cli"
)

// program is pqkem-bench's table of commands, one file each.
var program = &cli.Program{
	Name:    "pqkem-bench",
	Summary: "measure pqkem: speed beside other implementations, and constant time.",
	Commands: []*cli.Command{
		cmdKEM,
		cmdPake,
		cmdPages,
		cmdFlood,
		cmdCT,
		cmdPeers,
	},
}

func main() {
	if spec, ok := os.LookupEnv(attackerEnv); ok {
		os.Exit(attackerMain(spec, os.Stdin, os.Stdout, os.Stderr)) // flood's child
	}
	program.Main()
}
