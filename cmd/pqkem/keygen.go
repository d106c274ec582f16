package main

import (
	"flag"
	"fmt"

	"github.com/pqkem/pqkem/internal/cli"
	"github.com/pqkem/pqkem/kem"
	"github.com/pqkem/pqkem/keyfile"
)

var cmdKeygen = &cli.Command{
	Name:    "keygen",
	Summary: "generate a private key and write it to a file",
	Args:    "-alg NAME -out FILE [-pub FILE] [-format FORMAT] [-force]",
	Doc: `
Keygen generates a new private key of the scheme -alg names and writes it
to -out, with mode 0600, and its public key to -pub, if given, with mode
0644, in the same -format. The private key goes to standard output only
if asked for with -out -. An existing file is replaced only with -force.

It prints the public key's fingerprint on standard error, as "public key
fingerprint: SHA256:...", so that it never mixes with a key written to
standard output; 'pqkem inspect' shows the same fingerprint.

An eFrodoKEM key is for fewer than 2^8 ciphertexts: keygen writes it but
warns on standard error, and 'pqkem serve' refuses it. The Frodo paper's
key exchange (Frodo-CCS2016-*) has no key files ('pqkem demo' runs it).

PEM and DER are PKCS#8 (for ML-KEM, RFC 9935's seed form); schemes
without an object identifier have pqkem's own PEM format and no DER.
See 'pqkem help keys' for the formats, 'pqkem help outputs' for how
files are written and what a failure leaves.`,
	Example: `
pqkem keygen -alg ML-KEM-768 -out key.pem -pub pub.pem
pqkem keygen -alg X25519MLKEM768 -out tls-key.pem
pqkem keygen -alg ML-KEM-1024 -format der -out key.der -force`,
	New: func() cli.Runner { return new(keygenCmd) },
}

// keygenCmd is one run of pqkem keygen.
type keygenCmd struct {
	alg, outName, pubName, format string
	force                         bool
}

func (c *keygenCmd) Flags(fs *flag.FlagSet) {
	fs.StringVar(&c.alg, "alg", "", "the scheme `NAME` (see 'pqkem list'); required")
	fs.StringVar(&c.outName, "out", "", "write the private key to `FILE` (0600), - for standard output; required")
	fs.StringVar(&c.pubName, "pub", "", "also write the public key to `FILE` (0644), - for standard output")
	fs.StringVar(&c.format, "format", "pem", "output `FORMAT`: pem, der or raw")
	fs.BoolVar(&c.force, "force", false, "replace the outputs that are existing regular files")
}

func (c *keygenCmd) Run(out *cli.Output, args []string) error {
	if err := cli.NoArgs(args); err != nil {
		return err
	}
	if err := required("alg", c.alg, "out", c.outName); err != nil {
		return err
	}
	s, err := schemeFlag(c.alg)
	if err != nil {
		return err
	}
	if kem.SingleUse(s) {
		return cli.Hintf(cli.Usagef("-alg %s: its keys serve one exchange and have no key files (it is passively secure)", s.Name()),
			"'pqkem demo -alg %s' runs it", s.Name())
	}
	f, err := outputFormat(c.format, s)
	if err != nil {
		return err
	}
	outs := outputs{force: c.force}
	if err := outs.check(out, outFile{name: c.outName}, outFile{name: c.pubName}); err != nil {
		return err
	}
	if kem.EphemeralOnly(s) {
		fmt.Fprintf(out.Stderr, "pqkem keygen: warning: %s keys are for fewer than 2^8 ciphertexts each: use this one for one exchange or a few; pqkem serve refuses it\n", s.Name())
	}
	dk, err := s.GenerateKey()
	if err != nil {
		return err
	}
	data, err := keyfile.EncodePrivateKey(dk, f)
	if err != nil {
		return err
	}
	files := []outFile{{c.outName, data, modeSecret}}
	ek := dk.EncapsulationKey()
	if c.pubName != "" {
		pub, err := keyfile.EncodePublicKey(ek, f)
		if err != nil {
			return err
		}
		files = append(files, outFile{c.pubName, pub, modePublic})
	}
	if err := outs.write(out, files...); err != nil {
		return err
	}
	fmt.Fprintf(out.Stderr, "public key fingerprint: %s\n", keyfile.Fingerprint(ek))
	return nil
}
