package ctcheck

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// secretPackages are the packages that handle secrets: keys, shared keys,
// messages, PRF outputs, passwords. Every package under them is checked
// too (mlkemtest and frodotest derandomize encapsulation for tests; they
// are checked anyway: stricter costs nothing).
var secretPackages = []string{
	"github.com/pqkem/pqkem/internal/fips203/...",
	"github.com/pqkem/pqkem/internal/keccak/...",
	"github.com/pqkem/pqkem/internal/mlkemlevel/...",
	"github.com/pqkem/pqkem/mlkem/...",
	"github.com/pqkem/pqkem/hybrid/...",
	"github.com/pqkem/pqkem/frodo/...",
	"github.com/pqkem/pqkem/pake/...",
}

// allowlist holds the functions of secretPackages that may divide, with
// the reason: each divides public values only. Names are objdump's,
// without the module path "github.com/pqkem/pqkem/".
var allowlist = map[string]string{
	"internal/keccak.(*X4).SqueezeBlocks": "lengths: len(out) % rate and the offset % rate; the lengths of the outputs are public, their contents never divided",
	"internal/keccak.(*X4).Read":          "the offset: (off + len) % rate, public lengths",
	"pake.reciprocal":                     "runs at package initialization on the public constant q^5 (bits.Div64)",
	"pake.init":                           "pake.reciprocal inlined into package initialization: the public constant q^5",
	"pake.(*Scheme).presample.func1":      "the matrix index e / k and e % k of entry e at rank k, both public",
}

// goTool returns the go command on the PATH, the one that runs the tests.
func goTool(t *testing.T) string {
	t.Helper()
	p, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command to build the packages with")
	}
	return p
}

// goList runs go list with args for the given GOARCH and build tags and
// returns its output.
func goList(t *testing.T, goarch, tags string, args ...string) string {
	t.Helper()
	if tags != "" {
		args = append([]string{"-tags", tags}, args...)
	}
	cmd := exec.Command(goTool(t), append([]string{"list"}, args...)...)
	cmd.Env = append(os.Environ(), "GOARCH="+goarch, "GOOS=linux", "CGO_ENABLED=0")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go %s (GOARCH=%s): %v\n%s", strings.Join(cmd.Args[1:], " "), goarch, err, stderr.Bytes())
	}
	return strings.TrimSpace(string(out))
}

// exports compiles the packages matched by patterns for the given GOARCH
// and build tags, and returns import path -> object file (the compiler's
// output in the build cache, with the code of every function).
//
// go test caches a test's result until a file the test consulted changes,
// and the compilation runs in a subprocess, out of its sight. So exports
// also consults (stats) every source file of the module that goes into the
// objects: a change to one of them reruns the check.
func exports(t *testing.T, goarch, tags string, patterns ...string) map[string]string {
	t.Helper()
	sources := goList(t, goarch, tags, append([]string{"-deps", "-f",
		`{{if .Module}}{{if .Module.Main}}{{$d := .Dir}}{{range .GoFiles}}{{$d}}/{{.}}{{"\n"}}{{end}}{{range .SFiles}}{{$d}}/{{.}}{{"\n"}}{{end}}{{end}}{{end}}`},
		patterns...)...)
	for file := range strings.SplitSeq(sources, "\n") {
		if _, err := os.Stat(filepath.Clean(file)); err != nil {
			t.Fatal(err)
		}
	}
	out := goList(t, goarch, tags, append([]string{"-export", "-f", "{{.ImportPath}}\t{{.Export}}"}, patterns...)...)
	m := make(map[string]string)
	for line := range strings.SplitSeq(out, "\n") {
		pkg, file, ok := strings.Cut(line, "\t")
		if !ok || file == "" {
			t.Fatalf("go list gave no object for %q", line)
		}
		m[pkg] = file
	}
	return m
}

func shortName(fn string) string {
	return strings.TrimPrefix(fn, "github.com/pqkem/pqkem/")
}

