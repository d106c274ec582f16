package main

import (
	"bytes"
	"crypto/x509/pkix"
	"encoding/asn1"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/pqkem/pqkem/internal/vectors"
	"github.com/pqkem/pqkem/kem"
	"github.com/pqkem/pqkem/keyfile"
)

// The tests of keygen, pub, encap, decap and inspect run the command as a
// user would, in a process of its own with real standard input and output:
// the test binary itself, which runs pqkem's main instead of the tests
// when runMainEnv is set (so no go command is needed to build it).

const runMainEnv = "PQKEM_TEST_RUN_MAIN"

func TestMain(m *testing.M) {
	if os.Getenv(runMainEnv) == "1" {
		testMainHooks()
		main()
		panic("main returned")
	}
	os.Exit(m.Run())
}

// command returns the command that runs pqkem with args in a process of
// its own; it skips the test where no process can be started.
func command(t *testing.T, args ...string) *exec.Cmd {
	t.Helper()
	if runtime.GOOS == "js" || runtime.GOOS == "wasip1" || runtime.GOOS == "ios" {
		t.Skipf("%s cannot start processes: this test runs pqkem in one", runtime.GOOS)
	}
	exe, err := os.Executable()
	if err != nil {
		t.Skipf("this test runs pqkem in a process of its own, but the test binary's path is unknown: %v", err)
	}
	cmd := exec.Command(exe, args...)
	cmd.Env = append(os.Environ(), runMainEnv+"=1")
	return cmd
}

// result is what one run of the command did.
type result struct {
	args           []string
	code           int
	stdout, stderr string
}

// binary runs the command in a process of its own in dir with stdin and
// args.
func binary(t *testing.T, dir string, stdin []byte, args ...string) result {
	t.Helper()
	cmd := command(t, args...)
	cmd.Dir = dir
	cmd.Stdin = bytes.NewReader(stdin)
	return run(t, cmd)
}

// run runs cmd, whose standard output and error are not set or are files,
// and returns what it did.
func run(t *testing.T, cmd *exec.Cmd) result {
	t.Helper()
	var stdout, stderr bytes.Buffer
	if cmd.Stdout == nil {
		cmd.Stdout = &stdout
	}
	cmd.Stderr = &stderr
	err := cmd.Run()
	r := result{cmd.Args[1:], 0, stdout.String(), stderr.String()}
	if ee, ok := err.(*exec.ExitError); ok {
		r.code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("pqkem %s: %v", strings.Join(r.args, " "), err)
	}
	return r
}

// ok runs the command and fails the test unless it succeeds.
func ok(t *testing.T, dir string, stdin []byte, args ...string) result {
	t.Helper()
	r := binary(t, dir, stdin, args...)
	if r.code != exitOK {
		t.Fatalf("pqkem %s: exit status %d, stderr:\n%s", strings.Join(args, " "), r.code, r.stderr)
	}
	return r
}

// wantFailure checks that r failed with status code, and, for an
// operational error, one line on stderr that says want, perhaps followed
// by a hint line.
func wantFailure(t *testing.T, r result, code int, want string) {
	t.Helper()
	cmdline := "pqkem " + strings.Join(r.args, " ")
	if r.code != code {
		t.Fatalf("%s: exit status %d, want %d; stderr:\n%s", cmdline, r.code, code, r.stderr)
	}
	lines := strings.SplitAfter(r.stderr, "\n")
	if code == exitError && (!strings.HasSuffix(r.stderr, "\n") || len(lines) > 3 || len(lines) == 3 && !strings.HasPrefix(lines[1], "hint: ")) {
		t.Errorf("%s: stderr is not one line and perhaps a hint:\n%s", cmdline, r.stderr)
	}
	if !strings.HasPrefix(r.stderr, "pqkem "+r.args[0]+": ") {
		t.Errorf("%s: stderr does not start with %q:\n%s", cmdline, "pqkem "+r.args[0]+": ", r.stderr)
	}
	if !strings.Contains(r.stderr, want) {
		t.Errorf("%s: stderr %q does not say %q", cmdline, r.stderr, want)
	}
	if r.stdout != "" {
		t.Errorf("%s: failed, but wrote %d bytes to stdout", cmdline, len(r.stdout))
	}
}

