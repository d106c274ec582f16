package main

import (
	"flag"

	"github.com/pqkem/pqkem/internal/cli"
	"github.com/pqkem/pqkem/keyfile"
)

var cmdPub = &cli.Command{
	Name:    "pub",
	Summary: "write the public key of a private key",
	Args:    "-in FILE [-out FILE] [-format FORMAT] [flags]",
	Doc: `
Pub reads a private key and writes its public key: for ML-KEM and X-Wing
a SubjectPublicKeyInfo ("PUBLIC KEY", as OpenSSL 3.5 writes it), for
schemes without an object identifier pqkem's "PQKEM PUBLIC KEY" PEM
format, or the raw encapsulation key with -format raw.

The private key is checked first (see 'pqkem help keys'): a key that
fails is an error (exit status 1), and nothing is written. The public
key goes to standard output unless -out names a file; an existing file
is replaced only with -force, and never the input. See 'pqkem help
outputs' for how files are written and what a failure leaves.`,
	Example: `
pqkem pub -in key.pem -out pub.pem
pqkem pub -in key.pem -format raw | xxd | head -2
cat key.der | pqkem pub -in - -out pub.der -format der`,
	New: func() cli.Runner { return new(pubCmd) },
}

// pubCmd is one run of pqkem pub.
type pubCmd struct {
	in, outName, format string
	force               bool
	kf                  *keyFlags
}

func (c *pubCmd) Flags(fs *flag.FlagSet) {
	fs.StringVar(&c.in, "in", "", "read the private key from `FILE`, - for standard input; required")
	fs.StringVar(&c.outName, "out", "-", "write the public key to `FILE`, - for standard output")
	fs.StringVar(&c.format, "format", "pem", "output `FORMAT`: pem, der or raw")
	fs.BoolVar(&c.force, "force", false, "replace -out if it is an existing regular file")
	c.kf = addKeyFlags(fs, true)
}

func (c *pubCmd) Run(out *cli.Output, args []string) error {
	if err := cli.NoArgs(args); err != nil {
		return err
	}
	if err := required("in", c.in); err != nil {
		return err
	}
	if _, err := keyfile.ParseFormat(c.format); err != nil {
		return cli.Usagef("-format: unknown format %q, want pem, der or raw", c.format)
	}
	if _, err := c.kf.options(); err != nil {
		return err
	}
	outs := outputs{force: c.force, inputs: []string{c.in}}
	if err := outs.check(out, outFile{name: c.outName}); err != nil {
		return err
	}
	priv, err := c.kf.readPrivateKey(c.in)
	if err != nil {
		return err
	}
	ek := priv.Key.EncapsulationKey()
	f, err := outputFormat(c.format, ek.Scheme())
	if err != nil {
		return err
	}
	data, err := keyfile.EncodePublicKey(ek, f)
	if err != nil {
		return err
	}
	return outs.write(out, outFile{c.outName, data, modePublic})
}
