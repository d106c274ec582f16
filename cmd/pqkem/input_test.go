package main

import (
	"bytes"
	"encoding/pem"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/pqkem/pqkem/frodo"
	"github.com/pqkem/pqkem/kem"
	"github.com/pqkem/pqkem/keyfile"
)

// TestInputLimitsFit checks that the largest valid private and public key
// files of every scheme, in every format and form pqkem writes or reads
// (FrodoKEM keys from their seed or from the specification's sk), fit the limits, and
// that the private key limit is just above the largest.
func TestInputLimitsFit(t *testing.T) {
	frodoExpanded := make(map[string][]byte)
	for _, p := range frodo.ParameterSets() {
		dk, err := p.GenerateKey()
		if err != nil {
			t.Fatal(err)
		}
		frodoExpanded[p.Name()] = dk.ExpandedBytes()
	}
	var largestPriv, largestPub int
	var privName, pubName string
	for _, s := range kem.All() {
		dk, err := s.GenerateKey()
		if err != nil {
			t.Fatal(err)
		}
		keys := []kem.DecapsulationKey{dk}
		// A FrodoKEM key read from the specification's sk has no seed,
		// and is written as that sk.
		if sk := frodoExpanded[s.Name()]; sk != nil {
			dk, err := s.NewDecapsulationKey(sk)
			if err != nil {
				t.Fatal(err)
			}
			keys = append(keys, dk)
		}
		var privs, pubs [][]byte
		for _, f := range []keyfile.Format{keyfile.PEM, keyfile.DER, keyfile.Raw} {
			for _, dk := range keys {
				if b, err := keyfile.EncodePrivateKey(dk, f); err == nil {
					privs = append(privs, b)
				}
			}
			if b, err := keyfile.EncodePublicKey(dk.EncapsulationKey(), f); err == nil {
				pubs = append(pubs, b)
			}
		}
		for _, form := range []keyfile.Form{keyfile.FormSeed, keyfile.FormExpanded, keyfile.FormBoth} {
			if der, err := keyfile.MarshalPKCS8PrivateKeyForm(dk, form); err == nil {
				privs = append(privs, der, pem.EncodeToMemory(&pem.Block{Type: keyfile.PEMPrivateKey, Bytes: der}))
			}
		}
		for _, b := range privs {
			if len(b) > largestPriv {
				largestPriv, privName = len(b), s.Name()
			}
		}
		for _, b := range pubs {
			if len(b) > largestPub {
				largestPub, pubName = len(b), s.Name()
			}
		}
	}
	t.Logf("largest private key file: %s, %d bytes (limit %d); largest public key file: %s, %d bytes (limit %d)",
		privName, largestPriv, maxPrivateKeyFile, pubName, largestPub, maxPublicKeyFile)
	if largestPriv > maxPrivateKeyFile || largestPriv < maxPrivateKeyFile*7/8 {
		t.Errorf("the largest private key file (%s) is %d bytes: the limit %d is not just above it", privName, largestPriv, maxPrivateKeyFile)
	}
	if largestPub > maxPublicKeyFile {
		t.Errorf("the largest public key file (%s) is %d bytes, over the limit %d", pubName, largestPub, maxPublicKeyFile)
	}
}

