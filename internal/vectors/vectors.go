// Package vectors finds and reads the known-answer test vectors that live
// outside the repository, for the tests of every scheme (ML-KEM, FrodoKEM,
// X-Wing, Tempo, ...).
//
// The vectors are looked up in the directory named by the environment
// variable PQKEM_VECTORS or, when it is not set, in ../shared/vectors next to
// the repository root (the directory holding the go.mod of module
// github.com/pqkem/pqkem). A relative PQKEM_VECTORS is taken relative to the
// repository root, not to the package directory go test runs in. Files are
// named by slash-separated paths relative to that directory, such as
// "mlkem/acvp/ML-KEM-keyGen-FIPS203/internalProjection.json".
//
// A missing file is not an error on a developer's machine: the test is
// skipped, and the skip message names the files it wanted and says how to
// point PQKEM_VECTORS at them. When the environment variable CI is set (to
// anything but "", "0" or "false"), a missing file fails the test instead,
// so that CI cannot pass by skipping everything.
package vectors

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"strings"
	"testing"
)

// EnvVar is the environment variable that names the vector directory.
const EnvVar = "PQKEM_VECTORS"

// ModulePath is the module whose root Dir looks for.
const ModulePath = "github.com/pqkem/pqkem"

// DefaultRel is where the vectors are, relative to the repository root, when
// EnvVar is not set.
const DefaultRel = "../shared/vectors"

// Dir returns the vector directory, which need not exist, and a description
// of where the name came from for messages. It fails only if EnvVar is not
// set and the repository root cannot be found.
func Dir() (dir, from string, err error) {
	root, rootErr := RepoRoot()
	if env := os.Getenv(EnvVar); env != "" {
		if !filepath.IsAbs(env) && rootErr == nil {
			env = filepath.Join(root, env)
		}
		return filepath.Clean(env), "$" + EnvVar, nil
	}
	if rootErr != nil {
		return "", "", rootErr
	}
	return filepath.Join(root, filepath.FromSlash(DefaultRel)),
		"the default, " + DefaultRel + " next to the repository root; " + EnvVar + " is not set", nil
}

// RepoRoot returns the repository root: the nearest directory at or above
// the working directory whose go.mod declares module ModulePath.
func RepoRoot() (string, error) {
	wd, err := os.Getwd()
	if err != nil {
		return "", fmt.Errorf("vectors: %v", err)
	}
	for dir := wd; ; {
		if isModuleRoot(dir) {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("vectors: no go.mod for module %s at or above %s", ModulePath, wd)
		}
		dir = parent
	}
}

func isModuleRoot(dir string) bool {
	data, err := os.ReadFile(filepath.Join(dir, "go.mod"))
	if err != nil {
		return false
	}
	for _, line := range strings.Split(string(data), "\n") {
		f := strings.Fields(line)
		if len(f) >= 2 && f[0] == "module" {
			return strings.Trim(f[1], `"`) == ModulePath
		}
	}
	return false
}

// InCI reports whether the environment variable CI asks for missing vector
// files to fail tests rather than skip them.
func InCI() bool {
	switch strings.ToLower(os.Getenv("CI")) {
	case "", "0", "false":
		return false
	}
	return true
}

// Lookup returns the local path of the vector file rel, and whether it
// exists as a regular file. It never skips or fails; use it for files that
// are optional.
func Lookup(rel string) (p string, ok bool) {
	dir, _, err := Dir()
	if err != nil {
		return "", false
	}
	p = filepath.Join(dir, filepath.FromSlash(rel))
	fi, err := os.Stat(p)
	return p, err == nil && fi.Mode().IsRegular()
}

// Require checks that all the vector files rels exist, and skips the test
// (or, in CI, fails it) naming every missing one. Call it at the start of a
// test with the full list of files the test reads, so that the message
// names all of them at once.
func Require(t testing.TB, rels ...string) {
	t.Helper()
	var missing []string
	for _, rel := range rels {
		if _, ok := Lookup(rel); !ok {
			missing = append(missing, rel)
		}
	}
	if len(missing) > 0 {
		Missing(t, missing...)
	}
}

// Missing skips the test, or fails it in CI, with a message that names the
// vector files rels, the directory they were looked for in, and how to
// point EnvVar at them. It does not return.
func Missing(t testing.TB, rels ...string) {
	t.Helper()
	msg := missingMessage(rels)
	if InCI() {
		t.Fatalf("%s\n(CI is set, so missing vectors are an error)", msg)
	}
	t.Skipf("%s\n(skipping; set CI=1 to make missing vectors an error)", msg)
}

func missingMessage(rels []string) string {
	var b strings.Builder
	dir, from, err := Dir()
	if err != nil {
		fmt.Fprintf(&b, "test vectors not found: %v\n", err)
	} else {
		fmt.Fprintf(&b, "test vectors not found in %s (from %s)\n", dir, from)
	}
	b.WriteString("wanted:\n")
	for _, rel := range rels {
		fmt.Fprintf(&b, "\t%s\n", rel)
	}
	fmt.Fprintf(&b, "Set %s to the directory that holds them, for example\n", EnvVar)
	fmt.Fprintf(&b, "\t%s=/path/to/shared/vectors go test ./...\n", EnvVar)
	fmt.Fprintf(&b, "(a relative %s is taken relative to the repository root).", EnvVar)
	return b.String()
}