// builds are the configurations checked: the amd64 build with its
// assembly, the purego build (the generic Go code that other platforms
// run), and arm64, whose divider is also variable time.
var builds = []struct{ goarch, tags string }{
	{"amd64", ""},
	{"amd64", "purego"},
	{"arm64", ""},
}

// TestNoDivisionOnSecrets is the static check: no function of a
// secret-handling package uses the divider, except the allowlisted ones.
func TestNoDivisionOnSecrets(t *testing.T) {
	tool := goTool(t)
	used := make(map[string]bool)
	for _, b := range builds {
		objs := exports(t, b.goarch, b.tags, secretPackages...)
		if len(objs) < len(secretPackages) {
			t.Fatalf("%s %s: only %d packages", b.goarch, b.tags, len(objs))
		}
		pkgs := slices.Sorted(func(yield func(string) bool) {
			for p := range objs {
				if !yield(p) {
					return
				}
			}
		})
		for _, pkg := range pkgs {
			divs, err := ObjdumpDivisions(tool, objs[pkg])
			if err != nil {
				t.Fatal(err)
			}
			for _, d := range divs {
				name := shortName(d.Function)
				if _, ok := allowlist[name]; ok {
					used[name] = true
					continue
				}
				t.Errorf("GOARCH=%s tags=%q: division in a secret-handling package: %v\n"+
					"\tIf it divides only public values, add %q to the allowlist with the reason; otherwise remove the division (KyberSlash).",
					b.goarch, b.tags, d, name)
			}
		}
		t.Logf("GOARCH=%s tags=%q: %d packages checked", b.goarch, b.tags, len(objs))
	}
	for name := range allowlist {
		if !used[name] {
			t.Logf("allowlist entry %q matched no division in any build; remove it if the code changed", name)
		}
	}
}

// TestCheckFindsDivision proves that the check can fail: the testdata
// package divleak divides a variable by a variable, and the check must
// find exactly its two dividing functions, in every build, and not the
// division by a constant.
func TestCheckFindsDivision(t *testing.T) {
	tool := goTool(t)
	for _, b := range builds {
		objs := exports(t, b.goarch, b.tags, "./testdata/divleak")
		if len(objs) != 1 {
			t.Fatalf("built %d packages, want 1", len(objs))
		}
		for _, obj := range objs {
			divs, err := ObjdumpDivisions(tool, obj)
			if err != nil {
				t.Fatal(err)
			}
			found := make(map[string]bool)
			for _, d := range divs {
				found[d.Function[strings.LastIndex(d.Function, ".")+1:]] = true
				t.Logf("GOARCH=%s tags=%q: found %v", b.goarch, b.tags, d)
			}
			if !found["Reduce"] || !found["Remainder"] || found["ByConstant"] || len(found) != 2 {
				t.Errorf("GOARCH=%s tags=%q: found divisions in %v, want exactly Reduce and Remainder", b.goarch, b.tags, found)
			}
		}
	}
}

func TestParseObjdump(t *testing.T) {
	listing := "TEXT example.com/p.f(SB) /src/p/p.go\n" +
		"  p.go:3\t\t0x10\t\t48f7f1\t\tDIVQ CX\t\t\n" +
		"  p.go:4\t\t0x13\t\t4801c8\t\tADDQ CX, AX\n" +
		"TEXT example.com/p.(*T).g(SB) /src/p/p.go\n" +
		"  p.go:9\t\t0x20\t\t9ac20c65\tSDIV R2, R3, R5\n" +
		"  p.go:10\t\t0x24\t\tf20f5ec1\tDIVSD X1, X0\n" +
		"  p.go:11\t\t0x28\t\t00\t\tMOVQ $0, DIVQ(SP)\n"
	got := ParseObjdump([]byte(listing))
	want := []Division{
		{"example.com/p.f", "p.go:3", "DIVQ CX"},
		{"example.com/p.(*T).g", "p.go:9", "SDIV R2, R3, R5"},
		{"example.com/p.(*T).g", "p.go:10", "DIVSD X1, X0"},
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("ParseObjdump = %v, want %v", got, want)
	}
}