// TestInputOneByteOver checks that an input of its limit is read (and
// fails on its contents), and one a byte longer is refused in one line
// saying so, from a file and from standard input.
func TestInputOneByteOver(t *testing.T) {
	dir := t.TempDir()
	ok(t, dir, nil, "keygen", "-alg", "ML-KEM-768", "-out", "key.pem")
	ok(t, dir, nil, "pub", "-in", "key.pem", "-out", "pub.pem")
	before := listDir(t, dir)
	for _, tc := range []struct {
		limit int
		what  string
		args  func(in string) []string
	}{
		{maxPrivateKeyFile, "the limit for private key files", func(in string) []string { return []string{"pub", "-in", in, "-out", "new.pem"} }},
		{maxPrivateKeyFile, "the limit for private key files", func(in string) []string {
			return []string{"decap", "-key", in, "-in", "pub.pem", "-secret", "new.bin"}
		}},
		{maxPublicKeyFile, "the limit for public key files and certificates", func(in string) []string {
			return []string{"encap", "-pub", in, "-out", "new.bin", "-secret", "new.ss"}
		}},
		{maxKeyFile, "the limit for key files", func(in string) []string { return []string{"inspect", in} }},
		{1088, "ML-KEM-768 ciphertext is more than 1088 bytes, want 1088", func(in string) []string {
			return []string{"decap", "-key", "key.pem", "-in", in, "-secret", "new.bin"}
		}},
	} {
		for _, stdin := range []bool{false, true} {
			for _, n := range []int{tc.limit, tc.limit + 1} {
				data := bytes.Repeat([]byte{'A'}, n)
				in := "-"
				if !stdin {
					in = "big"
					writeFile(t, dir, in, data)
				}
				r := binary(t, dir, data, tc.args(in)...)
				name := in
				if stdin {
					name = "standard input"
				}
				over := fmt.Sprintf("%s: more than %d bytes, %s", name, tc.limit, tc.what)
				if strings.HasPrefix(tc.what, "ML-KEM") {
					over = name + ": " + tc.what
				}
				switch {
				case n > tc.limit:
					wantFailure(t, r, exitError, over)
				case strings.HasPrefix(tc.what, "ML-KEM"):
					// A ciphertext of the right length is decapsulated.
					if r.code != exitOK {
						t.Errorf("pqkem %s with %d bytes: exit %d, stderr %q", strings.Join(r.args, " "), n, r.code, r.stderr)
					}
					os.Remove(dir + "/new.bin")
				case r.code != exitError || strings.Contains(r.stderr, "more than"):
					t.Errorf("pqkem %s with %d bytes: exit %d, stderr %q; want an error about the contents", strings.Join(r.args, " "), n, r.code, r.stderr)
				}
				os.Remove(dir + "/big")
			}
		}
	}
	wantNoNewFiles(t, dir, before)
}

// endless is an input that never ends, counting what was read of it.
type endless struct{ read int64 }

func (e *endless) Read(p []byte) (int, error) {
	clear(p)
	e.read += int64(len(p))
	return len(p), nil
}

// TestInputEndless checks that an endless input (standard input, or a
// device such as /dev/zero) is refused after the limit, not read until
// memory runs out.
func TestInputEndless(t *testing.T) {
	dir := t.TempDir()
	ok(t, dir, nil, "keygen", "-alg", "ML-KEM-768", "-out", "key.pem")
	key := dir + "/key.pem"
	for _, args := range [][]string{
		{"inspect", "-"},
		{"pub", "-in", "-", "-out", dir + "/new.pem"},
		{"decap", "-key", key, "-in", "-", "-secret", dir + "/new.bin"},
	} {
		e := new(endless)
		restore := withStdin(e)
		code, _, stderr := pqkem(t, args...)
		restore()
		if code != exitError || !strings.Contains(stderr, "standard input: ") || !strings.Contains(stderr, "more than") {
			t.Errorf("pqkem %s: exit %d, stderr %q", strings.Join(args, " "), code, stderr)
		}
		if e.read > 2*maxKeyFile {
			t.Errorf("pqkem %s: read %d bytes of an endless input", strings.Join(args, " "), e.read)
		}
	}
	if _, err := os.Stat("/dev/zero"); err == nil {
		code, _, stderr := pqkem(t, "inspect", "/dev/zero")
		if want := fmt.Sprintf("pqkem inspect: /dev/zero: more than %d bytes, the limit for key files\n", maxKeyFile); code != exitError || stderr != want {
			t.Errorf("inspect /dev/zero: exit %d, stderr %q, want %q", code, stderr, want)
		}
	}
}