// listDir returns the names in dir, sorted.
func listDir(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

// wantNoNewFiles checks that dir holds exactly the files before.
func wantNoNewFiles(t *testing.T, dir string, before []string) {
	t.Helper()
	if after := listDir(t, dir); !slices.Equal(after, before) {
		t.Errorf("files left behind: before %v, after %v", before, after)
	}
}

func writeFile(t *testing.T, dir, name string, data []byte) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, name), data, 0o600); err != nil {
		t.Fatal(err)
	}
}

func readFile(t *testing.T, dir, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// wantMode checks the mode of a file: exactly want for a secret (0600),
// at most want for a public file, whose mode the umask may reduce.
func wantMode(t *testing.T, dir, name string, want os.FileMode) {
	t.Helper()
	fi, err := os.Stat(filepath.Join(dir, name))
	if err != nil {
		t.Fatal(err)
	}
	got := fi.Mode().Perm()
	if want == 0o600 && got != want || got&^want != 0 || got&0o600 != 0o600 {
		t.Errorf("%s has mode %#o, want %#o", name, got, want)
	}
}

// schemesToExercise are the ML-KEM levels, X-Wing once it is registered,
// and one scheme of every other kind registered (pqkem's PEM format).
func schemesToExercise(t *testing.T) []kem.Scheme {
	var schemes []kem.Scheme
	seenNoOID := false
	for _, s := range kem.All() {
		_, hasOID := keyfile.OID(s)
		switch {
		case hasOID:
			schemes = append(schemes, s)
		case !seenNoOID:
			schemes = append(schemes, s)
			seenNoOID = true
		}
	}
	if _, err := kem.ByName("X-Wing"); err != nil {
		t.Log("X-Wing is not registered yet: its key files are not exercised")
	}
	return schemes
}

// keygen -> pub -> encap -> decap gives the same shared key on both sides.
func TestKeyFilesExchange(t *testing.T) {
	for _, s := range schemesToExercise(t) {
		formats := []string{"pem", "der", "raw"}
		if _, ok := keyfile.OID(s); !ok {
			formats = []string{"pem", "raw"}
		}
		for _, format := range formats {
			t.Run(s.Name()+"/"+format, func(t *testing.T) {
				dir := t.TempDir()
				inform := []string{"-inform", format, "-alg", s.Name()}
				ok(t, dir, nil, "keygen", "-alg", s.Name(), "-format", format, "-out", "key")
				ok(t, dir, nil, append([]string{"pub", "-in", "key", "-out", "pub", "-format", format}, inform...)...)
				ok(t, dir, nil, append([]string{"encap", "-pub", "pub", "-out", "ct.bin", "-secret", "bob.bin"}, inform...)...)
				ok(t, dir, nil, append([]string{"decap", "-key", "key", "-in", "ct.bin", "-secret", "alice.bin"}, inform...)...)
				alice, bob := readFile(t, dir, "alice.bin"), readFile(t, dir, "bob.bin")
				if len(alice) != s.SharedKeySize() || !bytes.Equal(alice, bob) {
					t.Errorf("the two sides have different shared keys (%d and %d bytes)", len(alice), len(bob))
				}
				if ct := readFile(t, dir, "ct.bin"); len(ct) != s.CiphertextSize() {
					t.Errorf("ciphertext is %d bytes, want %d", len(ct), s.CiphertextSize())
				}
				wantMode(t, dir, "key", 0o600)
				wantMode(t, dir, "alice.bin", 0o600)
				wantMode(t, dir, "bob.bin", 0o600)
				wantMode(t, dir, "pub", 0o644)
				if got := listDir(t, dir); !slices.Equal(got, []string{"alice.bin", "bob.bin", "ct.bin", "key", "pub"}) {
					t.Errorf("files in the directory: %v", got)
				}
				// The files are what package keyfile reads.
				f, _ := keyfile.ParseFormat(format)
				priv, err := keyfile.DecodePrivateKey(readFile(t, dir, "key"), &keyfile.Options{Format: f, Scheme: s})
				if err != nil {
					t.Fatal(err)
				}
				if got, err := priv.Key.Decapsulate(readFile(t, dir, "ct.bin")); err != nil || !bytes.Equal(got, bob) {
					t.Errorf("the key file read with package keyfile does not decapsulate to the same key")
				}
			})
		}
	}
}

// The commands work in a pipeline: -in -, -out -, -secret -.
func TestKeyFilesPipes(t *testing.T) {
	dir := t.TempDir()
	key := ok(t, dir, nil, "keygen", "-alg", "ML-KEM-1024", "-out", "-").stdout
	if !strings.HasPrefix(key, "-----BEGIN PRIVATE KEY-----\n") {
		t.Fatalf("keygen -out - wrote %q", key)
	}
	pub := ok(t, dir, []byte(key), "pub", "-in", "-").stdout
	if !strings.HasPrefix(pub, "-----BEGIN PUBLIC KEY-----\n") {
		t.Fatalf("pub wrote %q", pub)
	}
	ct := ok(t, dir, []byte(pub), "encap", "-pub", "-", "-out", "-", "-secret", "bob.bin").stdout
	writeFile(t, dir, "key.pem", []byte(key))
	alice := ok(t, dir, []byte(ct), "decap", "-key", "key.pem", "-in", "-", "-secret", "-").stdout
	if bob := readFile(t, dir, "bob.bin"); alice != string(bob) {
		t.Error("the two sides have different shared keys")
	}
	// The shared key to stdout, ciphertext to a file.
	ss := ok(t, dir, []byte(pub), "encap", "-pub", "-", "-out", "ct.bin", "-secret", "-").stdout
	if got := ok(t, dir, nil, "decap", "-key", "key.pem", "-in", "ct.bin", "-secret", "-").stdout; got != ss || len(ss) != 32 {
		t.Error("encap -secret - and decap -secret - disagree")
	}
}

// Secrets go to stdout only when asked for, and outputs are required.
func TestKeyFilesUsage(t *testing.T) {
	dir := t.TempDir()
	ok(t, dir, nil, "keygen", "-alg", "ML-KEM-512", "-out", "key.pem")
	ok(t, dir, nil, "pub", "-in", "key.pem", "-out", "pub.pem")
	before := listDir(t, dir)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"keygen", "-alg", "ML-KEM-768"}, "-out is required"},
		{[]string{"keygen", "-out", "k.pem"}, "-alg is required"},
		{[]string{"keygen", "-alg", "ML-KEM-2048", "-out", "k.pem"}, `unknown scheme "ML-KEM-2048"`},
		{[]string{"keygen", "-alg", "ML-KEM-768", "-out", "k.pem", "-format", "base64"}, `unknown format "base64"`},
		{[]string{"keygen", "-alg", "ML-KEM-768", "-out", "k.pem", "extra"}, `unexpected argument "extra"`},
		{[]string{"pub"}, "-in is required"},
		{[]string{"pub", "-in", "key.pem", "-inform", "raw"}, "-inform raw needs -alg"},
		{[]string{"encap", "-pub", "pub.pem", "-out", "ct.bin"}, "-secret is required"},
		{[]string{"encap", "-pub", "pub.pem", "-secret", "ss.bin"}, "-out is required"},
		{[]string{"encap", "-pub", "pub.pem", "-out", "-", "-secret", "-"}, "only one output can go to standard output"},
		{[]string{"encap", "-pub", "pub.pem", "-out", "x.bin", "-secret", "./x.bin", "-force"}, "two outputs are the same file: x.bin and ./x.bin"},
		{[]string{"decap", "-key", "key.pem", "-in", "ct.bin"}, "-secret is required"},
		{[]string{"decap", "-key", "-", "-in", "-", "-secret", "ss.bin"}, "-key and -in cannot both be -"},
		{[]string{"inspect"}, "inspect takes one file name"},
		{[]string{"inspect", "key.pem", "pub.pem"}, "inspect takes one file name"},
	} {
		wantFailure(t, binary(t, dir, nil, tc.args...), exitUsage, tc.want)
	}
	// A scheme without an OID has no DER form.
	for _, s := range kem.All() {
		if _, ok := keyfile.OID(s); !ok {
			wantFailure(t, binary(t, dir, nil, "keygen", "-alg", s.Name(), "-format", "der", "-out", "k.der"), exitUsage, "has no object identifier")
			break
		}
	}
	// A single-use scheme has no key files at all.
	for _, s := range kem.All() {
		if kem.SingleUse(s) {
			wantFailure(t, binary(t, dir, nil, "keygen", "-alg", s.Name(), "-out", "k.pem"), exitUsage, "-alg "+s.Name()+": its keys serve one exchange and have no key files")
		}
	}
	wantNoNewFiles(t, dir, before)
}

