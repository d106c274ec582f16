package main

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/pqkem/pqkem/internal/cli"
	"github.com/pqkem/pqkem/kem"
	"github.com/pqkem/pqkem/keyfile"
)

// What the key file commands (keygen, pub, encap, decap, inspect) share:
// reading inputs, writing outputs atomically, and the flags that say how
// to read a key.

// stdin is where an input named "-" is read from.
var stdin io.Reader = os.Stdin

// File modes of what the commands write.
const (
	modeSecret = 0o600 // private keys and shared keys
	modePublic = 0o644 // public keys and ciphertexts
)

// readInput reads the file name, or standard input if name is "-".
func readInput(name string) ([]byte, error) {
	if name == "-" {
		data, err := io.ReadAll(stdin)
		if err != nil {
			return nil, fmt.Errorf("standard input: %w", err)
		}
		return data, nil
	}
	fi, err := os.Stat(name)
	if err != nil {
		return nil, pathError(name, err)
	}
	if fi.IsDir() {
		return nil, fmt.Errorf("%s: is a directory, want a file", name)
	}
	data, err := os.ReadFile(name)
	if err != nil {
		return nil, pathError(name, err)
	}
	return data, nil
}

// pathError words err about the file name as "name: what".
func pathError(name string, err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return fmt.Errorf("%s: %w", name, pe.Err)
	}
	return err
}

// outFile is one output of a command: a file name ("-" for standard
// output), its contents and its mode.
type outFile struct {
	name string
	data []byte
	mode fs.FileMode
}

// checkOutputs reports an error early, before any work, if an output file
// exists and force is not set. writeOutputs checks again, atomically.
func checkOutputs(force bool, files ...outFile) error {
	stdout := 0
	for i, f := range files {
		if f.name == "" {
			continue
		}
		for _, g := range files[:i] {
			if f.name != "-" && filepath.Clean(g.name) == filepath.Clean(f.name) {
				return cli.Usagef("two outputs go to the same file %s", f.name)
			}
		}
		if f.name == "-" {
			stdout++
			continue
		}
		if force {
			continue
		}
		if _, err := os.Lstat(f.name); err == nil {
			return fmt.Errorf("%s already exists; use -force to overwrite it", f.name)
		}
	}
	if stdout > 1 {
		return cli.Usagef("only one output can go to standard output (-)")
	}
	return nil
}

// writeOutputs writes every file: each through a temporary file in the
// same directory, synced, given its mode, then renamed into place (or
// linked, without force, so that an existing file is never replaced).
// Either all files are written or, on error, no new file is left behind
// (one that -force already replaced keeps its new contents). Outputs
// named "-" go to standard output, after the files.
func writeOutputs(out *cli.Output, force bool, files ...outFile) error {
	if err := checkOutputs(force, files...); err != nil {
		return err
	}
	var temps []string
	defer func() {
		for _, t := range temps {
			if t != "" {
				os.Remove(t)
			}
		}
	}()
	for _, f := range files {
		if f.name == "-" {
			temps = append(temps, "")
			continue
		}
		tmp, err := writeTemp(f)
		if err != nil {
			return err
		}
		temps = append(temps, tmp)
	}
	// created are the outputs this call made where no file was before:
	// the ones a failure removes again. A file that -force replaced is
	// left as written, since its old contents are gone.
	var created []string
	for i, f := range files {
		if f.name == "-" {
			continue
		}
		_, statErr := os.Lstat(f.name)
		existed := statErr == nil
		if err := commit(temps[i], f.name, force); err != nil {
			for _, name := range created {
				os.Remove(name)
			}
			return err
		}
		temps[i] = ""
		if !existed {
			created = append(created, f.name)
		}
		syncDir(filepath.Dir(f.name))
	}
	for _, f := range files {
		if f.name == "-" {
			if _, err := out.Stdout.Write(f.data); err != nil {
				return fmt.Errorf("standard output: %w", err)
			}
		}
	}
	return nil
}

