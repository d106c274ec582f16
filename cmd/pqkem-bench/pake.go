package main

import (
	"flag"
	"fmt"
	"io"
	"runtime"
	"text/tabwriter"
	"time"

	"github.com/pqkem/pqkem/internal/cli"
	"github.com/pqkem/pqkem/internal/mlkemlevel"
	"github.com/pqkem/pqkem/pake"
	"github.com/pqkem/pqkem/pake/paketest"
)

var cmdPake = &cli.Command{
	Name:    "pake",
	Summary: "time the PAKE protocols and samplers, as Table 1 of the Tempo paper",
	Args:    "[-rounds N] [-sample DURATION] [-md FILE]",
	Doc: `
Pake times gen_a (the k x k matrix) and whole runs (Start, Respond and
both Finish steps) of NoIC and Tempo with the samplers A0, A1, B0 and C1
at every level, and plain ML-KEM (key generation, encapsulation and decapsulation)
beside them. The operations that the table compares take turns one call
at a time within each round: the four gen_a of a level together, and the
nine protocol runs of a level together, so that a slow stretch of the
machine falls on all of them alike. Each round gives every operation about
-sample of calls; the table gives medians (of single calls within a
round, then over the rounds) and ratios to A0, the shape of Table 1 of
the Tempo paper, then the ratios Tempo-C1 / NoIC-A0 and NoIC-A0 / ML-KEM
at each level. A progress line goes to standard error while it runs.

A0 is the variable-time FIPS 203 sampler: there for comparison only, it
must not be used with real passwords.

-md FILE also writes the tables to FILE as a Markdown document with the
machine, the Go version, pqkem's commit and the command line that
regenerates it.`,
	Example: `
pqkem-bench pake
pqkem-bench pake -rounds 15 -sample 50ms -md docs/pake-speed.md`,
	New: func() cli.Runner { return new(pakeCmd) },
}

// pakeCmd is one run of pqkem-bench pake.
type pakeCmd struct {
	roundsFlags
	outputFlags
}

func (c *pakeCmd) Flags(fs *flag.FlagSet) {
	c.roundsFlags.define(fs, 7, "how long to time each operation in each round")
	c.outputFlags.define(fs, false)
}

func (c *pakeCmd) Run(out *cli.Output, args []string) error {
	if err := cli.NoArgs(args); err != nil {
		return err
	}
	if err := c.roundsFlags.check(); err != nil {
		return err
	}
	rows := pakeBench(out.Stderr, c.rounds, c.sample)
	return c.write(out.Stdout, nil,
		func(w io.Writer) { printPake(w, rows, c.rounds) },
		"NoIC and Tempo: samplers and protocol runs",
		func(r *report) { mdPake(r, rows, c.rounds) })
}

// pakeLevels are the ML-KEM levels the PAKEs run at.
var pakeLevels = []int{512, 768, 1024}

// A pakeRow is one row of the table: one operation at one level, with
// each sampler (A0 A1 B0 C1), or only [0] for plain ML-KEM.
type pakeRow struct {
	level  int
	what   string
	ops    [4]func()
	times  [4][]float64 // ns, one a round
	median [4]float64   // ns; 0 where the row has no op
}

func (rw *pakeRow) sampled() bool { return rw.ops[1] != nil }