// An existing file is replaced only with -force.
func TestKeyFilesForce(t *testing.T) {
	dir := t.TempDir()
	ok(t, dir, nil, "keygen", "-alg", "ML-KEM-768", "-out", "key.pem")
	first := readFile(t, dir, "key.pem")
	wantFailure(t, binary(t, dir, nil, "keygen", "-alg", "ML-KEM-768", "-out", "key.pem"), exitError,
		"pqkem keygen: key.pem already exists; use -force to overwrite it")
	if !bytes.Equal(readFile(t, dir, "key.pem"), first) {
		t.Fatal("keygen without -force changed the existing key")
	}
	ok(t, dir, nil, "keygen", "-alg", "ML-KEM-768", "-out", "key.pem", "-force")
	if bytes.Equal(readFile(t, dir, "key.pem"), first) {
		t.Fatal("keygen -force did not replace the key")
	}
	wantMode(t, dir, "key.pem", 0o600)

	// The same for the other commands' outputs; -force replaces.
	ok(t, dir, nil, "pub", "-in", "key.pem", "-out", "pub.pem")
	ok(t, dir, nil, "encap", "-pub", "pub.pem", "-out", "ct.bin", "-secret", "ss.bin")
	wantFailure(t, binary(t, dir, nil, "pub", "-in", "key.pem", "-out", "pub.pem"), exitError, "pub.pem already exists")
	wantFailure(t, binary(t, dir, nil, "encap", "-pub", "pub.pem", "-out", "new-ct.bin", "-secret", "ss.bin"), exitError, "ss.bin already exists")
	wantFailure(t, binary(t, dir, nil, "decap", "-key", "key.pem", "-in", "ct.bin", "-secret", "ss.bin"), exitError, "ss.bin already exists")
	ok(t, dir, nil, "decap", "-key", "key.pem", "-in", "ct.bin", "-secret", "ss.bin", "-force")
	if got := listDir(t, dir); !slices.Equal(got, []string{"ct.bin", "key.pem", "pub.pem", "ss.bin"}) {
		t.Errorf("files in the directory: %v (temporary files left behind?)", got)
	}

	// A key file that is group- or world-readable before -force is
	// replaced by one with mode 0600.
	os.Chmod(filepath.Join(dir, "key.pem"), 0o644)
	ok(t, dir, nil, "keygen", "-alg", "ML-KEM-512", "-out", "key.pem", "-force")
	wantMode(t, dir, "key.pem", 0o600)
}

