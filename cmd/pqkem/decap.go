package main

import (
	"flag"
	"fmt"

	"github.com/pqkem/pqkem/internal/cli"
)

var cmdDecap = &cli.Command{
	Name:    "decap",
	Summary: "decapsulate a ciphertext with a private key",
	Args:    "-key FILE -in FILE -secret FILE [flags]",
	Doc: `
Decap reads a private key and a ciphertext made with 'pqkem encap' (or
OpenSSL's pkeyutl -encap) for its public key, and writes the shared key,
raw bytes, to -secret with mode 0600. A ciphertext of the wrong length is
an error. A ciphertext of the right length that was not made for this key
is not: ML-KEM then gives a pseudorandom key that the sender cannot know
(FIPS 203 implicit rejection), so compare the two sides' keys, or use
them, to find out.

The shared key goes to standard output only if asked for with -secret -.
An existing file is replaced only with -force, and never an input. At
most one of -key and -in may be - (standard input). See 'pqkem help
outputs' for how files are written, 'pqkem help keys' for formats.`,
	Example: `
pqkem decap -key key.pem -in ct.bin -secret ss.bin
pqkem decap -key key.pem -in ct.bin -secret - | xxd`,
	New: func() cli.Runner { return new(decapCmd) },
}

// decapCmd is one run of pqkem decap.
type decapCmd struct {
	keyName, ctName, secretName string
	force                       bool
	kf                          *keyFlags
}

func (c *decapCmd) Flags(fs *flag.FlagSet) {
	fs.StringVar(&c.keyName, "key", "", "read the private key from `FILE`, - for standard input; required")
	fs.StringVar(&c.ctName, "in", "", "read the ciphertext from `FILE`, - for standard input; required")
	fs.StringVar(&c.secretName, "secret", "", "write the shared key to `FILE` (0600), - for standard output; required")
	fs.BoolVar(&c.force, "force", false, "replace -secret if it is an existing regular file")
	c.kf = addKeyFlags(fs, true)
}

func (c *decapCmd) Run(out *cli.Output, args []string) error {
	if err := cli.NoArgs(args); err != nil {
		return err
	}
	if err := required("key", c.keyName, "in", c.ctName, "secret", c.secretName); err != nil {
		return err
	}
	if c.keyName == "-" && c.ctName == "-" {
		return cli.Usagef("-key and -in cannot both be - (standard input)")
	}
	if _, err := c.kf.options(); err != nil {
		return err
	}
	outs := outputs{force: c.force, inputs: []string{c.keyName, c.ctName}}
	if err := outs.check(out, outFile{name: c.secretName}); err != nil {
		return err
	}
	priv, err := c.kf.readPrivateKey(c.keyName)
	if err != nil {
		return err
	}
	s := priv.Key.Scheme()
	want := s.CiphertextSize()
	ciphertext, err := readUpTo(c.ctName, int64(want))
	if err != nil {
		return err
	}
	switch {
	case len(ciphertext) > want:
		return fmt.Errorf("%s: %s ciphertext is more than %d bytes, want %d", displayName(c.ctName), s.Name(), want, want)
	case len(ciphertext) != want:
		return fmt.Errorf("%s: %s ciphertext is %s, want %d", displayName(c.ctName), s.Name(), count(len(ciphertext), "byte"), want)
	}
	sharedKey, err := priv.Key.Decapsulate(ciphertext)
	if err != nil {
		return fmt.Errorf("%s: %s: %w", displayName(c.ctName), s.Name(), err)
	}
	return outs.write(out, outFile{c.secretName, sharedKey, modeSecret})
}