// pakeBench times what Table 1 of the Tempo paper times: gen_a (the k x k
// matrix with each sampler) and whole protocol runs, NoIC and Tempo, with
// A0, A1, B0 and C1 at every level, plus plain ML-KEM (KeyGen + Encaps +
// Decaps). The operations that the table compares run in turn, one call
// each (timeInterleaved): the four gen_a of a level together, and the
// nine protocol runs of a level together, so that a slow stretch of the
// machine (another tenant, a garbage collection) falls on all of them
// alike instead of on whichever ran then. Each round gives every
// operation about sample of calls; the rows hold medians (of single
// calls within a round, then over the rounds). It writes a progress line
// to progress.
func pakeBench(progress io.Writer, rounds int, sample time.Duration) []*pakeRow {
	var rows []*pakeRow
	pw, sid := make([]byte, 32), make([]byte, 32)
	for _, level := range pakeLevels {
		k := level / 256
		ga := &pakeRow{level: level, what: "gen_a"}
		no := &pakeRow{level: level, what: "NoIC init+resp+end"}
		te := &pakeRow{level: level, what: "Tempo init+resp+end"}
		for i, smp := range pakeSamplers {
			var a [16][256]uint16
			var rho [32]byte
			ga.ops[i] = func() { rho[0]++; smp.SampleMatrix(&a, &rho, k) }
			n, _ := paketest.NewNoIC(level, smp)
			t, _ := paketest.NewTempo(level, smp)
			no.ops[i] = pakeRun(n, pw, sid)
			te.ops[i] = pakeRun(t, pw, sid)
		}
		ml := &pakeRow{level: level, what: "ML-KEM kg+enc+dec"}
		ml.ops[0] = pakeMLKEMRun(level)
		rows = append(rows, ga, no, te, ml)
	}
	// The groups that run interleaved: per level, gen_a's four samplers,
	// and the protocol rows (NoIC, Tempo, ML-KEM) together.
	type slot struct {
		rw *pakeRow
		i  int
	}
	var groups [][]slot
	for l := 0; l < len(rows); l += 4 {
		ga := []slot{}
		for i := range rows[l].ops {
			ga = append(ga, slot{rows[l], i})
		}
		proto := []slot{}
		for _, rw := range rows[l+1 : l+4] {
			for i, op := range rw.ops {
				if op != nil {
					proto = append(proto, slot{rw, i})
				}
			}
		}
		groups = append(groups, ga, proto)
	}
	for r := range rounds {
		fmt.Fprintf(progress, "\rpqkem-bench pake: round %d of %d", r+1, rounds)
		for _, g := range groups {
			ops := make([]func(), len(g))
			for j, sl := range g {
				ops[j] = sl.rw.ops[sl.i]
			}
			for j, t := range timeInterleaved(ops, sample) {
				g[j].rw.times[g[j].i] = append(g[j].rw.times[g[j].i], t)
			}
		}
	}
	fmt.Fprintln(progress)
	for _, rw := range rows {
		for i := range rw.median {
			if rw.times[i] != nil {
				rw.median[i] = median(rw.times[i])
			}
		}
	}
	return rows
}

// cells are the cells of a row after level and what: the medians in
// µs and the ratios to A0 (blank for plain ML-KEM's samplers).
func (rw *pakeRow) cells() []string {
	m := rw.median
	if !rw.sampled() {
		return []string{fmt.Sprintf("%.1f", m[0]/1e3), "", "", "", "", "", ""}
	}
	return []string{fmt.Sprintf("%.1f", m[0]/1e3), fmt.Sprintf("%.1f", m[1]/1e3), fmt.Sprintf("%.1f", m[2]/1e3), fmt.Sprintf("%.1f", m[3]/1e3),
		fmt.Sprintf("%.2f", m[1]/m[0]), fmt.Sprintf("%.2f", m[2]/m[0]), fmt.Sprintf("%.2f", m[3]/m[0])}
}

var pakeHeader = []string{"level", "what", "A0 µs", "A1 µs", "B0 µs", "C1 µs", "A1/A0", "B0/A0", "C1/A0"}

// pakeRatios are the summary ratios at each level: Tempo-C1 / NoIC-A0 and
// NoIC-A0 / ML-KEM.
func pakeRatios(rows []*pakeRow) (tempoC1NoICA0, noICA0MLKEM []float64) {
	for l := 0; l < len(rows); l += 4 {
		no, te, ml := rows[l+1], rows[l+2], rows[l+3]
		tempoC1NoICA0 = append(tempoC1NoICA0, te.median[3]/no.median[0])
		noICA0MLKEM = append(noICA0MLKEM, no.median[0]/ml.median[0])
	}
	return
}