// secretStrings returns hex and base64 renderings of every 12-byte window
// of secret: none may appear in output meant for a terminal.
func secretStrings(secret []byte) []string {
	var out []string
	for i := 0; i+12 <= len(secret); i++ {
		w := secret[i : i+12]
		out = append(out, hex.EncodeToString(w), strings.ToUpper(hex.EncodeToString(w)),
			base64.StdEncoding.EncodeToString(w), base64.RawURLEncoding.EncodeToString(w))
	}
	return out
}

func checkNoSecret(t *testing.T, output string, secret []byte) {
	t.Helper()
	for _, s := range secretStrings(secret) {
		if strings.Contains(output, s) {
			t.Fatalf("output shows part of the secret (%s):\n%s", s, output)
		}
	}
}

// inspect describes private keys, and never shows their secret bytes.
func TestInspectShowsNoSecrets(t *testing.T) {
	dir := t.TempDir()
	for _, s := range schemesToExercise(t) {
		ok(t, dir, nil, "keygen", "-alg", s.Name(), "-out", "key.pem", "-force")
		keyPEM := readFile(t, dir, "key.pem")
		priv, err := keyfile.DecodePrivateKey(keyPEM, nil)
		if err != nil {
			t.Fatal(err)
		}
		r := ok(t, dir, nil, "inspect", "key.pem")
		checkNoSecret(t, r.stdout+r.stderr, priv.Key.Bytes())
		// Not even the PEM body, in any line of it.
		for _, line := range strings.Split(string(keyPEM), "\n") {
			if len(line) >= 16 && !strings.HasPrefix(line, "-----") && strings.Contains(r.stdout, line) {
				t.Errorf("inspect shows a line of the PEM body:\n%s", r.stdout)
			}
		}
		for _, want := range []string{
			"contents:    private key\n",
			"scheme:      " + s.Name(),
			"fingerprint " + keyfile.Fingerprint(priv.Key.EncapsulationKey()),
			fmt.Sprintf("public key:  %d bytes", s.EncapsulationKeySize()),
			fmt.Sprintf("ciphertext:  %d bytes", s.CiphertextSize()),
		} {
			if !strings.Contains(r.stdout, want) {
				t.Errorf("inspect of a %s key does not say %q:\n%s", s.Name(), want, r.stdout)
			}
		}
		// The public key has the same fingerprint.
		ok(t, dir, nil, "pub", "-in", "key.pem", "-out", "pub.pem", "-force")
		rp := ok(t, dir, nil, "inspect", "pub.pem")
		if !strings.Contains(rp.stdout, "contents:    public key\n") || !strings.Contains(rp.stdout, keyfile.Fingerprint(priv.Key.EncapsulationKey())) {
			t.Errorf("inspect of the public key:\n%s", rp.stdout)
		}
		// Raw and DER files, from stdin too.
		ok(t, dir, nil, "keygen", "-alg", s.Name(), "-out", "key.raw", "-format", "raw", "-force")
		raw := readFile(t, dir, "key.raw")
		rr := ok(t, dir, raw, "inspect", "-inform", "raw", "-alg", s.Name(), "-")
		checkNoSecret(t, rr.stdout, raw)
		if !strings.Contains(rr.stdout, "contents:    private key\n") {
			t.Errorf("inspect of a raw key:\n%s", rr.stdout)
		}
	}
}

