package main

import (
	"flag"
)

func init() {
	register(&command{
		name:    "encap",
		summary: "encapsulate a fresh shared key to a public key",
		args:    "-pub FILE -out FILE -secret FILE [-inform FORMAT] [-alg NAME] [-force]",
		doc: `
Encap reads a public key (a "PUBLIC KEY" or "PQKEM PUBLIC KEY" file as
'pqkem pub' writes it, or an X.509 certificate, whose subject key it
takes without verifying the certificate), checks it as the scheme
requires (for ML-KEM, the FIPS 203 modulus check), and encapsulates a
fresh shared key to it. It writes the ciphertext, which goes to the
holder of the private key, to -out, and the shared key, raw bytes, to
-secret with mode 0600.

Both outputs must be named; either may be - for standard output, but not
both. The shared key goes to standard output only if asked for with
-secret -. Files are written atomically, both or neither, and an existing
file is replaced only with -force.`,
		example: `
pqkem encap -pub pub.pem -out ct.bin -secret ss.bin
pqkem encap -pub pub.pem -out - -secret ss.bin | ssh host pqkem decap -key key.pem -in - -secret ss.bin`,
		setup: func(fs *flag.FlagSet) func(*output, []string) error {
			pubName := fs.String("pub", "", "read the public key from `FILE`, or from standard input for -; required")
			ctName := fs.String("out", "", "write the ciphertext to `FILE`, or to standard output for -; required")
			secretName := fs.String("secret", "", "write the shared key to `FILE` (mode 0600), or to standard output for -; required")
			force := fs.Bool("force", false, "overwrite the output files if they exist")
			kf := addKeyFlags(fs, false)
			return func(out *output, args []string) error {
				if err := noArgs(args); err != nil {
					return err
				}
				for _, r := range []struct{ name, value string }{{"pub", *pubName}, {"out", *ctName}, {"secret", *secretName}} {
					if err := required(r.name, r.value); err != nil {
						return err
					}
				}
				if _, err := kf.options(); err != nil {
					return err
				}
				if err := checkOutputs(*force, outFile{name: *ctName}, outFile{name: *secretName}); err != nil {
					return err
				}
				pub, err := kf.readPublicKey(*pubName)
				if err != nil {
					return err
				}
				sharedKey, ciphertext := pub.Key.Encapsulate()
				return writeOutputs(out, *force,
					outFile{*ctName, ciphertext, modePublic},
					outFile{*secretName, sharedKey, modeSecret})
			}
		},
	})
}
