package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/pqkem/pqkem/internal/cli"
)

var cmdPeers = &cli.Command{
	Name:    "peers",
	Summary: "run the C peers' harness several times and make its tables",
	Args:    "[-harness DIR] [-runs N] [-cpu LEVELS] [-md FILE]",
	Doc: `
Peers runs the side-by-side harness of the fast C implementations
(mlkem-native's AVX2 ML-KEM, PQCrypto-LWEKE's FrodoKEM) and the Go ones
(crypto/mlkem, gmsm, CIRCL) several times and makes one table of each
mode from all the runs. The harness is not part of this module: build it
first with ../shared/peers/bench/build.sh, which puts it in
/tmp/pqkem-peers/go, against the pqkem checkout it is given.

Each run takes each level of -cpu in turn (PQKEM_CPU, so that one build
measures the AVX-512 and the AVX2 paths) and runs the harness's three
modes: cbytes (ML-KEM beside mlkem-native, -rounds 101), kem (ML-KEM
beside the Go implementations, -rounds 41) and cfrodo (FrodoKEM beside
LWEKE, -rounds 41). Each harness run reports, per operation, the median
of its per-round ratios; each cell of the tables is the median of those
over the runs, and in brackets the lowest and highest. Pin it to one CPU
(taskset -c 1 pqkem-bench peers) on a quiet machine: the harness
processes inherit the pinning.

-md FILE writes the tables to FILE as a Markdown document with the
machine, the Go version, pqkem's commit and the command line, and the
commit of the checkout the harness was built against.`,
	Example: `
pqkem-bench peers -md docs/perf-peers.md
pqkem-bench peers -runs 1 -cpu avx2`,
	New: func() cli.Runner { return new(peersCmd) },
}

// peersCmd is one run of pqkem-bench peers.
type peersCmd struct {
	harness string
	runs    int
	cpus    string
	outputFlags
}

func (c *peersCmd) Flags(fs *flag.FlagSet) {
	fs.StringVar(&c.harness, "harness", "/tmp/pqkem-peers/go", "the harness's `DIR`, where build.sh put it")
	fs.IntVar(&c.runs, "runs", 9, "run each mode at each level `N` times")
	fs.StringVar(&c.cpus, "cpu", "avx512,avx2", "comma-separated `LEVELS` to run at (PQKEM_CPU values)")
	c.outputFlags.define(fs, false)
}

// A peersMode is one mode of the harness, run with its binary.
type peersMode struct {
	bin, mode string
	rounds    int
}

var peersModes = []peersMode{
	{"perfbench-c", "cbytes", 101},
	{"perfbench", "kem", 41},
	{"perfbench-c", "cfrodo", 41},
}

func (c *peersCmd) Run(out *cli.Output, args []string) error {
	if err := cli.NoArgs(args); err != nil {
		return err
	}
	if c.runs < 1 {
		return cli.Usagef("-runs must be at least 1, got %d", c.runs)
	}
	var cpus []string
	for l := range strings.SplitSeq(c.cpus, ",") {
		if l = strings.TrimSpace(l); l != "" {
			cpus = append(cpus, l)
		}
	}
	if len(cpus) == 0 {
		return cli.Usagef("-cpu names no level")
	}
	for _, m := range peersModes {
		if _, err := os.Stat(filepath.Join(c.harness, "bin", m.bin)); err != nil {
			return cli.WithHint(fmt.Errorf("no harness in %s: %w", c.harness, err),
				"build it with ../shared/peers/bench/build.sh, or give its directory with -harness")
		}
	}
	res := newPeerRuns(cpus)
	for run := 1; run <= c.runs; run++ {
		for _, cpu := range cpus {
			for _, m := range peersModes {
				fmt.Fprintf(out.Stderr, "run %d of %d, %s, %s\n", run, c.runs, cpu, m.mode)
				text, err := runHarness(c.harness, m, cpu)
				if err != nil {
					return err
				}
				r, err := parseHarness(text)
				if err != nil {
					return fmt.Errorf("%s -mode %s: %w", m.bin, m.mode, err)
				}
				res.add(m.mode, cpu, r)
			}
		}
	}
	tables := res.tables()
	for _, t := range tables {
		fmt.Fprintf(out.Stdout, "%s\n\n", t.title)
		printMarkdownTable(out.Stdout, t.header, t.rows)
		fmt.Fprintln(out.Stdout)
	}
	if c.md == "" {
		return nil
	}
	r := newReport("pqkem beside the C peers and the Go implementations", c.fs)
	r.para(fmt.Sprintf("Harness: %s (made by ../shared/peers/bench/build.sh), built against %s; "+
		"%d runs at each level (%s)%s.", c.harness, harnessSource(c.harness), c.runs, strings.Join(cpus, ", "), pinning()))
	r.para("Each harness run times the contenders in turn in one process and reports, " +
		"per operation, the median over its rounds of the per-round ratio; each cell is the " +
		"median of those over the runs, and in brackets the lowest and highest. A level is " +
		"the PQKEM_CPU the run had (the C and the other Go implementations are the same at " +
		"every level).")
	for _, t := range tables {
		r.para(t.title)
		r.table(t.header, t.rows)
	}
	return r.writeFile(c.md)
}

