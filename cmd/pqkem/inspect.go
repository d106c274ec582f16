package main

import (
	"bytes"
	"cmp"
	"flag"
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/pqkem/pqkem/internal/cli"
	"github.com/pqkem/pqkem/kem"
	"github.com/pqkem/pqkem/keyfile"
)

var cmdInspect = &cli.Command{
	Name:    "inspect",
	Summary: "describe a key file without showing secrets",
	Args:    "[-inform FORMAT] [-alg NAME] [-lenient] FILE",
	Doc: `
Inspect reads a private or public key file (or an X.509 certificate, for
its subject key; - reads standard input), checks it as 'pqkem pub' and
'pqkem encap' would, and describes it: whether it is a private or a
public key, its scheme, how it is encoded (PEM or DER, PKCS#8 or
SubjectPublicKeyInfo with the OID, or pqkem's own format), the form of a
private key (RFC 9935 seed, expandedKey or both), which checks it passed,
the sizes of the public key, ciphertext and shared key, and the public
key's fingerprint: the first 16 bytes of the SHA-256 of the encoded
public key, in hex. It never prints a private key, a seed or any part of
them.

A raw file (-inform raw, with -alg) is taken for a public key if it has
the size of the scheme's public keys, and for a private key otherwise.`,
	Example: `
pqkem inspect key.pem
pqkem inspect -inform raw -alg ML-KEM-768 pub.bin`,
	New: func() cli.Runner { return new(inspectCmd) },
}

// inspectCmd is one run of pqkem inspect.
type inspectCmd struct {
	kf *keyFlags
}

func (c *inspectCmd) Flags(fs *flag.FlagSet) {
	c.kf = addKeyFlags(fs, true)
}

func (c *inspectCmd) Run(out *cli.Output, args []string) error {
	if len(args) != 1 {
		return cli.Usagef("inspect takes one file name (or -), not %d arguments", len(args))
	}
	opts, err := c.kf.options()
	if err != nil {
		return err
	}
	name := args[0]
	data, err := readInput(name, maxKeyFile, "key files")
	if err != nil {
		return err
	}
	priv, pub, err := keyfile.Decode(data, opts)
	if err != nil {
		hint := keyHint(data, opts, true)
		if opts.Format == keyfile.Auto && !bytes.Contains(data, []byte("-----BEGIN")) {
			hint = cmp.Or(rawHint(len(data), false), rawHint(len(data), true))
		}
		return cli.WithHint(fmt.Errorf("%s: %w", displayName(name), err), hint)
	}
	return inspect(out.Stdout, displayName(name), len(data), priv, pub)
}

// inspect describes a key; exactly one of priv and pub is not nil.
func inspect(w io.Writer, name string, size int, priv *keyfile.PrivateKey, pub *keyfile.PublicKey) error {
	var (
		ek             kem.EncapsulationKey
		kind, checks   string
		format         keyfile.Format
		pemType, label string
	)
	if priv != nil {
		ek = priv.Key.EncapsulationKey()
		kind, format, pemType, label = "private key", priv.Format, priv.PEMType, "PKCS#8"
		checks = privateChecks(priv.Form)
	} else {
		ek = pub.Key
		kind, format, pemType, label = "public key", pub.Format, pub.PEMType, "SubjectPublicKeyInfo"
		checks = "the scheme's public key checks (for ML-KEM, the FIPS 203 modulus check)"
	}
	s := ek.Scheme()

	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	row := func(k, format string, args ...any) { fmt.Fprintf(tw, "%s:\t%s\n", k, fmt.Sprintf(format, args...)) }
	row("file", "%s (%d bytes)", name, size)
	row("contents", "%s", kind)
	if sp, ok := s.(kem.Specifier); ok {
		row("scheme", "%s (%s)", s.Name(), sp.Specification())
	} else {
		row("scheme", "%s", s.Name())
	}
	oid, hasOID := keyfile.OID(s)
	switch {
	case format == keyfile.Raw:
		row("encoding", "raw (the scheme's own encoding, no container)")
	case pemType == keyfile.PEMCertificate:
		row("encoding", "PEM %q (X.509, not verified), subject key: SubjectPublicKeyInfo, OID %v", pemType, oid)
	case pemType == keyfile.PEMProjectPrivateKey || pemType == keyfile.PEMProjectPublicKey:
		row("encoding", "PEM %q (pqkem's format for schemes without an OID)", pemType)
	case format == keyfile.PEM && hasOID:
		row("encoding", "PEM %q (%s), OID %v", pemType, label, oid)
	case hasOID:
		row("encoding", "DER (%s), OID %v", label, oid)
	}
	if priv != nil {
		row("form", "%s", describeForm(priv))
	}
	row("checks", "passed: %s", checks)
	row("public key", "%d bytes, fingerprint %s", len(ek.Bytes()), keyfile.Fingerprint(ek))
	row("ciphertext", "%d bytes", s.CiphertextSize())
	row("shared key", "%d bytes", s.SharedKeySize())
	return tw.Flush()
}

func describeForm(priv *keyfile.PrivateKey) string {
	n := len(priv.Key.Bytes())
	switch priv.Form {
	case keyfile.FormSeed:
		return fmt.Sprintf("seed (%d bytes)", n)
	case keyfile.FormExpanded:
		return fmt.Sprintf("expandedKey (the %d-byte FIPS 203 decapsulation key; no seed)", n)
	case keyfile.FormBoth:
		return fmt.Sprintf("both (the %d-byte seed and the expandedKey)", n)
	case keyfile.FormBareSeed:
		return fmt.Sprintf("bare seed (%d bytes; a pre-RFC 9935 encoding, read because of -lenient)", n)
	case keyfile.FormBareExpanded:
		return fmt.Sprintf("bare expanded key (%d bytes, no seed; a pre-RFC 9935 encoding, read because of -lenient)", n)
	}
	return fmt.Sprintf("the scheme's own encoding (%d bytes)", n)
}

func privateChecks(f keyfile.Form) string {
	switch f {
	case keyfile.FormSeed, keyfile.FormBareSeed:
		return "the key is derived from the seed"
	case keyfile.FormExpanded, keyfile.FormBareExpanded:
		return "FIPS 203 hash check, pairwise consistency check"
	case keyfile.FormBoth:
		return "the seed derives the expandedKey"
	}
	return "the scheme's checks, pairwise consistency check"
}
