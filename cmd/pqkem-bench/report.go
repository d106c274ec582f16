package main

import (
	"bufio"
	"bytes"
	"flag"
	"fmt"
	"os"
	"regexp"
	"runtime"
	"runtime/debug"
	"strings"

	"github.com/pqkem/pqkem/internal/cpuid"
)

// A report is a Markdown document of results: a title, the conditions of
// the run and the command line that regenerates it, then the results.
type report struct {
	buf bytes.Buffer
}

// newReport starts a report of the run of the command whose flags, parsed,
// are fs (named "pqkem-bench CMD", as package cli names them).
func newReport(title string, fs *flag.FlagSet) *report {
	r := new(report)
	fmt.Fprintf(&r.buf, "# %s\n\n", title)
	fmt.Fprintf(&r.buf, "Written by `%s`. To regenerate it, run from the module's root\n\n", fs.Name())
	fmt.Fprintf(&r.buf, "    go run -buildvcs=true ./cmd/%s\n\n", commandLine(fs))
	fmt.Fprintf(&r.buf, "(-buildvcs=true records the commit below in the binary).\n\n")
	fmt.Fprintf(&r.buf, "- CPU: %s, %d logical cores, GOMAXPROCS %d\n", cpuModel(), runtime.NumCPU(), runtime.GOMAXPROCS(0))
	capped := ""
	if v := os.Getenv("PQKEM_CPU"); v != "" {
		capped = fmt.Sprintf(" (PQKEM_CPU=%s)", v)
	}
	fmt.Fprintf(&r.buf, "- System: %s/%s, AVX2 %s, AVX-512 %s%s\n", runtime.GOOS, runtime.GOARCH,
		yesNo(cpuid.HasAVX2()), yesNo(cpuid.HasAVX512()), capped)
	fmt.Fprintf(&r.buf, "- Go: %s\n", runtime.Version())
	fmt.Fprintf(&r.buf, "- pqkem: %s\n\n", commit())
	return r
}

// para adds a paragraph.
func (r *report) para(text string) {
	fmt.Fprintf(&r.buf, "%s\n\n", text)
}

// table adds a table. The cells may not hold a newline; a | is escaped.
func (r *report) table(header []string, rows [][]string) {
	line := func(cells []string) {
		for _, c := range cells {
			fmt.Fprintf(&r.buf, "| %s ", strings.ReplaceAll(c, "|", `\|`))
		}
		fmt.Fprintf(&r.buf, "|\n")
	}
	line(header)
	sep := make([]string, len(header))
	for i := range sep {
		sep[i] = "---"
	}
	line(sep)
	for _, row := range rows {
		line(row)
	}
	fmt.Fprintf(&r.buf, "\n")
}

// writeFile writes the report to the file name.
func (r *report) writeFile(name string) error {
	if err := os.WriteFile(name, bytes.TrimSuffix(r.buf.Bytes(), []byte("\n")), 0o644); err != nil {
		return fmt.Errorf("-md: %w", err)
	}
	return nil
}

// commandLine is the command whose flags are fs, as fs.Name() and the
// flags set on the command line (in the flag package's order), quoted for
// a POSIX shell where needed.
func commandLine(fs *flag.FlagSet) string {
	words := []string{fs.Name()}
	fs.Visit(func(f *flag.Flag) {
		if b, ok := f.Value.(interface{ IsBoolFlag() bool }); ok && b.IsBoolFlag() {
			if f.Value.String() == "true" {
				words = append(words, "-"+f.Name)
			} else {
				words = append(words, "-"+f.Name+"="+f.Value.String())
			}
			return
		}
		words = append(words, "-"+f.Name, shellQuote(f.Value.String()))
	})
	return strings.Join(words, " ")
}

var shellSafe = regexp.MustCompile(`^[A-Za-z0-9_./:,=+@%-]+$`)

func shellQuote(s string) string {
	if shellSafe.MatchString(s) {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// cpuModel is the CPU's model name from /proc/cpuinfo, or "unknown CPU".
func cpuModel() string {
	f, err := os.Open("/proc/cpuinfo")
	if err != nil {
		return "unknown CPU"
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		key, value, ok := strings.Cut(sc.Text(), ":")
		if ok && strings.TrimSpace(key) == "model name" {
			return strings.Join(strings.Fields(value), " ")
		}
	}
	return "unknown CPU"
}

// commit is the module's commit from the build information, or
// "unknown" when the binary was built without it.
func commit() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "unknown"
	}
	var rev, modified string
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			modified = s.Value
		}
	}
	switch {
	case rev == "":
		return "unknown"
	case modified == "true":
		return "commit " + rev + ", with changes not committed"
	}
	return "commit " + rev
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}
