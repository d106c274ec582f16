package main

import (
	"flag"

	"github.com/pqkem/pqkem/internal/cli"
	"github.com/pqkem/pqkem/kem"
	"github.com/pqkem/pqkem/keyfile"
)

var cmdKeygen = &cli.Command{
	Name:    "keygen",
	Summary: "generate a private key and write it to a file",
	Args:    "-alg NAME -out FILE [-format pem|der|raw] [-force]",
	Doc: `
Keygen generates a new private key of the scheme -alg names and writes it
to -out, with mode 0600 (see Outputs below: an existing file is replaced
only with -force). The private key goes to standard output only if asked
for with -out -.

PEM and DER are PKCS#8: for ML-KEM, RFC 9935's seed form (the 64-byte
seed d || z, 86 bytes of DER), which OpenSSL 3.5 reads; for X-Wing, its
32-byte seed under its draft OID. Schemes without an object identifier
(FrodoKEM, the TLS hybrids) are written in pqkem's own PEM format, a
"PQKEM PRIVATE KEY" block with a "Scheme: NAME" header, and have no DER
form. Raw is the scheme's own encoding with no container. The CCS 2016
Frodo key exchange has no key files: its keys serve one exchange ('pqkem
demo' runs it).

Use 'pqkem pub' to get the public key, 'pqkem inspect' to look at it.` + outputHelp,
	Example: `
pqkem keygen -alg ML-KEM-768 -out key.pem
pqkem keygen -alg X25519MLKEM768 -out tls-key.pem
pqkem keygen -alg ML-KEM-1024 -format der -out key.der -force`,
	New: func() cli.Runner { return new(keygenCmd) },
}

// keygenCmd is one run of pqkem keygen.
type keygenCmd struct {
	alg, outName, format string
	force                bool
}

func (c *keygenCmd) Flags(fs *flag.FlagSet) {
	fs.StringVar(&c.alg, "alg", "", "the scheme `NAME` (see 'pqkem list'); required")
	fs.StringVar(&c.outName, "out", "", "write the private key to `FILE` (mode 0600), or to standard output for -; required")
	fs.StringVar(&c.format, "format", "pem", "output `format`: pem, der or raw")
	fs.BoolVar(&c.force, "force", false, "replace -out if it is an existing regular file")
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
		return cli.Usagef("-alg %s: its keys serve one exchange and have no key files (it is passively secure); 'pqkem demo -alg %s' runs it", s.Name(), s.Name())
	}
	f, err := outputFormat(c.format, s)
	if err != nil {
		return err
	}
	outs := outputs{force: c.force}
	if err := outs.check(out, outFile{name: c.outName}); err != nil {
		return err
	}
	dk, err := s.GenerateKey()
	if err != nil {
		return err
	}
	data, err := keyfile.EncodePrivateKey(dk, f)
	if err != nil {
		return err
	}
	return outs.write(out, outFile{c.outName, data, modeSecret})
}
