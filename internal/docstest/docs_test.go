package docstest

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"
)

// skipMarker, as a line of a snippet, leaves it out of the test. Use it
// only for code that cannot compile on its own, and say why after it.
const skipMarker = "// docstest: skip"

// imports are the packages a snippet may use without importing them, by
// the name it uses.
var imports = map[string]string{
	"bytes": "bytes", "context": "context", "errors": "errors", "fmt": "fmt",
	"hpke": "crypto/hpke", "io": "io", "log": "log", "net": "net", "os": "os",
	"strings": "strings", "time": "time",
	"frodo": "github.com/pqkem/pqkem/frodo", "hybrid": "github.com/pqkem/pqkem/hybrid",
	"kem": "github.com/pqkem/pqkem/kem", "keyfile": "github.com/pqkem/pqkem/keyfile",
	"mlkem": "github.com/pqkem/pqkem/mlkem", "noise": "github.com/pqkem/pqkem/noise",
	"pake": "github.com/pqkem/pqkem/pake",
}

// snippet is one ```go block of a Markdown file.
type snippet struct {
	file string // relative to the module root
	line int    // of the block's first line of code
	code string
}

// snippets returns the ```go blocks of README.md and docs/*.md.
func snippets(t *testing.T, root string) []snippet {
	files, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	files = append([]string{filepath.Join(root, "README.md")}, files...)
	var out []snippet
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(root, f)
		var cur *snippet
		sc := bufio.NewScanner(bytes.NewReader(data))
		for n := 1; sc.Scan(); n++ {
			line := sc.Text()
			switch {
			case cur == nil && strings.TrimSpace(line) == "```go":
				cur = &snippet{file: filepath.ToSlash(rel), line: n + 1}
			case cur != nil && strings.TrimSpace(line) == "```":
				out = append(out, *cur)
				cur = nil
			case cur != nil:
				cur.code += line + "\n"
			}
		}
		if cur != nil {
			t.Errorf("%s:%d: a ```go block that does not end", rel, cur.line-1)
		}
	}
	return out
}

// program makes a main package of s: a snippet with a package clause as
// it is; one of declarations in package main, with an empty main if it
// has none; any other inside func main. The packages it names in imports
// are imported, and line directives point the compiler's messages at the
// Markdown file.
func program(s snippet) (string, error) {
	pos := fmt.Sprintf("//line %s:%d\n", s.file, s.line)
	if strings.HasPrefix(strings.TrimSpace(s.code), "package ") {
		return pos + s.code, nil
	}
	fset := token.NewFileSet()
	src := "package main\n" + pos + s.code
	f, err := parser.ParseFile(fset, "", src, 0)
	if err == nil {
		if f.Scope.Lookup("main") == nil {
			src += "\nfunc main() {}\n"
		}
	} else {
		src = "package main\nfunc main() {\n" + pos + s.code + "}\n"
		if f, err = parser.ParseFile(fset, "", src, 0); err != nil {
			return "", err
		}
	}
	if len(f.Imports) > 0 {
		return src, nil
	}
	// The names of the table used before a dot: the packages to import.
	used := map[string]bool{}
	ast.Inspect(f, func(n ast.Node) bool {
		if sel, ok := n.(*ast.SelectorExpr); ok {
			if id, ok := sel.X.(*ast.Ident); ok && imports[id.Name] != "" {
				used[id.Name] = true
			}
		}
		return true
	})
	var imp []string
	for name := range used {
		imp = append(imp, fmt.Sprintf("import %q\n", imports[name]))
	}
	slices.Sort(imp)
	return strings.Replace(src, "package main\n", "package main\n"+strings.Join(imp, ""), 1), nil
}

// wantOutput returns what the snippet says it prints: the comment at the
// end of each line that calls fmt.Println, in order ("fmt.Println(x) //
// true" prints "true").
func wantOutput(code string) (string, bool) {
	var want strings.Builder
	found := false
	for line := range strings.Lines(code) {
		call, comment, ok := strings.Cut(line, "// ")
		if !ok || !strings.HasPrefix(strings.TrimSpace(call), "fmt.Println(") {
			continue
		}
		want.WriteString(strings.TrimSpace(comment) + "\n")
		found = true
	}
	return want.String(), found
}