// runHarness runs one mode of the harness at one CPU level and returns its
// standard output.
func runHarness(dir string, m peersMode, cpu string) ([]byte, error) {
	cmd := exec.Command(filepath.Join(dir, "bin", m.bin), "-mode", m.mode, "-rounds", strconv.Itoa(m.rounds))
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "PQKEM_CPU="+cpu)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		tail := stderr.Bytes()
		if i := bytes.LastIndexByte(bytes.TrimRight(tail, "\n"), '\n'); i >= 0 {
			tail = tail[i+1:]
		}
		return nil, fmt.Errorf("%s -mode %s: %w: %s", m.bin, m.mode, err, bytes.TrimSpace(tail))
	}
	return stdout.Bytes(), nil
}

// harnessSource names the pqkem the harness in dir was built against: the
// directory its go.mod replaces the module with, and that checkout's
// commit where git knows it.
func harnessSource(dir string) string {
	mod, err := os.ReadFile(filepath.Join(dir, "go.mod"))
	if err != nil {
		return "an unknown pqkem"
	}
	var path string
	for line := range strings.SplitSeq(string(mod), "\n") {
		f := strings.Fields(line)
		if len(f) == 4 && f[0] == "replace" && f[1] == "github.com/pqkem/pqkem" && f[2] == "=>" {
			path = f[3]
		}
	}
	if path == "" {
		return "an unknown pqkem"
	}
	rev, err := exec.Command("git", "-C", path, "rev-parse", "--short=12", "HEAD").Output()
	if err != nil {
		return "the pqkem in " + path
	}
	s := fmt.Sprintf("the pqkem in %s (commit %s", path, bytes.TrimSpace(rev))
	if st, err := exec.Command("git", "-C", path, "status", "--porcelain", "--untracked-files=no").Output(); err == nil && len(st) > 0 {
		s += ", with changes not committed"
	}
	return s + ")"
}

// pinning says which CPUs the process may run on, where Linux tells:
// the harness inherits them.
func pinning() string {
	status, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return ""
	}
	for line := range strings.SplitSeq(string(status), "\n") {
		if v, ok := strings.CutPrefix(line, "Cpus_allowed_list:"); ok {
			return ", on CPUs " + strings.TrimSpace(v)
		}
	}
	return ""
}

// A harnessRun is what one run of one mode reported: the ratio of each
// implementation's time to the first one's in each group (an operation of
// a scheme), with the groups in their order.
type harnessRun struct {
	groups []string
	ratio  map[[2]string]float64 // {group, impl}
}

// parseHarness reads the harness's table: after a header line that starts
// with "group", lines of a group (words), an implementation, the median
// and 10th percentile times, and the ratio.
func parseHarness(text []byte) (*harnessRun, error) {
	r := &harnessRun{ratio: make(map[[2]string]float64)}
	inTable := false
	for line := range strings.SplitSeq(string(text), "\n") {
		f := strings.Fields(line)
		if len(f) > 0 && f[0] == "group" {
			inTable = true
			continue
		}
		if !inTable || len(f) < 5 {
			continue
		}
		n := len(f)
		ratio, err := strconv.ParseFloat(f[n-1], 64)
		if err != nil {
			return nil, fmt.Errorf("line %q: ratio: %w", line, err)
		}
		group, impl := strings.Join(f[:n-4], " "), f[n-4]
		if _, ok := r.ratio[[2]string{group, impl}]; ok {
			return nil, fmt.Errorf("%s %s reported twice", group, impl)
		}
		if !slices.Contains(r.groups, group) {
			r.groups = append(r.groups, group)
		}
		r.ratio[[2]string{group, impl}] = ratio
	}
	if len(r.groups) == 0 {
		return nil, errors.New("no results in its output")
	}
	return r, nil
}

// peerRuns gathers the runs of every mode at every level.
type peerRuns struct {
	cpus []string
	runs map[[2]string][]*harnessRun // {mode, cpu}
}

func newPeerRuns(cpus []string) *peerRuns {
	return &peerRuns{cpus: cpus, runs: make(map[[2]string][]*harnessRun)}
}

func (p *peerRuns) add(mode, cpu string, r *harnessRun) {
	k := [2]string{mode, cpu}
	p.runs[k] = append(p.runs[k], r)
}