// Path returns the local path of the vector file rel, skipping the test (or
// failing it in CI) if the file does not exist.
func Path(t testing.TB, rel string) string {
	t.Helper()
	p, ok := Lookup(rel)
	if !ok {
		Missing(t, rel)
	}
	return p
}

// ReadFile returns the contents of the vector file rel, skipping the test
// (or failing it in CI) if it does not exist. It fails the test if the file
// exists but cannot be read.
func ReadFile(t testing.TB, rel string) []byte {
	t.Helper()
	data, err := os.ReadFile(Path(t, rel))
	if err != nil {
		t.Fatalf("vectors: %v", err)
	}
	return data
}

// ReadGzip returns the decompressed contents of the gzip vector file rel.
func ReadGzip(t testing.TB, rel string) []byte {
	t.Helper()
	data, err := Gunzip(ReadFile(t, rel))
	if err != nil {
		t.Fatalf("vectors: %s: %v", rel, err)
	}
	return data
}

// Gunzip decompresses gzip data, requiring the whole input to be consumed
// by gzip members.
func Gunzip(data []byte) ([]byte, error) {
	zr, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		return nil, err
	}
	out, err := io.ReadAll(zr)
	if err != nil {
		return nil, err
	}
	if err := zr.Close(); err != nil {
		return nil, err
	}
	return out, nil
}

// ReadText returns the contents of the vector file rel, decompressed if its
// name ends in ".gz".
func ReadText(t testing.TB, rel string) []byte {
	t.Helper()
	if path.Ext(rel) == ".gz" {
		return ReadGzip(t, rel)
	}
	return ReadFile(t, rel)
}

// Lines returns the non-empty lines of the vector file rel (decompressed if
// its name ends in ".gz"), with trailing "\r" and spaces removed.
func Lines(t testing.TB, rel string) []string {
	t.Helper()
	lines, err := SplitLines(ReadText(t, rel))
	if err != nil {
		t.Fatalf("vectors: %s: %v", rel, err)
	}
	return lines
}

// SplitLines returns the non-empty lines of data, with trailing white space
// removed. Lines may be up to 16 MiB long.
func SplitLines(data []byte) ([]string, error) {
	var lines []string
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		line := strings.TrimRight(sc.Text(), " \t\r")
		if line != "" {
			lines = append(lines, line)
		}
	}
	return lines, sc.Err()
}

// ReadJSON decodes the JSON vector file rel into v. Unknown fields are an
// error, so that a change in a file's structure is noticed rather than
// silently ignored; use ReadJSONLax for files with fields a test does not
// model.
func ReadJSON(t testing.TB, rel string, v any) {
	t.Helper()
	if err := DecodeJSON(ReadText(t, rel), v, true); err != nil {
		t.Fatalf("vectors: %s: %v", rel, err)
	}
}

// ReadJSONLax is ReadJSON without the unknown-field check.
func ReadJSONLax(t testing.TB, rel string, v any) {
	t.Helper()
	if err := DecodeJSON(ReadText(t, rel), v, false); err != nil {
		t.Fatalf("vectors: %s: %v", rel, err)
	}
}

// DecodeJSON decodes data, which must hold exactly one JSON value, into v.
func DecodeJSON(data []byte, v any, strict bool) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	if strict {
		dec.DisallowUnknownFields()
	}
	if err := dec.Decode(v); err != nil {
		return err
	}
	if _, err := dec.Token(); err != io.EOF {
		return errors.New("trailing data after the JSON value")
	}
	return nil
}

// KeyValue is one "name = value" line of a text vector file.
type KeyValue struct {
	Line  int // 1-based line number
	Key   string
	Value string
}

// ParseKeyValues parses text made of "name = value" lines, the format of
// the NIST .rsp KAT files and of the CCTV text vectors. Blank lines and lines
// starting with '#' or '[' are skipped. The value is what follows the last
// " = " on the line, so "dkPKE = NTT(s) = 2d17..." has the key
// "dkPKE = NTT(s)". Keys may repeat; the pairs are returned in file order.
func ParseKeyValues(data []byte) ([]KeyValue, error) {
	var kvs []KeyValue
	for i, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || line[0] == '#' || line[0] == '[' {
			continue
		}
		k, v, ok := cutLast(line, " = ")
		if !ok {
			// "name =" with an empty value, as in some NIST .rsp files.
			if k, ok = strings.CutSuffix(line, " ="); !ok {
				return nil, fmt.Errorf("line %d: no \" = \" in %q", i+1, truncate(line, 40))
			}
		}
		kvs = append(kvs, KeyValue{Line: i + 1, Key: strings.TrimSpace(k), Value: strings.TrimSpace(v)})
	}
	return kvs, nil
}

func cutLast(s, sep string) (before, after string, found bool) {
	if i := strings.LastIndex(s, sep); i >= 0 {
		return s[:i], s[i+len(sep):], true
	}
	return s, "", false
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
}

// ReadKeyValues reads a "name = value" vector file (see ParseKeyValues),
// decompressing it if its name ends in ".gz".
func ReadKeyValues(t testing.TB, rel string) []KeyValue {
	t.Helper()
	kvs, err := ParseKeyValues(ReadText(t, rel))
	if err != nil {
		t.Fatalf("vectors: %s: %v", rel, err)
	}
	return kvs
}

// Hex decodes a hexadecimal string (either case), failing the test on bad
// input.
func Hex(t testing.TB, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(s)
	if err != nil {
		t.Fatalf("vectors: bad hex %q: %v", truncate(s, 40), err)
	}
	return b
}
