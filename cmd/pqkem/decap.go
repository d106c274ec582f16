package main

import (
	"flag"
	"fmt"
)

func init() {
	register(&command{
		name:    "decap",
		summary: "decapsulate a ciphertext with a private key",
		args:    "-key FILE -in FILE -secret FILE [-inform FORMAT] [-alg NAME] [-lenient] [-force]",
		doc: `
Decap reads a private key and a ciphertext made with 'pqkem encap' (or
OpenSSL's pkeyutl -encap) for its public key, and writes the shared key,
raw bytes, to -secret with mode 0600. A ciphertext of the wrong length is
an error. A ciphertext of the right length that was not made for this key
is not: ML-KEM then gives a pseudorandom key that the sender cannot know
(FIPS 203 implicit rejection), so compare the two sides' keys, or use
them, to find out.

The shared key goes to standard output only if asked for with -secret -.
The file is written atomically, and an existing file is replaced only
with -force. At most one of -key and -in may be - (standard input).`,
		example: `
pqkem decap -key key.pem -in ct.bin -secret ss.bin
pqkem decap -key key.pem -in ct.bin -secret - | xxd`,
		setup: func(fs *flag.FlagSet) func(*output, []string) error {
			keyName := fs.String("key", "", "read the private key from `FILE`, or from standard input for -; required")
			ctName := fs.String("in", "", "read the ciphertext from `FILE`, or from standard input for -; required")
			secretName := fs.String("secret", "", "write the shared key to `FILE` (mode 0600), or to standard output for -; required")
			force := fs.Bool("force", false, "overwrite -secret if it exists")
			kf := addKeyFlags(fs, true)
			return func(out *output, args []string) error {
				if err := noArgs(args); err != nil {
					return err
				}
				for _, r := range []struct{ name, value string }{{"key", *keyName}, {"in", *ctName}, {"secret", *secretName}} {
					if err := required(r.name, r.value); err != nil {
						return err
					}
				}
				if *keyName == "-" && *ctName == "-" {
					return usagef("-key and -in cannot both be - (standard input)")
				}
				if _, err := kf.options(); err != nil {
					return err
				}
				if err := checkOutputs(*force, outFile{name: *secretName}); err != nil {
					return err
				}
				priv, err := kf.readPrivateKey(*keyName)
				if err != nil {
					return err
				}
				ciphertext, err := readInput(*ctName)
				if err != nil {
					return err
				}
				s := priv.Key.Scheme()
				if want := s.CiphertextSize(); len(ciphertext) != want {
					return fmt.Errorf("%s: %s ciphertext is %d bytes, want %d", displayName(*ctName), s.Name(), len(ciphertext), want)
				}
				sharedKey, err := priv.Key.Decapsulate(ciphertext)
				if err != nil {
					return fmt.Errorf("%s: %s: %v", displayName(*ctName), s.Name(), err)
				}
				return writeOutputs(out, *force, outFile{*secretName, sharedKey, modeSecret})
			}
		},
	})
}
