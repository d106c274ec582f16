package main

import (
	"flag"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/pqkem/pqkem/internal/cli"
)

// runReport runs pqkem-bench with args and -md FILE, which must succeed,
// and returns its standard output, the report it wrote and FILE.
func runReport(t *testing.T, args ...string) (stdout, md, file string) {
	t.Helper()
	file = filepath.Join(t.TempDir(), "report.md")
	args = append(args, "-md", file)
	code, stdout, stderr := pqkemBench(t, args...)
	wantCode(t, args, code, cli.ExitOK, stderr)
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	return stdout, string(data), file
}

// checkReport checks that a Markdown report gives the conditions of the
// run and the command line that regenerates it, then the results (want).
func checkReport(t *testing.T, md, command string, want ...string) {
	t.Helper()
	for _, w := range append([]string{
		"# ", "\n    go run -buildvcs=true ./cmd/" + command + "\n",
		"- CPU: ", "- System: " + runtime.GOOS + "/" + runtime.GOARCH, "- Go: " + runtime.Version(), "- pqkem: ",
	}, want...) {
		if !strings.Contains(md, w) {
			t.Errorf("the report does not say %q:\n%s", w, md)
		}
	}
}

func TestCommandLine(t *testing.T) {
	fs := flag.NewFlagSet("pqkem-bench x", flag.ContinueOnError)
	fs.String("s", "", "")
	fs.Bool("b", false, "")
	fs.Bool("c", true, "")
	fs.Int("n", 0, "")
	if err := fs.Parse([]string{"-s", "it's a file.md", "-b", "-c=false", "-n", "3"}); err != nil {
		t.Fatal(err)
	}
	if got, want := commandLine(fs), `pqkem-bench x -b -c=false -n 3 -s 'it'\''s a file.md'`; got != want {
		t.Errorf("commandLine = %s, want %s", got, want)
	}
}

func TestTable(t *testing.T) {
	var r report
	r.table([]string{"a", "b"}, [][]string{{"1", "x|y"}})
	if got, want := r.buf.String(), "| a | b |\n| --- | --- |\n| 1 | x\\|y |\n\n"; got != want {
		t.Errorf("table:\n%s\nwant\n%s", got, want)
	}
}
