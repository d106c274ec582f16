package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"time"

	"github.com/pqkem/pqkem/internal/cli"
	"github.com/pqkem/pqkem/kem"
)

var cmdDemo = &cli.Command{
	Name:    "demo",
	Summary: "run a key exchange with every scheme and check that both sides agree",
	Args:    "[-alg NAME]",
	Doc: `
Demo runs a key exchange between Alice and Bob, in memory, with every
scheme pqkem has (or the one -alg names): Alice generates a key pair and
sends her encapsulation key; Bob parses it, encapsulates a fresh shared
key to it and sends the ciphertext back; Alice decapsulates the ciphertext.
(For the Frodo paper's key exchange, Frodo-CCS2016-*, these are its three
steps: Alice0, Bob and Alice1.) Each scheme's line names its
specification and its limits, as 'pqkem list' does.
For each scheme it prints the sizes of what goes over the wire, the time
each step took, and a fingerprint of the shared key each side ends up with
(the first 8 bytes of its SHA-256, in hex; the key itself is never
printed), and whether they match.

The exit status is 1 if any exchange fails or the two sides disagree.`,
	Example: `
pqkem demo
pqkem demo -alg ML-KEM-768`,
	New: func() cli.Runner { return new(demoCmd) },
}

// demoCmd is one run of pqkem demo.
type demoCmd struct {
	alg string
}

func (c *demoCmd) Flags(fs *flag.FlagSet) {
	fs.StringVar(&c.alg, "alg", "", "run only the scheme `NAME` (see 'pqkem list'); default: every scheme")
}

func (c *demoCmd) Run(out *cli.Output, args []string) error {
	if err := cli.NoArgs(args); err != nil {
		return err
	}
	schemes := allSchemes()
	if c.alg != "" {
		s, err := schemeFlag(c.alg)
		if err != nil {
			return err
		}
		schemes = []kem.Scheme{s}
	}
	return demo(out.Stdout, schemes)
}

func demo(w io.Writer, schemes []kem.Scheme) error {
	fmt.Fprintf(w, "Key exchange between Alice and Bob with %d scheme(s). Fingerprints are the first\n", len(schemes))
	fmt.Fprintf(w, "8 bytes of SHA-256 of the shared key; the shared key itself is never printed.\n")
	fmt.Fprintf(w, "Times are of a single run (the first scheme's include start-up costs);\n")
	fmt.Fprintf(w, "for measurements, run pqkem-bench kem (cmd/pqkem-bench) or go test -bench.\n")
	var failed []string
	for _, s := range schemes {
		fmt.Fprintln(w)
		if err := exchange(w, s); err != nil {
			fmt.Fprintf(w, "  FAILED: %v\n", err)
			failed = append(failed, s.Name())
		}
	}
	fmt.Fprintln(w)
	if len(failed) > 0 {
		return fmt.Errorf("key exchange failed with %d of %d scheme(s): %v", len(failed), len(schemes), failed)
	}
	fmt.Fprintf(w, "Alice and Bob agreed on the shared key with every scheme (%d of %d).\n", len(schemes), len(schemes))
	return nil
}

// exchange runs one key exchange with s, printing each step as it goes.
// It returns an error if a step fails, a size is not the one s announces,
// or the two sides end up with different keys.
func exchange(w io.Writer, s kem.Scheme) error {
	title := s.Name()
	if sp, ok := s.(kem.Specifier); ok {
		title += " (" + sp.Specification() + ")"
	}
	fmt.Fprintf(w, "%s\n", title)
	fmt.Fprintf(w, "  sizes: encapsulation key %d bytes, ciphertext %d bytes, shared key %d bytes\n",
		s.EncapsulationKeySize(), s.CiphertextSize(), s.SharedKeySize())

	start := time.Now()
	dk, err := s.GenerateKey()
	if err != nil {
		return fmt.Errorf("key generation (Alice): %w", err)
	}
	ekBytes := dk.EncapsulationKey().Bytes()
	printStep(w, "Alice", "generates a key pair, sends the encapsulation key", start)

	start = time.Now()
	ek, err := s.NewEncapsulationKey(ekBytes)
	if err != nil {
		return fmt.Errorf("parsing Alice's encapsulation key (Bob): %w", err)
	}
	bobKey, ciphertext := ek.Encapsulate()
	printStep(w, "Bob", "parses it, encapsulates a shared key, sends the ciphertext", start)

	start = time.Now()
	aliceKey, err := dk.Decapsulate(ciphertext)
	if err != nil {
		return fmt.Errorf("decapsulating Bob's ciphertext (Alice): %w", err)
	}
	printStep(w, "Alice", "decapsulates the ciphertext", start)

	fmt.Fprintf(w, "  Alice's shared key: fingerprint %s\n", fingerprint(aliceKey))
	fmt.Fprintf(w, "  Bob's shared key:   fingerprint %s\n", fingerprint(bobKey))
	for _, c := range []struct {
		what      string
		got, want int
	}{
		{"the encapsulation key", len(ekBytes), s.EncapsulationKeySize()},
		{"the ciphertext", len(ciphertext), s.CiphertextSize()},
		{"Alice's shared key", len(aliceKey), s.SharedKeySize()},
		{"Bob's shared key", len(bobKey), s.SharedKeySize()},
	} {
		if c.got != c.want {
			return fmt.Errorf("%s is %d bytes, but %s announces %d", c.what, c.got, s.Name(), c.want)
		}
	}
	if !bytes.Equal(aliceKey, bobKey) {
		fmt.Fprintf(w, "  match: NO\n")
		return errors.New("the shared keys of Alice and Bob differ")
	}
	fmt.Fprintf(w, "  match: yes\n")
	return nil
}

// printStep prints one step of an exchange and the time since start.
func printStep(w io.Writer, who, what string, start time.Time) {
	fmt.Fprintf(w, "  %-5s  %-58s %9s\n", who, what, formatDuration(time.Since(start)))
}

// fingerprint identifies a secret without revealing it: the first 8 bytes
// of its SHA-256, in hex.
func fingerprint(secret []byte) string {
	h := sha256.Sum256(secret)
	return hex.EncodeToString(h[:8])
}

// formatDuration prints d with a fixed number of decimals in its unit,
// so that the times in a column line up.
func formatDuration(d time.Duration) string {
	switch {
	case d >= time.Second:
		return fmt.Sprintf("%.2fs", d.Seconds())
	case d >= time.Millisecond:
		return fmt.Sprintf("%.2fms", float64(d)/float64(time.Millisecond))
	}
	return fmt.Sprintf("%.1fµs", float64(d)/float64(time.Microsecond))
}
