package vectors

import (
	"bytes"
	"compress/gzip"
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
		{"", filepath.Join(filepath.Dir(root), "shared", "vectors")},
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
}

func TestInCI(t *testing.T) {
	for v, want := range map[string]bool{"": false, "0": false, "false": false, "FALSE": false, "1": true, "true": true, "yes": true} {
		t.Setenv("CI", v)
		if got := InCI(); got != want {
			t.Errorf("CI=%q: InCI() = %v, want %v", v, got, want)
		}
	}
}

// fakeTB records Skipf and Fatalf and stops the goroutine, as testing.T does.
type fakeTB struct {
	testing.TB
	skipped, failed bool
	msg             string
}

func (f *fakeTB) Helper() {}

func (f *fakeTB) Skipf(format string, args ...any) {
	f.skipped, f.msg = true, fmt.Sprintf(format, args...)
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

func TestMissingFile(t *testing.T) {
	dir := t.TempDir()
	t.Setenv(EnvVar, dir)
	for _, ci := range []string{"", "1"} {
		t.Setenv("CI", ci)
		f := runFake(t, func(tb testing.TB) {
			Require(tb, "present.txt", "scheme/one.json", "scheme/two.txt.gz")
			t.Errorf("CI=%q: Require returned for missing files", ci)
		})
		os.WriteFile(filepath.Join(dir, "present.txt"), nil, 0o644)
		if ci == "" && (!f.skipped || f.failed) {
			t.Errorf("CI unset: skipped=%v failed=%v, want a skip", f.skipped, f.failed)
		}
		if ci != "" && (!f.failed || f.skipped) {
			t.Errorf("CI=%q: skipped=%v failed=%v, want a failure", ci, f.skipped, f.failed)
		}
		for _, want := range []string{"scheme/one.json", "scheme/two.txt.gz", EnvVar, dir} {
			if !strings.Contains(f.msg, want) {
				t.Errorf("CI=%q: message does not mention %q:\n%s", ci, want, f.msg)
			}
		}
		t.Logf("CI=%q: %s", ci, f.msg)
	}
	t.Setenv("CI", "")
	if f := runFake(t, func(tb testing.TB) { ReadFile(tb, "present.txt") }); f.skipped || f.failed {
		t.Errorf("ReadFile of an existing empty file: %s", f.msg)
	}
	if f := runFake(t, func(tb testing.TB) { ReadFile(tb, "nope.txt") }); !f.skipped || !strings.Contains(f.msg, "nope.txt") {
		t.Errorf("ReadFile of a missing file: skipped=%v %s", f.skipped, f.msg)
	}
	// A directory is not a vector file.
	os.Mkdir(filepath.Join(dir, "sub"), 0o755)
	if _, ok := Lookup("sub"); ok {
		t.Errorf("Lookup of a directory reported a file")
	}
}

func TestReaders(t *testing.T) {
	dir := t.TempDir()
	t.Setenv(EnvVar, dir)
	text := "# comment\n\nd = 00ff\r\nK = AB\nA[0, 0] = {1, 2}\ndkPKE = NTT(s) = 0102\nempty =\n"
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write([]byte(text))
	zw.Close()
	os.MkdirAll(filepath.Join(dir, "x"), 0o755)
	os.WriteFile(filepath.Join(dir, "x", "kv.txt"), []byte(text), 0o644)
	os.WriteFile(filepath.Join(dir, "x", "kv.txt.gz"), gz.Bytes(), 0o644)
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
	if got := ReadFile(t, "x/kv.txt.gz"); !bytes.Equal(got, gz.Bytes()) {
		t.Errorf("ReadFile decompressed a .gz file")
	}
	if got := ReadGzip(t, "x/kv.txt.gz"); string(got) != text {
		t.Errorf("ReadGzip = %q", got)
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

// TestSharedVectors reports which scheme folders the real vector directory
// has; it checks only that ML-KEM's is where the conventions say.
func TestSharedVectors(t *testing.T) {
	dir, from, err := Dir()
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("vector directory: %s (from %s)", dir, from)
	Require(t, "mlkem/README.md")
	for _, s := range []string{"mlkem", "frodo", "xwing", "tempo"} {
		_, ok := Lookup(s + "/README.md")
		t.Logf("%s/README.md present: %v", s, ok)
	}
}