// The RFC 9935 examples in every form: inspect shows the form and not the
// seed; pub gives the example's public key file.
func TestKeyFilesRFC9935Examples(t *testing.T) {
	const dirRel = "mlkem/lamps-kyber-certificates/"
	var files []string
	for _, level := range []string{"ML-KEM-512", "ML-KEM-768", "ML-KEM-1024"} {
		for _, suffix := range []string{"-seed.priv", "-expanded.priv", "-both.priv", ".pub", ".crt"} {
			files = append(files, dirRel+level+suffix)
		}
	}
	vectors.Require(t, files...)
	seed := make([]byte, 64)
	for i := range seed {
		seed[i] = byte(i)
	}
	dir := t.TempDir()
	for _, level := range []string{"ML-KEM-512", "ML-KEM-768", "ML-KEM-1024"} {
		wantPub := vectors.ReadFile(t, dirRel+level+".pub")
		for form, want := range map[string]string{
			"seed":     "form:        seed (64 bytes)",
			"expanded": "form:        expandedKey",
			"both":     "form:        both",
		} {
			path := vectors.Path(t, dirRel+level+"-"+form+".priv")
			r := ok(t, dir, nil, "inspect", path)
			if !strings.Contains(r.stdout, want) || !strings.Contains(r.stdout, "scheme:      "+level) {
				t.Errorf("inspect %s-%s.priv does not say %q:\n%s", level, form, want, r.stdout)
			}
			checkNoSecret(t, r.stdout, seed)
			if got := ok(t, dir, nil, "pub", "-in", path).stdout; got != string(wantPub) {
				t.Errorf("pub -in %s-%s.priv is not %s.pub", level, form, level)
			}
		}
		// The key in the example certificate: encap takes it, inspect
		// describes it.
		certPath := vectors.Path(t, dirRel+level+".crt")
		r := ok(t, dir, nil, "inspect", certPath)
		if !strings.Contains(r.stdout, `encoding:    PEM "CERTIFICATE"`) || !strings.Contains(r.stdout, "contents:    public key") {
			t.Errorf("inspect %s.crt:\n%s", level, r.stdout)
		}
		ok(t, dir, nil, "encap", "-pub", certPath, "-out", level+".ct", "-secret", level+".bob")
		ok(t, dir, nil, "decap", "-key", vectors.Path(t, dirRel+level+"-expanded.priv"), "-in", level+".ct", "-secret", level+".alice")
		if !bytes.Equal(readFile(t, dir, level+".alice"), readFile(t, dir, level+".bob")) {
			t.Errorf("%s: encapsulating to the certificate and decapsulating with the example key disagree", level)
		}
	}
}