// cell is the median of the runs' ratios for impl in group, with the
// lowest and highest in brackets, or "—" if no run reported it.
func (p *peerRuns) cell(mode, cpu, group, impl string) string {
	var v []float64
	for _, r := range p.runs[[2]string{mode, cpu}] {
		if x, ok := r.ratio[[2]string{group, impl}]; ok {
			v = append(v, x)
		}
	}
	if len(v) == 0 {
		return "—"
	}
	slices.Sort(v)
	m := v[len(v)/2]
	if len(v)%2 == 0 {
		m = (v[len(v)/2-1] + v[len(v)/2]) / 2
	}
	return fmt.Sprintf("%.2f (%.2f–%.2f)", m, v[0], v[len(v)-1])
}

// groups lists the groups mode reported, in the order of its first run.
func (p *peerRuns) groups(mode string) []string {
	var g []string
	for _, cpu := range p.cpus {
		for _, r := range p.runs[[2]string{mode, cpu}] {
			for _, x := range r.groups {
				if !slices.Contains(g, x) {
					g = append(g, x)
				}
			}
		}
	}
	return g
}

// A peersTable is one table of the report.
type peersTable struct {
	title  string
	header []string
	rows   [][]string
}

// opNames spells out the harness's operation names.
var opNames = strings.NewReplacer(" encaps", " encapsulate", " decaps", " decapsulate")

// tables makes the three tables: ML-KEM beside mlkem-native, ML-KEM
// beside the Go implementations, FrodoKEM beside LWEKE.
func (p *peerRuns) tables() []peersTable {
	var ts []peersTable

	// header is first, then a column of each name at each level.
	header := func(first string, names ...string) []string {
		h := []string{first}
		for _, n := range names {
			for _, cpu := range p.cpus {
				h = append(h, n+", "+cpu)
			}
		}
		return h
	}

	// pqkem's time over the C's, bytes in and with parsed keys.
	t := peersTable{
		title:  "ML-KEM against mlkem-native's AVX2 C (pqkem's time over the C's: below 1 is faster):",
		header: header("ML-KEM", "bytes in", "parsed keys"),
	}
	for _, g := range p.groups("cbytes") {
		row := []string{opNames.Replace(g)}
		for _, impl := range []string{"pqkem-bytes", "pqkem-parsed"} {
			for _, cpu := range p.cpus {
				row = append(row, p.cell("cbytes", cpu, g, impl))
			}
		}
		t.rows = append(t.rows, row)
	}
	ts = append(ts, t)

	// How many times faster pqkem is than each Go implementation.
	goImpls := []struct{ impl, name string }{{"std", "`crypto/mlkem`"}, {"gmsm", "gmsm"}, {"circl", "CIRCL"}}
	t = peersTable{
		title:  "ML-KEM with parsed keys: how many times faster pqkem is than each Go implementation (crypto/mlkem has no ML-KEM-512):",
		header: header("ML-KEM, parsed keys", goImpls[0].name, goImpls[1].name, goImpls[2].name),
	}
	for _, g := range p.groups("kem") {
		row := []string{opNames.Replace(g)}
		for _, im := range goImpls {
			for _, cpu := range p.cpus {
				row = append(row, p.cell("kem", cpu, g, im.impl))
			}
		}
		t.rows = append(t.rows, row)
	}
	ts = append(ts, t)

	// pqkem's time over LWEKE's; key generation has one shape.
	t = peersTable{
		title:  "FrodoKEM against PQCrypto-LWEKE (pqkem's time over the C's: the AES sets against its OpenSSL AES build, the SHAKE sets against its SHAKE128 build; key generation has one shape):",
		header: header("FrodoKEM", "bytes in", "parsed keys"),
	}
	for _, g := range p.groups("cfrodo") {
		row := []string{opNames.Replace(g)}
		keygen := strings.HasSuffix(g, " keygen")
		for _, impl := range []string{"pqkem-bytes", "pqkem-parsed"} {
			for _, cpu := range p.cpus {
				switch {
				case keygen && impl == "pqkem-bytes":
					row = append(row, p.cell("cfrodo", cpu, g, "pqkem"))
				case keygen:
					row = append(row, "—")
				default:
					row = append(row, p.cell("cfrodo", cpu, g, impl))
				}
			}
		}
		t.rows = append(t.rows, row)
	}
	return append(ts, t)
}

// printMarkdownTable prints a table as report.table writes it.
func printMarkdownTable(w io.Writer, header []string, rows [][]string) {
	var r report
	r.table(header, rows)
	w.Write(bytes.TrimSuffix(r.buf.Bytes(), []byte("\n")))
}
