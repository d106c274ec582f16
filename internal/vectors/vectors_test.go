package vectors

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

func TestRepoRoot(t *testing.T) {
	root, err := RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	wd, _ := os.Getwd()
	if want := filepath.Dir(filepath.Dir(wd)); root != want {
		t.Errorf("RepoRoot() = %s, want %s", root, want)
	}
	if !isModuleRoot(root) {
		t.Errorf("%s has no go.mod for %s", root, ModulePath)
	}
}

func TestDir(t *testing.T) {
	root, err := RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ env, want string }{
		{"", filepath.Join(root, "internal", "vectors", "testdata")},
		{"/some/where/vectors", "/some/where/vectors"},
		{"testdata/v", filepath.Join(root, "testdata", "v")},
		{"../elsewhere", filepath.Join(filepath.Dir(root), "elsewhere")},
	} {
		t.Setenv(EnvVar, tc.env)
		dir, from, err := Dir()
		if err != nil {
			t.Fatal(err)
		}
		if dir != tc.want {
			t.Errorf("%s=%q: Dir() = %s, want %s", EnvVar, tc.env, dir, tc.want)
		}
		if (tc.env != "") != strings.HasPrefix(from, "$"+EnvVar) {
			t.Errorf("%s=%q: Dir() says it came from %q", EnvVar, tc.env, from)
		}
	}
	// The default is this package's testdata directory.
	t.Setenv(EnvVar, "")
	wd, _ := os.Getwd()
	if dir, _, _ := Dir(); dir != filepath.Join(wd, "testdata") {
		t.Errorf("default Dir() = %s, want %s", dir, filepath.Join(wd, "testdata"))
	}
}

// fakeTB records Fatal and Fatalf and stops the goroutine, as testing.T
// does.
type fakeTB struct {
	testing.TB
	failed bool
	msg    string
}

func (f *fakeTB) Helper() {}

func (f *fakeTB) Fatal(args ...any) {
	f.failed, f.msg = true, fmt.Sprint(args...)
	runtime.Goexit()
}

func (f *fakeTB) Fatalf(format string, args ...any) {
	f.failed, f.msg = true, fmt.Sprintf(format, args...)
	runtime.Goexit()
}

func runFake(t *testing.T, fn func(tb testing.TB)) *fakeTB {
	f := &fakeTB{TB: t}
	done := make(chan struct{})
	go func() {
		defer close(done)
		fn(f)
	}()
	<-done
	return f
}

// A missing file fails the test (it never skips), naming every missing
// file and the directory.
func TestMissingFile(t *testing.T) {
	dir := t.TempDir()
	t.Setenv(EnvVar, dir)
	os.WriteFile(filepath.Join(dir, "present.txt"), nil, 0o644)
	f := runFake(t, func(tb testing.TB) {
		Require(tb, "present.txt", "scheme/one.json", "scheme/two.txt.gz")
		t.Errorf("Require returned for missing files")
	})
	if !f.failed {
		t.Errorf("Require of missing files did not fail the test")
	}
	for _, want := range []string{"scheme/one.json", "scheme/two.txt.gz", dir} {
		if !strings.Contains(f.msg, want) {
			t.Errorf("message does not mention %q:\n%s", want, f.msg)
		}
	}
	if strings.Contains(f.msg, "present.txt") {
		t.Errorf("message names a file that exists:\n%s", f.msg)
	}
	t.Logf("%s", f.msg)
	if f := runFake(t, func(tb testing.TB) { ReadFile(tb, "present.txt") }); f.failed {
		t.Errorf("ReadFile of an existing empty file: %s", f.msg)
	}
	for name, read := range map[string]func(testing.TB){
		"ReadFile": func(tb testing.TB) { ReadFile(tb, "nope.txt") },
		"Path":     func(tb testing.TB) { Path(tb, "nope.txt") },
		"ReadJSON": func(tb testing.TB) { ReadJSON(tb, "nope.txt", new(any)) },
	} {
		if f := runFake(t, read); !f.failed || !strings.Contains(f.msg, "nope.txt") {
			t.Errorf("%s of a missing file: failed=%v %s", name, f.failed, f.msg)
		}
	}
	// A directory is not a vector file.
	os.Mkdir(filepath.Join(dir, "sub"), 0o755)
	if _, ok := Lookup("sub"); ok {
		t.Errorf("Lookup of a directory reported a file")
	}
}

// gzipped returns text compressed with gzip.
func gzipped(text string) []byte {
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	zw.Write([]byte(text))
	zw.Close()
	return b.Bytes()
}

