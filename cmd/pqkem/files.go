package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"

	"github.com/pqkem/pqkem/internal/cli"
	"github.com/pqkem/pqkem/kem"
	"github.com/pqkem/pqkem/keyfile"
)

// What the key file commands (keygen, pub, encap, decap, inspect) share:
// reading inputs, within a size limit, and the flags that say how to read
// a key. Writing the outputs is in output.go.

// stdin is where an input named "-" is read from.
var stdin io.Reader = os.Stdin

// File modes of what the commands write.
const (
	modeSecret = 0o600 // private keys and shared keys
	modePublic = 0o644 // public keys and ciphertexts
)

// The size limits of the inputs, a little above the largest valid input
// of each kind. A larger input is refused with an error after reading at
// most one byte more than the limit. A ciphertext's limit is its scheme's
// ciphertext size.
const (
	// maxPrivateKeyFile is for private key files: the largest valid one is
	// a FrodoKEM-1344 key as the specification's sk (which keygen does not
	// write, but a key read from one is written so) in pqkem's PEM
	// format, about 58 KB.
	maxPrivateKeyFile = 64 << 10
	// maxPublicKeyFile is for public key files and certificates: the
	// largest public key, FrodoKEM-1344's, is about 29 KB in PEM, but a
	// certificate for an ML-KEM-1024 key signed with SLH-DSA-SHAKE-256f
	// (a 49,856-byte signature) is about 70 KB.
	maxPublicKeyFile = 96 << 10
	// maxKeyFile is for a file that may be either.
	maxKeyFile = max(maxPrivateKeyFile, maxPublicKeyFile)
)

// readInput reads the file name, or standard input if name is "-", of at
// most limit bytes; what names such inputs, for the error about a larger
// one ("private key files").
func readInput(name string, limit int64, what string) ([]byte, error) {
	data, err := readUpTo(name, limit)
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("%s: more than %d bytes, the limit for %s", displayName(name), limit, what)
	}
	return data, nil
}

// readUpTo reads the file name, or standard input if name is "-", up to
// limit+1 bytes: more than limit bytes says that the input is larger.
func readUpTo(name string, limit int64) ([]byte, error) {
	r, err := openInput(name)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	data, err := io.ReadAll(io.LimitReader(r, limit+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", displayName(name), unwrapPath(err))
	}
	return data, nil
}

// openInput opens the file name for reading, or standard input if name is
// "-"; a directory is an error.
func openInput(name string) (io.ReadCloser, error) {
	if name == "-" {
		return io.NopCloser(stdin), nil
	}
	f, err := os.Open(name)
	if err != nil {
		return nil, pathError(name, err)
	}
	if fi, err := f.Stat(); err == nil && fi.IsDir() {
		f.Close()
		return nil, fmt.Errorf("%s: is a directory, want a file", name)
	}
	return f, nil
}

// pathError words err about the file name as "name: what".
func pathError(name string, err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return fmt.Errorf("%s: %w", name, pe.Err)
	}
	return err
}

// keyFlags are the flags that say how to read a key.
type keyFlags struct {
	inform  *string
	alg     *string
	lenient *bool
}

func addKeyFlags(fs *flag.FlagSet, private bool) *keyFlags {
	k := &keyFlags{
		inform: fs.String("inform", "auto", "`FORMAT` of the key: auto (PEM or DER), pem, der, raw (with -alg)"),
		alg:    fs.String("alg", "", "the key's scheme `NAME`: for -inform raw, or to require one"),
	}
	if private {
		k.lenient = fs.Bool("lenient", false, "also read the pre-RFC 9935 ML-KEM private key encodings")
	}
	return k
}

// options returns the keyfile options the flags ask for; a bad flag value
// is a usage error.
func (k *keyFlags) options() (*keyfile.Options, error) {
	opts := new(keyfile.Options)
	f, err := keyfile.ParseFormat(*k.inform)
	if err != nil {
		return nil, cli.Usagef("-inform: unknown format %q, want auto, pem, der or raw", *k.inform)
	}
	opts.Format = f
	if *k.alg != "" {
		if opts.Scheme, err = schemeFlag(*k.alg); err != nil {
			return nil, err
		}
	} else if f == keyfile.Raw {
		return nil, cli.Usagef("-inform raw needs -alg: a raw key does not name its scheme")
	}
	if k.lenient != nil {
		opts.Lenient = *k.lenient
	}
	return opts, nil
}

