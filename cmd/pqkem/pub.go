package main

import (
	"flag"

	"github.com/pqkem/pqkem/keyfile"
)

func init() {
	register(&command{
		name:    "pub",
		summary: "write the public key of a private key",
		args:    "-in FILE [-out FILE] [-format pem|der|raw] [-inform FORMAT] [-alg NAME] [-lenient] [-force]",
		doc: `
Pub reads a private key and writes its public key: for ML-KEM and X-Wing
a SubjectPublicKeyInfo ("PUBLIC KEY", as OpenSSL 3.5 writes it), for
schemes without an object identifier pqkem's "PQKEM PUBLIC KEY" PEM
format, or the raw encapsulation key with -format raw.

The private key is checked before anything is written: an ML-KEM key in
the expandedKey form must pass the FIPS 203 hash check and a pairwise
consistency check, and in the both form its seed and expanded key must
agree. A key that fails is an error (exit status 1), and nothing is
written. The public key goes to standard output unless -out names a file;
an existing file is replaced only with -force.`,
		example: `
pqkem pub -in key.pem -out pub.pem
pqkem pub -in key.pem -format raw | xxd | head -2
cat key.der | pqkem pub -in - -out pub.der -format der`,
		setup: func(fs *flag.FlagSet) func(*output, []string) error {
			in := fs.String("in", "", "read the private key from `FILE`, or from standard input for -; required")
			outName := fs.String("out", "-", "write the public key to `FILE`; - is standard output")
			format := fs.String("format", "pem", "output `format`: pem, der or raw")
			force := fs.Bool("force", false, "overwrite -out if it exists")
			kf := addKeyFlags(fs, true)
			return func(out *output, args []string) error {
				if err := noArgs(args); err != nil {
					return err
				}
				if err := required("in", *in); err != nil {
					return err
				}
				if _, err := keyfile.ParseFormat(*format); err != nil {
					return usagef("-format: unknown format %q, want pem, der or raw", *format)
				}
				if _, err := kf.options(); err != nil {
					return err
				}
				if err := checkOutputs(*force, outFile{name: *outName}); err != nil {
					return err
				}
				priv, err := kf.readPrivateKey(*in)
				if err != nil {
					return err
				}
				ek := priv.Key.EncapsulationKey()
				f, err := outputFormat(*format, ek.Scheme())
				if err != nil {
					return err
				}
				data, err := keyfile.EncodePublicKey(ek, f)
				if err != nil {
					return err
				}
				return writeOutputs(out, *force, outFile{*outName, data, modePublic})
			}
		},
	})
}
