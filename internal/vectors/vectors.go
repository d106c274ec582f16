// Package vectors finds and reads the known-answer test vectors of the
// module's tests (ML-KEM, FrodoKEM, X-Wing, HPKE, NoIC and Tempo).
//
// The vectors are part of the repository: they live in this package's
// testdata directory, internal/vectors/testdata, one directory per set, each
// with a README that says where its files come from, under which licence,
// what they test and how the tests read them. The environment variable
// PQKEM_VECTORS may name another directory with the same layout instead,
// such as an uncompressed or fuller copy; a relative PQKEM_VECTORS is taken
// relative to the repository root (the directory holding the go.mod of
// module github.com/pqkem/pqkem), not to the package directory go test runs
// in.
//
// Files are named by slash-separated paths relative to the vector
// directory, as they were published, such as
// "mlkem/acvp/ML-KEM-keyGen-FIPS203/internalProjection.json". Large files
// are stored gzip-compressed, with ".gz" appended to that name: a name that
// is not found is looked for with ".gz" appended and read decompressed, so
// test code never needs to know which files are compressed.
//
// A missing file fails the test, with a message that names every file it
// wanted and the directory it looked in: nothing in the repository's
// vector directory is optional.
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
const DefaultRel = "internal/vectors/testdata"

// gzSuffix is appended to the name of a file stored compressed.
const gzSuffix = ".gz"

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
		"the default, " + DefaultRel + " in the repository; " + EnvVar + " is not set", nil
}

// RepoRoot returns the repository root: the nearest directory at or above
// the working directory whose go.mod declares module ModulePath.
func RepoRoot() (string, error) {
	wd, err := os.Getwd()
	if err != nil {
		return "", fmt.Errorf("vectors: %w", err)
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

// Lookup returns the local path of the vector file rel, and whether it
// exists as a regular file. If rel itself does not exist but rel+".gz"
// does, it returns the path of the compressed file. It never fails the
// test.
func Lookup(rel string) (p string, ok bool) {
	p, _, ok = lookup(rel)
	return p, ok
}

// lookup is Lookup, also reporting whether p is the compressed form of rel.
func lookup(rel string) (p string, compressed, ok bool) {
	dir, _, err := Dir()
	if err != nil {
		return "", false, false
	}
	p = filepath.Join(dir, filepath.FromSlash(rel))
	if isFile(p) {
		return p, false, true
	}
	if isFile(p + gzSuffix) {
		return p + gzSuffix, true, true
	}
	return p, false, false
}

func isFile(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular()
}

// Require checks that all the vector files rels exist, and fails the test
// naming every missing one. Call it at the start of a test with the full
// list of files the test reads, so that the message names all of them at
// once.
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

// Missing fails the test with a message that names the vector files rels
// and the directory they were looked for in. It does not return.
func Missing(t testing.TB, rels ...string) {
	t.Helper()
	t.Fatal(missingMessage(rels))
}

func missingMessage(rels []string) string {
	var b strings.Builder
	dir, from, err := Dir()
	if err != nil {
		fmt.Fprintf(&b, "test vectors not found: %v\n", err)
	} else {
		fmt.Fprintf(&b, "test vectors not found in %s (from %s)\n", dir, from)
	}
	b.WriteString("wanted (each as named or with .gz appended):\n")
	for _, rel := range rels {
		fmt.Fprintf(&b, "\t%s\n", rel)
	}
	fmt.Fprintf(&b, "The vectors are part of the repository, in %s; if %s is set, it must name a directory with the same layout.", DefaultRel, EnvVar)
	return b.String()
}

// Path returns the local path of the vector file rel, failing the test if
// it does not exist. If rel is stored compressed, Path writes it
// decompressed to a temporary directory of the test and returns that path,
// for programs that take a file name.
func Path(t testing.TB, rel string) string {
	t.Helper()
	p, compressed, ok := lookup(rel)
	if !ok {
		Missing(t, rel)
	}
	if !compressed {
		return p
	}
	out := filepath.Join(t.TempDir(), path.Base(rel))
	if err := os.WriteFile(out, ReadFile(t, rel), 0o644); err != nil {
		t.Fatalf("vectors: %v", err)
	}
	return out
}

// ReadFile returns the contents of the vector file rel, decompressed if it
// is stored as rel+".gz". It fails the test if the file does not exist or
// cannot be read.
func ReadFile(t testing.TB, rel string) []byte {
	t.Helper()
	p, compressed, ok := lookup(rel)
	if !ok {
		Missing(t, rel)
	}
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatalf("vectors: %v", err)
	}
	if compressed {
		if data, err = Gunzip(data); err != nil {
			t.Fatalf("vectors: %s: %v", p, err)
		}
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
// name ends in ".gz" (a file published compressed) or if it is stored
// compressed.
func ReadText(t testing.TB, rel string) []byte {
	t.Helper()
	data := ReadFile(t, rel)
	if path.Ext(rel) == gzSuffix {
		var err error
		if data, err = Gunzip(data); err != nil {
			t.Fatalf("vectors: %s: %v", rel, err)
		}
	}
	return data
}

// Lines returns the non-empty lines of the vector file rel (see ReadText),
// with trailing "\r" and spaces removed.
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

// ReadJSON decodes the JSON vector file rel (see ReadText) into v. Unknown
// fields are an error, so that a change in a file's structure is noticed
// rather than silently ignored; use ReadJSONLax for files with fields a
// test does not model.
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

// ReadKeyValues reads a "name = value" vector file (see ParseKeyValues and
// ReadText).
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

// HexBytes is a JSON string of hexadecimal digits (either case), decoded;
// JSON null leaves it nil.
type HexBytes []byte

// UnmarshalJSON decodes a JSON string of hexadecimal digits, or null.
func (h *HexBytes) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		*h = nil
		return nil
	}
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	d, err := hex.DecodeString(s)
	if err != nil {
		return fmt.Errorf("vectors: bad hex %q: %v", truncate(s, 40), err)
	}
	*h = d
	return nil
}