// The four bad examples are rejected by pqkem pub, with nothing written.
func TestKeyFilesBadExamples(t *testing.T) {
	for i, want := range []string{
		"seed and expandedKey do not match",
		"fails the pairwise consistency check",
		"H(ek) does not match the encapsulation key",
		"seed and expandedKey do not match",
	} {
		name := fmt.Sprintf("bad-ML-KEM-512-%d.priv", i+1)
		t.Run(name, func(t *testing.T) {
			path := vectors.Path(t, "mlkem/lamps-kyber-certificates/"+name)
			dir := t.TempDir()
			for _, args := range [][]string{
				{"pub", "-in", path, "-out", "pub.pem"},
				{"pub", "-in", path, "-out", "pub.pem", "-lenient"},
				{"decap", "-key", path, "-in", path, "-secret", "ss.bin"},
				{"inspect", path},
			} {
				wantFailure(t, binary(t, dir, nil, args...), exitError, "pqkem "+args[0]+": "+path+": keyfile: ML-KEM-512 ")
				wantFailure(t, binary(t, dir, nil, args...), exitError, want)
			}
			wantNoNewFiles(t, dir, nil)
		})
	}
}

// badInput sets up dir with a fresh ML-KEM-768 key pair (key.pem, key.der,
// pub.pem, pub.der) and a ciphertext (ct.bin), lets setup add a bad input,
// and checks that every command given fails with exit status 1, one line
// on stderr that says want, and no file left behind.
func badInput(t *testing.T, setup func(dir string), want string, commands ...[]string) {
	t.Helper()
	dir := t.TempDir()
	ok(t, dir, nil, "keygen", "-alg", "ML-KEM-768", "-out", "key.pem")
	ok(t, dir, nil, "keygen", "-alg", "ML-KEM-768", "-out", "key.der", "-format", "der")
	ok(t, dir, nil, "pub", "-in", "key.pem", "-out", "pub.pem")
	ok(t, dir, nil, "pub", "-in", "key.der", "-out", "pub.der", "-format", "der")
	ok(t, dir, nil, "encap", "-pub", "pub.pem", "-out", "ct.bin", "-secret", "ss.bin")
	setup(dir)
	before := listDir(t, dir)
	for _, args := range commands {
		wantFailure(t, binary(t, dir, nil, args...), exitError, want)
	}
	wantNoNewFiles(t, dir, before)
}

// The commands that read a private key from bad, writing to new files.
func privateKeyCommands(bad string) [][]string {
	return [][]string{
		{"pub", "-in", bad, "-out", "new-pub.pem"},
		{"decap", "-key", bad, "-in", "ct.bin", "-secret", "new-ss.bin"},
		{"inspect", bad},
	}
}

// The commands that read a public key from bad, writing to new files.
func publicKeyCommands(bad string) [][]string {
	return [][]string{
		{"encap", "-pub", bad, "-out", "new-ct.bin", "-secret", "new-ss.bin"},
		{"inspect", bad},
	}
}

func TestBadInputTruncatedPEM(t *testing.T) {
	badInput(t, func(dir string) {
		key := readFile(t, dir, "key.pem")
		writeFile(t, dir, "bad.pem", key[:len(key)/2])
		pub := readFile(t, dir, "pub.pem")
		writeFile(t, dir, "bad-pub.pem", pub[:len(pub)-30])
	}, "malformed or truncated PEM block", append(privateKeyCommands("bad.pem"), publicKeyCommands("bad-pub.pem")...)...)
}

func TestBadInputWrongPEMLabel(t *testing.T) {
	badInput(t, func(dir string) {
		key := readFile(t, dir, "key.pem")
		writeFile(t, dir, "bad.pem", bytes.ReplaceAll(key, []byte("PRIVATE KEY"), []byte("EC PRIVATE KEY")))
	}, `PEM block type is "EC PRIVATE KEY"`, privateKeyCommands("bad.pem")...)
	// A public key where a private key is wanted, and the reverse.
	badInput(t, func(string) {}, `PEM block type is "PUBLIC KEY", want "PRIVATE KEY" or "PQKEM PRIVATE KEY"`+"\nhint: this is a public key; give the private key (keygen's -out)\n",
		[]string{"pub", "-in", "pub.pem", "-out", "new-pub.pem"},
		[]string{"decap", "-key", "pub.pem", "-in", "ct.bin", "-secret", "new-ss.bin"})
	badInput(t, func(string) {}, `PEM block type is "PRIVATE KEY", want "PUBLIC KEY"`,
		[]string{"encap", "-pub", "key.pem", "-out", "new-ct.bin", "-secret", "new-ss.bin"})
	badInput(t, func(string) {}, "\nhint: this is a private key; 'pqkem pub -in FILE' writes its public key\n",
		[]string{"encap", "-pub", "key.pem", "-out", "new-ct.bin", "-secret", "new-ss.bin"})
}