// writeTemp writes f's contents to a new temporary file next to f.name.
func writeTemp(f outFile) (string, error) {
	dir, base := filepath.Dir(f.name), filepath.Base(f.name)
	if fi, err := os.Stat(dir); err != nil {
		return "", pathError(dir, err)
	} else if !fi.IsDir() {
		return "", fmt.Errorf("%s: not a directory", dir)
	}
	t, err := createTemp(dir, "."+base+".tmp", f.mode)
	if err != nil {
		return "", pathError(f.name, err)
	}
	name := t.Name()
	_, err = t.Write(f.data)
	if err == nil {
		err = t.Sync()
	}
	if cerr := t.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(name)
		return "", fmt.Errorf("%s: %w", f.name, unwrapPath(err))
	}
	return name, nil
}

// createTemp creates a new file in dir whose name starts with prefix,
// with mode perm (less the umask) from the start: a secret is never
// readable by others, not even for a moment, and a public file gets the
// permissions the user's umask allows.
func createTemp(dir, prefix string, perm fs.FileMode) (*os.File, error) {
	for range 100 {
		var r [6]byte
		rand.Read(r[:])
		f, err := os.OpenFile(filepath.Join(dir, prefix+hex.EncodeToString(r[:])), os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		return f, err
	}
	return nil, fmt.Errorf("%s: cannot create a temporary file", dir)
}

func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// commit moves the temporary file tmp to name. Without force, it links
// rather than renames, which fails if name exists.
func commit(tmp, name string, force bool) error {
	if force {
		if err := os.Rename(tmp, name); err != nil {
			return fmt.Errorf("%s: %w", name, unwrapPath(err))
		}
		return nil
	}
	err := os.Link(tmp, name)
	if err == nil {
		os.Remove(tmp)
		return nil
	}
	if errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("%s already exists; use -force to overwrite it", name)
	}
	// A file system without hard links: check, then rename.
	if _, err := os.Lstat(name); err == nil {
		return fmt.Errorf("%s already exists; use -force to overwrite it", name)
	}
	if err := os.Rename(tmp, name); err != nil {
		return fmt.Errorf("%s: %w", name, unwrapPath(err))
	}
	return nil
}

// syncDir makes a rename in dir durable, where the system allows it.
func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
}

// keyFlags are the flags that say how to read a key.
type keyFlags struct {
	inform  *string
	alg     *string
	lenient *bool
}

func addKeyFlags(fs *flag.FlagSet, private bool) *keyFlags {
	k := &keyFlags{
		inform: fs.String("inform", "auto", "`format` of the key read: auto (PEM or DER), pem, der or raw (raw needs -alg)"),
		alg:    fs.String("alg", "", "the key's scheme `NAME`: needed for -inform raw; otherwise, the key must be of this scheme"),
	}
	if private {
		k.lenient = fs.Bool("lenient", false, "also accept the pre-RFC 9935 ML-KEM private key encodings (the bare seed or expanded key, OpenSSL's bare-seed and bare-priv)")
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
	return readKey(k, name, keyfile.DecodePrivateKey)
}

// readPublicKey reads the public key in the file name.
func (k *keyFlags) readPublicKey(name string) (*keyfile.PublicKey, error) {
	return readKey(k, name, keyfile.DecodePublicKey)
}

// readKey reads the file name and decodes it with decode and the options
// of the flags.
func readKey[K any](k *keyFlags, name string, decode func([]byte, *keyfile.Options) (K, error)) (K, error) {
	var zero K
	opts, err := k.options()
	if err != nil {
		return zero, err
	}
	data, err := readInput(name)
	if err != nil {
		return zero, err
	}
	key, err := decode(data, opts)
	if err != nil {
		return zero, fmt.Errorf("%s: %w", displayName(name), err)
	}
	return key, nil
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

// required checks that a flag that must be given was.
func required(name, value string) error {
	if value == "" {
		return cli.Usagef("-%s is required", name)
	}
	return nil
}