func printPake(w io.Writer, rows []*pakeRow, rounds int) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	for _, line := range append([][]string{pakeHeader}, pakeLines(rows)...) {
		for _, c := range line {
			fmt.Fprintf(tw, "%s\t", c)
		}
		fmt.Fprintln(tw)
	}
	tw.Flush()
	tc, nm := pakeRatios(rows)
	for _, r := range []struct {
		what string
		x    []float64
	}{{"Tempo-C1 / NoIC-A0:", tc}, {"NoIC-A0 / ML-KEM:  ", nm}} {
		fmt.Fprintf(w, "\n%s", r.what)
		for i, level := range pakeLevels {
			fmt.Fprintf(w, "  %d: %.2f", level, r.x[i])
		}
	}
	fmt.Fprintf(w, "\nMedians of %d rounds on %s/%s, GOMAXPROCS %d. A0 is variable time: for comparison only.\n",
		rounds, runtime.GOOS, runtime.GOARCH, runtime.GOMAXPROCS(0))
}

func pakeLines(rows []*pakeRow) [][]string {
	var lines [][]string
	for _, rw := range rows {
		lines = append(lines, append([]string{fmt.Sprint(rw.level), rw.what}, rw.cells()...))
	}
	return lines
}

func mdPake(rep *report, rows []*pakeRow, rounds int) {
	rep.para(fmt.Sprintf("Medians of %d rounds; the operations of a level that the table compares take turns one call at a time. A0 is variable time: for comparison only.", rounds))
	rep.table(pakeHeader, pakeLines(rows))
	tc, nm := pakeRatios(rows)
	var ratios [][]string
	for i, level := range pakeLevels {
		ratios = append(ratios, []string{fmt.Sprint(level), fmt.Sprintf("%.2f", tc[i]), fmt.Sprintf("%.2f", nm[i])})
	}
	rep.table([]string{"level", "Tempo-C1 / NoIC-A0", "NoIC-A0 / ML-KEM"}, ratios)
}

// pakeSamplers are the samplers the bench compares: the variable-time A0
// first, the reference of the ratios.
var pakeSamplers = append([]pake.Sampler{paketest.A0VariableTime()}, pake.Samplers()...)

// pakeRun returns a whole run of s: Start, Respond, and both Finish
// steps (the responder's checks the initiator's key confirmation).
func pakeRun(s *pake.Scheme, pw, sid []byte) func() {
	return func() {
		st, msg1, err := s.Start(pw, sid)
		if err != nil {
			panic(err)
		}
		r, msg2, err := s.Respond(pw, sid, msg1)
		if err != nil {
			panic(err)
		}
		_, msg3, err := st.Finish(msg2)
		if err != nil {
			panic(err)
		}
		if _, err := r.Finish(msg3); err != nil {
			panic(err)
		}
	}
}

// pakeMLKEMRun returns a whole ML-KEM exchange at the level (512, 768 or
// 1024): key generation, parsing the encapsulation key, encapsulation and
// decapsulation.
func pakeMLKEMRun(level int) func() {
	l := mlkemlevel.ByName(fmt.Sprintf("ML-KEM-%d", level))
	return func() {
		dk := l.GenerateKey()
		ek, _ := l.NewEncapsulationKey(dk.EncapsulationKey().Bytes())
		_, ct := ek.Encapsulate()
		dk.Decapsulate(ct)
	}
}

// timeInterleaved calls the ops in turn, one call each per cycle and each
// cycle starting one op further on (so that no op always follows the
// same one), until about sample per op has passed and every op ran at
// least three times. It returns the median time of one call of each op,
// in nanoseconds. On a shared machine the median of single calls shrugs
// off the calls that another process interrupted, which the mean of a
// batch does not, and the interleaving puts every op through the same
// stretches of machine noise.
func timeInterleaved(ops []func(), sample time.Duration) []float64 {
	ts := make([][]float64, len(ops))
	budget := sample * time.Duration(len(ops))
	start := time.Now()
	for c := 0; ; c++ {
		for j := range ops {
			i := (c + j) % len(ops)
			t0 := time.Now()
			ops[i]()
			ts[i] = append(ts[i], float64(time.Since(t0).Nanoseconds()))
		}
		if time.Since(start) >= budget && c >= 2 {
			break
		}
	}
	m := make([]float64, len(ops))
	for i := range ts {
		m[i] = median(ts[i])
	}
	return m
}