// oidML-KEM-768 in DER: 06 09 60 86 48 01 65 03 04 04 02.
var oidMLKEM768 = []byte{0x06, 0x09, 0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x04, 0x02}

// patchOID replaces the last byte of the ML-KEM-768 OID in der.
func patchOID(t *testing.T, der []byte, last byte) []byte {
	t.Helper()
	i := bytes.Index(der, oidMLKEM768)
	if i < 0 {
		t.Fatal("no ML-KEM-768 OID in the DER")
	}
	der = bytes.Clone(der)
	der[i+len(oidMLKEM768)-1] = last
	return der
}

func TestBadInputWrongOID(t *testing.T) {
	badInput(t, func(dir string) {
		writeFile(t, dir, "bad.der", patchOID(t, readFile(t, dir, "key.der"), 9))
		writeFile(t, dir, "bad-pub.der", patchOID(t, readFile(t, dir, "pub.der"), 9))
	}, "unknown algorithm OID 2.16.840.1.101.3.4.4.9", append(privateKeyCommands("bad.der"), publicKeyCommands("bad-pub.der")...)...)
}

// An ML-KEM-768 key under the ML-KEM-512 OID.
func TestBadInputLevelMismatch(t *testing.T) {
	badInput(t, func(dir string) {
		writeFile(t, dir, "bad-pub.der", patchOID(t, readFile(t, dir, "pub.der"), 1))
	}, "ML-KEM-512 public key is 1184 bytes, want 800", publicKeyCommands("bad-pub.der")...)
	badInput(t, func(dir string) {
		priv, err := keyfile.DecodePrivateKey(readFile(t, dir, "key.pem"), nil)
		if err != nil {
			t.Fatal(err)
		}
		der, err := keyfile.MarshalPKCS8PrivateKeyForm(priv.Key, keyfile.FormExpanded)
		if err != nil {
			t.Fatal(err)
		}
		writeFile(t, dir, "bad.der", patchOID(t, der, 1))
	}, "ML-KEM-512 privateKey: expandedKey is 2400 bytes, want 1632", privateKeyCommands("bad.der")...)
}

func TestBadInputBothMismatch(t *testing.T) {
	badInput(t, func(dir string) {
		priv, err := keyfile.DecodePrivateKey(readFile(t, dir, "key.pem"), nil)
		if err != nil {
			t.Fatal(err)
		}
		der, err := keyfile.MarshalPKCS8PrivateKeyForm(priv.Key, keyfile.FormBoth)
		if err != nil {
			t.Fatal(err)
		}
		der[len(der)-1] ^= 1 // the last byte of z in the expanded key
		writeFile(t, dir, "bad.der", der)
	}, "ML-KEM-768 privateKey: both: seed and expandedKey do not match", privateKeyCommands("bad.der")...)
}

func TestBadInputExpandedBadHash(t *testing.T) {
	badInput(t, func(dir string) {
		priv, err := keyfile.DecodePrivateKey(readFile(t, dir, "key.pem"), nil)
		if err != nil {
			t.Fatal(err)
		}
		der, err := keyfile.MarshalPKCS8PrivateKeyForm(priv.Key, keyfile.FormExpanded)
		if err != nil {
			t.Fatal(err)
		}
		der[len(der)-40] ^= 1 // in H(ek), the 32 bytes before the 32-byte z
		writeFile(t, dir, "bad.der", der)
	}, "ML-KEM-768 privateKey: expandedKey: mlkem: invalid decapsulation key: H(ek) does not match", privateKeyCommands("bad.der")...)
}

func TestBadInputEmptyFile(t *testing.T) {
	badInput(t, func(dir string) {
		writeFile(t, dir, "empty", nil)
	}, "empty: keyfile: empty input", append(privateKeyCommands("empty"), publicKeyCommands("empty")...)...)
	badInput(t, func(dir string) {
		writeFile(t, dir, "empty", nil)
	}, "empty: ML-KEM-768 ciphertext is 0 bytes, want 1088",
		[]string{"decap", "-key", "key.pem", "-in", "empty", "-secret", "new-ss.bin"})
}