// TestSnippets builds every snippet, all in one go build, and runs the
// programs (not with -short).
func TestSnippets(t *testing.T) {
	if runtime.GOOS == "js" || runtime.GOOS == "wasip1" {
		t.Skip("no go command to run here")
	}
	goCmd, err := exec.LookPath("go")
	if err != nil {
		t.Skipf("no go command: %v", err)
	}
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	gomod, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil || !bytes.HasPrefix(gomod, []byte("module github.com/pqkem/pqkem\n")) {
		t.Fatalf("the module root is not %s: %v", root, err)
	}
	gosum, err := os.ReadFile(filepath.Join(root, "go.sum"))
	if err != nil {
		t.Fatal(err)
	}

	// A module of its own, with pqkem replaced by this checkout: the
	// snippets build as a user's program does.
	dir := t.TempDir()
	mod := strings.Replace(string(gomod), "module github.com/pqkem/pqkem\n",
		"module docsnippets\n\nrequire github.com/pqkem/pqkem v0.0.0\n\nreplace github.com/pqkem/pqkem => "+root+"\n", 1)
	write := func(name, data string) {
		t.Helper()
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("go.mod", mod)
	write("go.sum", string(gosum))

	all := snippets(t, root)
	if len(all) == 0 {
		t.Fatal("no Go snippets found")
	}
	var names []string
	where := map[string]snippet{}
	for i, s := range all {
		if strings.Contains(s.code, skipMarker) {
			t.Logf("%s:%d: skipped (%s)", s.file, s.line, skipMarker)
			continue
		}
		src, err := program(s)
		if err != nil {
			t.Errorf("%s:%d: %v", s.file, s.line, err)
			continue
		}
		name := fmt.Sprintf("s%02d", i)
		write(filepath.Join(name, "main.go"), src)
		names = append(names, name)
		where[name] = s
	}
	if len(names) == 0 {
		return
	}
	bin := filepath.Join(dir, "bin")
	build := exec.Command(goCmd, "build", "-o", bin+string(filepath.Separator), "./...")
	build.Dir = dir
	build.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOWORK=off", "GOPROXY=off")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("the snippets do not build: %v\n%s", err, out)
	}
	if testing.Short() {
		return
	}
	for _, name := range names {
		s := where[name]
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		cmd := exec.CommandContext(ctx, filepath.Join(bin, name))
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		cancel()
		if err != nil {
			t.Errorf("%s:%d: the snippet fails: %v\n%s%s", s.file, s.line, err, out, stderr.Bytes())
			continue
		}
		if want, ok := wantOutput(s.code); ok && string(out) != want {
			t.Errorf("%s:%d: the snippet prints %q, its comments say %q", s.file, s.line, out, want)
		}
	}
}

// TestProgram checks how snippets become programs.
func TestProgram(t *testing.T) {
	for _, tc := range []struct {
		code string
		want []string
	}{
		{"x := mlkem.SeedSize\nfmt.Println(x)\n", []string{"import \"fmt\"\nimport \"github.com/pqkem/pqkem/mlkem\"\n", "func main() {\n//line README.md:7\nx := "}},
		{"func f() int { return mlkem.SeedSize }\n", []string{"import \"github.com/pqkem/pqkem/mlkem\"\n//line README.md:7\nfunc f()", "func main() {}"}},
		{"package main\n\nfunc main() {}\n", []string{"//line README.md:7\npackage main\n"}},
	} {
		got, err := program(snippet{file: "README.md", line: 7, code: tc.code})
		if err != nil {
			t.Errorf("%q: %v", tc.code, err)
			continue
		}
		for _, w := range tc.want {
			if !strings.Contains(got, w) {
				t.Errorf("%q: got\n%s\nwant it to contain %q", tc.code, got, w)
			}
		}
	}
	if out, ok := wantOutput("a := 1\nfmt.Println(a) // 1\nfmt.Println(true) // true\n"); !ok || out != "1\ntrue\n" {
		t.Errorf("wantOutput = %q, %v", out, ok)
	}
}
