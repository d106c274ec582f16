// Command pqkem makes post-quantum key exchange visible from a terminal.
//
// Usage:
//
//	pqkem <command> [flags] [arguments]
//
// The commands are:
//
//	demo     run a key exchange with every scheme and check that both sides agree
//	list     list every scheme with its sizes and status
//	keygen   generate a private key and write it to a file
//	pub      write the public key of a private key
//	encap    encapsulate a fresh shared key to a public key
//	decap    decapsulate a ciphertext with a private key
//	inspect  describe a key file without showing secrets
//	pake     agree on a key with a peer who knows the same password (over TCP)
//	serve    accept PQNoise connections and forward each to a TCP or Unix service
//	connect  tunnel standard input and output, or a local port, to 'pqkem serve'
//	version  print the version of pqkem and the Go it was built with
//	help     show help for pqkem, one command or one topic
//
// The help topics are:
//
//	keys     key files: formats, checks, fingerprints, ephemeral keys, names
//	outputs  how commands write files, and what a failure leaves
//	tunnel   serve and connect: protocol, keys, limits, ends, signals, log
//
// Key files are PKCS#8 and SubjectPublicKeyInfo, PEM or DER, as RFC 9935
// and OpenSSL 3.5 have them for ML-KEM; see package
// github.com/pqkem/pqkem/keyfile for every scheme's encoding.
//
// Run `pqkem help` for the list of commands and topics, `pqkem help
// <command>` or `pqkem <command> -h` for a command's flags and examples,
// and `pqkem help <topic>` for a topic.
//
// Exit status: 0 on success, 1 on an operational error (a failed key
// exchange, a bad file, a wrong key), 2 on a usage error (an unknown
// command or flag, a missing or unexpected argument).
//
// pqkem links pqkem's own code, the standard library and
// golang.org/x/crypto, golang.org/x/sys and golang.org/x/term (for reading
// a password without echo), nothing else: no other implementation, no
// measurement code. The measurements, the comparisons with other
// implementations and the constant-time tests are in the separate command
// github.com/pqkem/pqkem/cmd/pqkem-bench.
package main

import (
	"fmt"
	"strings"

	"github.com/pqkem/pqkem/internal/cli"
	"github.com/pqkem/pqkem/kem"
)

// program is pqkem's table of commands, one file each.
var program = &cli.Program{
	Name:    "pqkem",
	Summary: "post-quantum key exchange from the command line.",
	Commands: []*cli.Command{
		cmdDemo,
		cmdList,
		cmdKeygen,
		cmdPub,
		cmdEncap,
		cmdDecap,
		cmdInspect,
		cmdPake,
		cmdServe,
		cmdConnect,
		cmdVersion,
	},
	Topics: topics,
}

func main() {
	handleInterrupts()
	program.Exit = exit
	program.Main()
}

// schemeFlag looks up the scheme named by an -alg flag; an unknown name
// is a usage error, with a hint.
func schemeFlag(name string) (kem.Scheme, error) {
	s, err := kem.ByName(name)
	if err != nil {
		return nil, cli.WithHint(cli.Usagef("-alg: unknown scheme %q", name), schemeHint(name))
	}
	return s, nil
}

// schemeHint suggests the scheme a mistyped name meant.
func schemeHint(name string) string {
	near := cli.Nearest(name, kem.Names())
	if rest, ok := strings.CutPrefix(strings.ToLower(name), "kyber"); ok {
		if s, err := kem.ByName("ML-KEM-" + strings.TrimLeft(rest, "-")); err == nil {
			near = s.Name() // the standard that Kyber became
		}
	}
	if near != "" {
		return "did you mean " + near + "? 'pqkem list -names' lists every scheme"
	}
	return "'pqkem list -names' lists every scheme"
}

// allSchemes lists the schemes the commands iterate over. Tests replace it.
var allSchemes = kem.All

// count words n things: "1 key", "2 keys".
func count(n int, thing string) string {
	if n == 1 {
		return "1 " + thing
	}
	return fmt.Sprintf("%d %ss", n, thing)
}