// readPrivateKey reads the private key in the file name.
func (k *keyFlags) readPrivateKey(name string) (*keyfile.PrivateKey, error) {
	return readKey(k, name, maxPrivateKeyFile, "private key files", keyfile.DecodePrivateKey)
}

// readPublicKey reads the public key in the file name.
func (k *keyFlags) readPublicKey(name string) (*keyfile.PublicKey, error) {
	return readKey(k, name, maxPublicKeyFile, "public key files and certificates", keyfile.DecodePublicKey)
}

// readKey reads the file name, of at most limit bytes, and decodes it
// with decode and the options of the flags.
func readKey[K any](k *keyFlags, name string, limit int64, what string, decode func([]byte, *keyfile.Options) (K, error)) (K, error) {
	var zero K
	opts, err := k.options()
	if err != nil {
		return zero, err
	}
	data, err := readInput(name, limit, what)
	if err != nil {
		return zero, err
	}
	key, err := decode(data, opts)
	if err != nil {
		return zero, cli.WithHint(fmt.Errorf("%s: %w", displayName(name), err), keyHint(data, opts, limit == maxPrivateKeyFile))
	}
	return key, nil
}

// keyHint suggests what to do with data, which did not decode with opts
// as a private key (if private) or a public key: give the other file, use
// -lenient, or read it as a raw key of the scheme whose keys have its
// size. It returns "" if it knows nothing better.
func keyHint(data []byte, opts *keyfile.Options, private bool) string {
	var o keyfile.Options
	if opts != nil {
		o = *opts
	}
	lenient := o
	lenient.Lenient = true
	if private {
		if _, err := keyfile.DecodePublicKey(data, &o); err == nil {
			return "this is a public key; give the private key (keygen's -out)"
		}
		if _, err := keyfile.DecodePrivateKey(data, &lenient); err == nil && !o.Lenient {
			return "this is a pre-RFC 9935 ML-KEM encoding, which -lenient reads"
		}
	} else if _, err := keyfile.DecodePrivateKey(data, &lenient); err == nil {
		return "this is a private key; 'pqkem pub -in FILE' writes its public key"
	}
	if o.Format == keyfile.Auto && !bytes.Contains(data, []byte("-----BEGIN")) {
		return rawHint(len(data), private)
	}
	return ""
}

// rawHint names the schemes whose raw keys have size bytes, if there
// are any, and how to read such a key.
func rawHint(size int, private bool) string {
	var names []string
	what := "public"
	for _, s := range allSchemes() {
		n := s.EncapsulationKeySize()
		if private {
			n, what = s.DecapsulationKeySize(), "private"
		}
		if n == size && size > 0 {
			names = append(names, s.Name())
		}
	}
	switch len(names) {
	case 0:
		return ""
	case 1:
		return fmt.Sprintf("%d bytes is the size of a raw %s %s key: add -inform raw -alg %s", size, names[0], what, names[0])
	}
	return fmt.Sprintf("%d bytes is the size of a raw %s key of %s: add -inform raw -alg NAME", size, what, strings.Join(names, ", "))
}

func displayName(name string) string {
	if name == "-" {
		return "standard input"
	}
	return name
}

// outputFormat parses a -format flag for writing keys of scheme s.
func outputFormat(value string, s kem.Scheme) (keyfile.Format, error) {
	f, err := keyfile.ParseFormat(value)
	if err != nil || f == keyfile.Auto {
		return 0, cli.Usagef("-format: unknown format %q, want pem, der or raw", value)
	}
	if _, ok := keyfile.OID(s); f == keyfile.DER && !ok {
		return 0, cli.Usagef("-format der: %s has no object identifier, so no DER form; use -format pem (pqkem's PEM format) or raw", s.Name())
	}
	return f, nil
}

// required checks that the flags that must be given were: its arguments
// are pairs of a flag's name and its value, and the first flag whose value
// is empty is the error. An odd number of arguments is a mistake in the
// command's code, not in its use, and panics.
func required(nameValues ...string) error {
	if len(nameValues)%2 != 0 {
		panic("pqkem: required takes pairs of a flag's name and its value")
	}
	for i := 0; i < len(nameValues); i += 2 {
		if nameValues[i+1] == "" {
			return cli.Usagef("-%s is required", nameValues[i])
		}
	}
	return nil
}
