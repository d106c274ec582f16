package main

import (
	"flag"

	"github.com/pqkem/pqkem/internal/cli"
)

var cmdEncap = &cli.Command{
	Name:    "encap",
	Summary: "encapsulate a fresh shared key to a public key",
	Args:    "-pub FILE -out FILE -secret FILE [flags]",
	Doc: `
Encap reads a public key (a "PUBLIC KEY" or "PQKEM PUBLIC KEY" file as
'pqkem pub' writes it, or an X.509 certificate, whose subject key it
takes without verifying the certificate), checks it as the scheme
requires (for ML-KEM, the FIPS 203 modulus check), and encapsulates a
fresh shared key to it. It writes the ciphertext, which goes to the
holder of the private key, to -out, and the shared key, raw bytes, to
-secret with mode 0600.

Both outputs must be named, and be two different files; either may be -
for standard output, but not both. The shared key goes to standard output
only if asked for with -secret -. The outputs are written both or
neither, and an existing file is replaced only with -force. See 'pqkem
help outputs' for how files are written, 'pqkem help keys' for formats.`,
	Example: `
pqkem encap -pub pub.pem -out ct.bin -secret ss.bin
pqkem encap -pub pub.pem -out - -secret ss.bin | ssh host pqkem decap -key key.pem -in - -secret ss.bin`,
	New: func() cli.Runner { return new(encapCmd) },
}

// encapCmd is one run of pqkem encap.
type encapCmd struct {
	pubName, ctName, secretName string
	force                       bool
	kf                          *keyFlags
}

func (c *encapCmd) Flags(fs *flag.FlagSet) {
	fs.StringVar(&c.pubName, "pub", "", "read the public key from `FILE`, - for standard input; required")
	fs.StringVar(&c.ctName, "out", "", "write the ciphertext to `FILE`, - for standard output; required")
	fs.StringVar(&c.secretName, "secret", "", "write the shared key to `FILE` (0600), - for standard output; required")
	fs.BoolVar(&c.force, "force", false, "replace the outputs that are existing regular files")
	c.kf = addKeyFlags(fs, false)
}

func (c *encapCmd) Run(out *cli.Output, args []string) error {
	if err := cli.NoArgs(args); err != nil {
		return err
	}
	if err := required("pub", c.pubName, "out", c.ctName, "secret", c.secretName); err != nil {
		return err
	}
	if _, err := c.kf.options(); err != nil {
		return err
	}
	outs := outputs{force: c.force, inputs: []string{c.pubName}}
	if err := outs.check(out, outFile{name: c.ctName}, outFile{name: c.secretName}); err != nil {
		return err
	}
	pub, err := c.kf.readPublicKey(c.pubName)
	if err != nil {
		return err
	}
	sharedKey, ciphertext := pub.Key.Encapsulate()
	return outs.write(out,
		outFile{c.ctName, ciphertext, modePublic},
		outFile{c.secretName, sharedKey, modeSecret})
}