func TestBadInputDirectory(t *testing.T) {
	badInput(t, func(dir string) {
		if err := os.Mkdir(filepath.Join(dir, "subdir"), 0o755); err != nil {
			t.Fatal(err)
		}
	}, "subdir: is a directory, want a file", append(append(privateKeyCommands("subdir"), publicKeyCommands("subdir")...),
		[]string{"decap", "-key", "key.pem", "-in", "subdir", "-secret", "new-ss.bin"})...)
}

func TestBadInputMissingFile(t *testing.T) {
	badInput(t, func(string) {}, "missing.pem: no such file or directory",
		append(append(privateKeyCommands("missing.pem"), publicKeyCommands("missing.pem")...),
			[]string{"decap", "-key", "key.pem", "-in", "missing.pem", "-secret", "new-ss.bin"})...)
	// An output in a directory that does not exist.
	badInput(t, func(string) {}, "no-such-dir: no such file or directory",
		[]string{"keygen", "-alg", "ML-KEM-768", "-out", "no-such-dir/key.pem"},
		[]string{"encap", "-pub", "pub.pem", "-out", "new-ct.bin", "-secret", "no-such-dir/ss.bin"})
}

func TestBadInputCiphertextLength(t *testing.T) {
	badInput(t, func(dir string) {
		ct := readFile(t, dir, "ct.bin")
		writeFile(t, dir, "short.bin", ct[:len(ct)-1])
		writeFile(t, dir, "long.bin", append(ct, 0))
	}, "ML-KEM-768 ciphertext is", []string{"decap", "-key", "key.pem", "-in", "short.bin", "-secret", "new-ss.bin"},
		[]string{"decap", "-key", "key.pem", "-in", "long.bin", "-secret", "new-ss.bin"})
	badInput(t, func(dir string) {
		ct := readFile(t, dir, "ct.bin")
		writeFile(t, dir, "short.bin", ct[:len(ct)-1])
	}, "short.bin: ML-KEM-768 ciphertext is 1087 bytes, want 1088", []string{"decap", "-key", "key.pem", "-in", "short.bin", "-secret", "new-ss.bin"})
}

// A key of another scheme than -alg names.
func TestBadInputWrongScheme(t *testing.T) {
	badInput(t, func(string) {}, "the key is ML-KEM-768, want ML-KEM-512",
		[]string{"pub", "-in", "key.pem", "-alg", "ML-KEM-512", "-out", "new-pub.pem"},
		[]string{"encap", "-pub", "pub.pem", "-alg", "ML-KEM-512", "-out", "new-ct.bin", "-secret", "new-ss.bin"})
}

// A pre-RFC 9935 bare seed is read only with -lenient.
func TestKeyFilesLenient(t *testing.T) {
	dir := t.TempDir()
	ok(t, dir, nil, "keygen", "-alg", "ML-KEM-512", "-format", "raw", "-out", "seed.bin")
	seed := readFile(t, dir, "seed.bin")
	der, err := asn1.Marshal(struct {
		Version    int
		Algorithm  pkix.AlgorithmIdentifier
		PrivateKey []byte
	}{0, pkix.AlgorithmIdentifier{Algorithm: asn1.ObjectIdentifier{2, 16, 840, 1, 101, 3, 4, 4, 1}}, seed})
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, dir, "bare.der", der)
	before := listDir(t, dir)
	wantFailure(t, binary(t, dir, nil, "pub", "-in", "bare.der", "-out", "pub.pem"), exitError,
		"ML-KEM-512 privateKey is a bare 64-byte seed with no RFC 9935 tag (the pre-RFC encoding, read only when lenient)\n"+
			"hint: this is a pre-RFC 9935 ML-KEM encoding, which -lenient reads\n")
	wantNoNewFiles(t, dir, before)
	r := ok(t, dir, nil, "inspect", "-lenient", "bare.der")
	if !strings.Contains(r.stdout, "form:        bare seed") {
		t.Errorf("inspect -lenient of a bare seed:\n%s", r.stdout)
	}
	ok(t, dir, nil, "pub", "-lenient", "-in", "bare.der", "-out", "pub.pem")
	want := ok(t, dir, nil, "pub", "-inform", "raw", "-alg", "ML-KEM-512", "-in", "seed.bin").stdout
	if got := string(readFile(t, dir, "pub.pem")); got != want {
		t.Error("the public key of the bare seed is not the seed's")
	}
}
