package main

import (
	"bytes"
	"regexp"
	"strings"
	"testing"
)

// keygen prints the fingerprint on standard error, the same that inspect
// shows, and writes -pub as pub would.
func TestKeygenFingerprintAndPub(t *testing.T) {
	dir := t.TempDir()
	r := ok(t, dir, nil, "keygen", "-alg", "ML-KEM-768", "-out", "key.pem", "-pub", "pub.pem")
	m := regexp.MustCompile(`^public key fingerprint: (SHA256:[0-9a-f]{32})\n$`).FindStringSubmatch(r.stderr)
	if m == nil || r.stdout != "" {
		t.Fatalf("keygen: stdout %q, stderr %q; want only the fingerprint line on stderr", r.stdout, r.stderr)
	}
	wantMode(t, dir, "key.pem", modeSecret)
	wantMode(t, dir, "pub.pem", modePublic)
	if pub := ok(t, dir, nil, "pub", "-in", "key.pem").stdout; pub != string(readFile(t, dir, "pub.pem")) {
		t.Errorf("keygen -pub wrote\n%s\nbut pub writes\n%s", readFile(t, dir, "pub.pem"), pub)
	}
	if info := ok(t, dir, nil, "inspect", "pub.pem").stdout; !strings.Contains(info, m[1]) {
		t.Errorf("inspect does not show keygen's fingerprint %s:\n%s", m[1], info)
	}

	// The public key in the same format; to standard output, with the
	// private key in a file.
	r = ok(t, dir, nil, "keygen", "-alg", "X-Wing", "-format", "raw", "-out", "xw.key", "-pub", "-")
	if len(r.stdout) != 1216 || len(readFile(t, dir, "xw.key")) != 32 {
		t.Errorf("keygen -format raw -pub -: %d bytes on stdout, a %d-byte key; want 1216 and 32", len(r.stdout), len(readFile(t, dir, "xw.key")))
	}

	// Outputs are checked together, before any is written.
	before := listDir(t, dir)
	wantFailure(t, binary(t, dir, nil, "keygen", "-alg", "ML-KEM-768", "-out", "new.pem", "-pub", "pub.pem"), exitError,
		"pub.pem already exists; use -force to overwrite it")
	wantNoNewFiles(t, dir, before)
	wantFailure(t, binary(t, dir, nil, "keygen", "-alg", "ML-KEM-768", "-out", "-", "-pub", "-"), exitUsage,
		"only one output can go to standard output")
	wantFailure(t, binary(t, dir, nil, "keygen", "-alg", "ML-KEM-768", "-out", "same.pem", "-pub", "same.pem"), exitUsage,
		"two outputs are the same file")
	wantNoNewFiles(t, dir, before)
}

// keygen warns about an ephemeral-only scheme, and says what it means,
// but writes the key.
func TestKeygenEphemeralWarning(t *testing.T) {
	dir := t.TempDir()
	r := ok(t, dir, nil, "keygen", "-alg", "eFrodoKEM-640-AES", "-out", "e.pem")
	for _, want := range []string{"pqkem keygen: warning: eFrodoKEM-640-AES keys are for fewer than 2^8 ciphertexts", "pqkem serve refuses it", "public key fingerprint: SHA256:"} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("keygen -alg eFrodoKEM-640-AES: stderr %q does not say %q", r.stderr, want)
		}
	}
	if !bytes.Contains(readFile(t, dir, "e.pem"), []byte("PQKEM PRIVATE KEY")) {
		t.Errorf("keygen -alg eFrodoKEM-640-AES wrote no key")
	}
	// serve refuses it, as the warning says, with a hint.
	wantFailure(t, binary(t, dir, nil, "serve", "-key", "e.pem", "-listen", "127.0.0.1:0", "-to", "127.0.0.1:1"), exitError,
		"\nhint: a tunnel needs a key without a ciphertext limit: 'pqkem keygen -alg FrodoKEM-640-AES' makes one of the same level\n")
	if r := ok(t, dir, nil, "keygen", "-alg", "FrodoKEM-640-AES", "-out", "f.pem"); strings.Contains(r.stderr, "warning") {
		t.Errorf("keygen -alg FrodoKEM-640-AES warns: %q", r.stderr)
	}
	wantFailure(t, binary(t, dir, nil, "keygen", "-alg", "Frodo-CCS2016-Recommended", "-out", "c.pem"), exitUsage,
		"have no key files (it is passively secure)\nhint: 'pqkem demo -alg Frodo-CCS2016-Recommended' runs it\n")
}

// A raw key read without -inform raw gets a hint that names its scheme.
func TestKeyFormatHints(t *testing.T) {
	dir := t.TempDir()
	ok(t, dir, nil, "keygen", "-alg", "ML-KEM-768", "-out", "key.pem", "-pub", "pub.raw", "-format", "raw", "-force")
	wantFailure(t, binary(t, dir, nil, "encap", "-pub", "pub.raw", "-out", "ct", "-secret", "ss"), exitError,
		"\nhint: 1184 bytes is the size of a raw ML-KEM-768 public key: add -inform raw -alg ML-KEM-768\n")
	wantFailure(t, binary(t, dir, nil, "inspect", "pub.raw"), exitError,
		"\nhint: 1184 bytes is the size of a raw ML-KEM-768 public key: add -inform raw -alg ML-KEM-768\n")
	wantFailure(t, binary(t, dir, nil, "pub", "-in", "key.pem"), exitError,
		"\nhint: 64 bytes is the size of a raw private key of ML-KEM-512, ML-KEM-768, ML-KEM-1024")
	ok(t, dir, nil, "encap", "-pub", "pub.raw", "-inform", "raw", "-alg", "ML-KEM-768", "-out", "ct", "-secret", "ss")
}