// A file stored as name.gz reads as name, through every reader.
func TestCompressedFile(t *testing.T) {
	dir := t.TempDir()
	t.Setenv(EnvVar, dir)
	text := "K = AB\n"
	gz := gzipped(text)
	os.WriteFile(filepath.Join(dir, "kv.txt.gz"), gz, 0o644)

	if p, ok := Lookup("kv.txt"); !ok || p != filepath.Join(dir, "kv.txt.gz") {
		t.Errorf("Lookup(kv.txt) = %s, %v", p, ok)
	}
	if got := string(ReadFile(t, "kv.txt")); got != text {
		t.Errorf("ReadFile(kv.txt) = %q", got)
	}
	if got := string(ReadText(t, "kv.txt")); got != text {
		t.Errorf("ReadText(kv.txt) = %q", got)
	}
	// A name published with .gz reads compressed through ReadFile and
	// decompressed through ReadText.
	if got := ReadFile(t, "kv.txt.gz"); !bytes.Equal(got, gz) {
		t.Errorf("ReadFile(kv.txt.gz) decompressed the file")
	}
	if got := string(ReadText(t, "kv.txt.gz")); got != text {
		t.Errorf("ReadText(kv.txt.gz) = %q", got)
	}
	// Path gives a decompressed copy of a compressed file.
	p := Path(t, "kv.txt")
	if filepath.Base(p) != "kv.txt" || strings.HasPrefix(p, dir) {
		t.Errorf("Path(kv.txt) = %s, want a kv.txt outside %s", p, dir)
	}
	if got, err := os.ReadFile(p); err != nil || string(got) != text {
		t.Errorf("Path(kv.txt) holds %q, %v", got, err)
	}
	// A plain file wins over a compressed one of the same name.
	os.WriteFile(filepath.Join(dir, "kv.txt"), []byte("K = CD\n"), 0o644)
	if got := string(ReadFile(t, "kv.txt")); got != "K = CD\n" {
		t.Errorf("ReadFile(kv.txt) with both forms = %q", got)
	}
	if p := Path(t, "kv.txt"); p != filepath.Join(dir, "kv.txt") {
		t.Errorf("Path(kv.txt) with both forms = %s", p)
	}
}

func TestReaders(t *testing.T) {
	dir := t.TempDir()
	t.Setenv(EnvVar, dir)
	text := "# comment\n\nd = 00ff\r\nK = AB\nA[0, 0] = {1, 2}\ndkPKE = NTT(s) = 0102\nempty =\n"
	gz := gzipped(text)
	os.MkdirAll(filepath.Join(dir, "x"), 0o755)
	os.WriteFile(filepath.Join(dir, "x", "kv.txt"), []byte(text), 0o644)
	os.WriteFile(filepath.Join(dir, "x", "kv.txt.gz"), gz, 0o644)
	os.WriteFile(filepath.Join(dir, "x", "a.json"), []byte(`{"a": 1, "b": "x"}`), 0o644)

	for _, rel := range []string{"x/kv.txt", "x/kv.txt.gz"} {
		if got := string(ReadText(t, rel)); got != text {
			t.Errorf("ReadText(%s) = %q", rel, got)
		}
		lines := Lines(t, rel)
		if len(lines) != 6 || lines[1] != "d = 00ff" {
			t.Errorf("Lines(%s) = %q", rel, lines)
		}
		kvs := ReadKeyValues(t, rel)
		want := []KeyValue{{3, "d", "00ff"}, {4, "K", "AB"}, {5, "A[0, 0]", "{1, 2}"}, {6, "dkPKE = NTT(s)", "0102"}, {7, "empty", ""}}
		if fmt.Sprint(kvs) != fmt.Sprint(want) {
			t.Errorf("ReadKeyValues(%s) = %v, want %v", rel, kvs, want)
		}
	}
	if got := ReadFile(t, "x/kv.txt.gz"); !bytes.Equal(got, gz) {
		t.Errorf("ReadFile decompressed a .gz file")
	}
	if _, err := Gunzip([]byte(text)); err == nil {
		t.Errorf("Gunzip accepted plain text")
	}
	if _, err := ParseKeyValues([]byte("no separator here\n")); err == nil {
		t.Errorf("ParseKeyValues accepted a line without \" = \"")
	}

	var strict struct{ A int }
	if err := DecodeJSON([]byte(`{"a": 1, "b": "x"}`), &strict, true); err == nil {
		t.Errorf("strict DecodeJSON accepted an unknown field")
	}
	if err := DecodeJSON([]byte(`{"a": 1} {}`), &strict, false); err == nil {
		t.Errorf("DecodeJSON accepted trailing data")
	}
	var lax struct{ A int }
	ReadJSONLax(t, "x/a.json", &lax)
	var full struct {
		A int
		B string
	}
	ReadJSON(t, "x/a.json", &full)
	if lax.A != 1 || full.A != 1 || full.B != "x" {
		t.Errorf("ReadJSON: got %+v, %+v", lax, full)
	}
	if got := Hex(t, "00FfaB"); !bytes.Equal(got, []byte{0, 0xff, 0xab}) {
		t.Errorf("Hex = %x", got)
	}
}

func TestHexBytes(t *testing.T) {
	var v struct{ A, B, C HexBytes }
	if err := json.Unmarshal([]byte(`{"A": "00fF10", "B": null, "C": ""}`), &v); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(v.A, []byte{0, 0xff, 0x10}) || v.B != nil || v.C == nil || len(v.C) != 0 {
		t.Errorf("got A %x, B %#v, C %#v; want 00ff10, nil, empty", v.A, v.B, v.C)
	}
	for _, bad := range []string{`{"A": "0g"}`, `{"A": "abc"}`, `{"A": 12}`} {
		if err := json.Unmarshal([]byte(bad), &v); err == nil {
			t.Errorf("%s: no error", bad)
		}
	}
}
