package main

import (
	"crypto"
	stdmlkem "crypto/mlkem"
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	circlkem "github.com/cloudflare/circl/kem"
	"github.com/cloudflare/circl/kem/frodo/frodo640shake"
	"github.com/cloudflare/circl/kem/schemes"

	"github.com/pqkem/pqkem/internal/cli"
	"github.com/pqkem/pqkem/internal/cpuid"
	"github.com/pqkem/pqkem/internal/mlkemlevel"
	"github.com/pqkem/pqkem/kem"
)

var cmdKEM = &cli.Command{
	Name:    "kem",
	Summary: "time key generation, encapsulation and decapsulation beside other implementations",
	Args:    "[-alg NAMES] [-rounds N] [-sample DURATION] [-json] [-md FILE]",
	Doc: `
Kem measures key generation (from a seed), encapsulation (to a parsed
key) and decapsulation (with a parsed key) for each scheme, with every
implementation it has for it: pqkem on its default path (AVX2 assembly
where the CPU has it) and on its generic Go path, the standard library's
crypto/mlkem (ML-KEM-768 and ML-KEM-1024) and Cloudflare's CIRCL (ML-KEM
at every level).

The contenders run in alternating rounds in this one process: in each
round every (scheme, operation, implementation) is timed for about
-sample, in ten slices that take turns with the other implementations of
the same scheme and operation, so that machine noise falls on all of them
alike. The table gives the median time per operation over the rounds, and
for every other implementation how many times slower it is than pqkem's
default path (2.00x: pqkem takes half the time). A progress line goes to
standard error while it runs.

Every scheme is timed through the kem registry; -alg all takes every
scheme pqkem has. Other implementations are shown where there are any: for
FrodoKEM, CIRCL's frodo640shake beside eFrodoKEM-640-SHAKE (the same
scheme). For the Frodo paper's key exchange (Frodo-CCS2016-Recommended,
-Paranoid), key generation is Alice's first step (Alice0), encapsulation
Bob's step and decapsulation Alice's second step (Alice1); its keys come
only from fresh randomness, so key generation is timed with it, and serve
one decapsulation, so each timed decapsulation takes a fresh key and a
ciphertext for it, made before its batch, untimed.

-md FILE also writes the table to FILE as a Markdown document with the
machine, the Go version, pqkem's commit and the command line that
regenerates it.`,
	Example: `
pqkem-bench kem
pqkem-bench kem -alg ML-KEM-768 -rounds 21
pqkem-bench kem -json > bench.json
pqkem-bench kem -md docs/kem-speed.md`,
	New: func() cli.Runner { return new(kemCmd) },
}

// kemCmd is one run of pqkem-bench kem.
type kemCmd struct {
	algs string
	roundsFlags
	outputFlags
}

func (c *kemCmd) Flags(fs *flag.FlagSet) {
	fs.StringVar(&c.algs, "alg", "ML-KEM-512,ML-KEM-768,ML-KEM-1024", "comma-separated scheme `NAMES` to measure, or \"all\"")
	c.roundsFlags.define(fs, 11, "how long to time one operation of one implementation in each round")
	c.outputFlags.define(fs, true)
}

func (c *kemCmd) Run(out *cli.Output, args []string) error {
	if err := cli.NoArgs(args); err != nil {
		return err
	}
	if err := c.roundsFlags.check(); err != nil {
		return err
	}
	var schemes []kem.Scheme
	if c.algs == "all" {
		schemes = kem.All()
	} else {
		for name := range strings.SplitSeq(c.algs, ",") {
			s, err := kem.ByName(strings.TrimSpace(name))
			if err != nil {
				return cli.Usage(err)
			}
			schemes = append(schemes, s)
		}
	}
	results := bench(out.Stderr, schemes, c.rounds, c.sample)
	return c.write(out.Stdout, results,
		func(w io.Writer) { printBench(w, results, c.rounds) },
		"KEMs beside other implementations",
		func(r *report) { mdBench(r, results, c.rounds) })
}

// A benchOp is one operation ready to be timed: its inputs are prepared,
// so each call does exactly the work being measured.
type benchOp func()

// contender is one implementation of one scheme, with its three operations.
type contender struct {
	impl                 string
	generic              bool // run with the generic Go path forced
	keygen, encap, decap benchOp
	// prepareDecap, if not nil, readies n calls of decap, untimed, before
	// each timed batch: a single-use scheme's key serves one decapsulation.
	prepareDecap func(n int)
}

var benchOps = []string{"keygen", "encapsulate", "decapsulate"}

func (c *contender) op(name string) benchOp {
	switch name {
	case "keygen":
		return c.keygen
	case "encapsulate":
		return c.encap
	default:
		return c.decap
	}
}

// benchSeed is the fixed key seed the contenders derive their keys from;
// the times do not depend on it.
func benchSeed(n int) []byte {
	seed := make([]byte, n)
	for i := range seed {
		seed[i] = byte(i)
	}
	return seed
}

// pqkemContender times s through the kem registry. For the CCS 2016 Frodo
// key exchange, keygen is Alice0, encapsulate Bob and decapsulate Alice1.
func pqkemContender(s kem.Scheme, impl string, generic bool) contender {
	if kem.SingleUse(s) {
		return singleUseContender(s, impl, generic)
	}
	seed := benchSeed(s.DecapsulationKeySize())
	dk, err := s.NewDecapsulationKey(seed)
	if err != nil {
		panic(fmt.Sprintf("bench: %s: NewDecapsulationKey: %v", s.Name(), err)) // the scheme is broken
	}
	ek := dk.Encapsulator()
	_, c := ek.Encapsulate()
	return contender{
		impl:    impl,
		generic: generic,
		keygen:  func() { s.NewDecapsulationKey(seed) },
		encap:   func() { ek.Encapsulate() },
		decap:   func() { dk.Decapsulate(c) },
	}
}

// singleUseContender is pqkemContender for a single-use scheme, whose keys
// come only from GenerateKey (NewDecapsulationKey refuses every input) and
// serve one decapsulation: keygen is GenerateKey, and each timed
// decapsulation takes a fresh key from GenerateKey and a ciphertext for
// it, made before the batch, untimed.
func singleUseContender(s kem.Scheme, impl string, generic bool) contender {
	newKey := func() kem.DecapsulationKey {
		dk, err := s.GenerateKey()
		if err != nil {
			panic(fmt.Sprintf("bench: %s: GenerateKey: %v", s.Name(), err)) // the scheme is broken
		}
		return dk
	}
	ek := newKey().Encapsulator()
	var keys []kem.DecapsulationKey
	var cts [][]byte
	next := 0
	return contender{
		impl:    impl,
		generic: generic,
		keygen:  func() { s.GenerateKey() },
		encap:   func() { ek.Encapsulate() },
		prepareDecap: func(n int) {
			keys, cts, next = keys[:0], cts[:0], 0
			for range n {
				dk := newKey()
				_, c := dk.Encapsulator().Encapsulate()
				keys, cts = append(keys, dk), append(cts, c)
			}
		},
		decap: func() {
			keys[next].Decapsulate(cts[next])
			next++
		},
	}
}

// stdContender times a crypto/mlkem level.
func stdContender[D interface {
	crypto.Decapsulator
}](newKey func([]byte) (D, error)) contender {
	seed := benchSeed(64)
	dk, _ := newKey(seed)
	ek := dk.Encapsulator()
	_, c := ek.Encapsulate()
	return contender{
		impl:   "crypto/mlkem",
		keygen: func() { newKey(seed) },
		encap:  func() { ek.Encapsulate() },
		decap:  func() { dk.Decapsulate(c) },
	}
}

// circlContender times a CIRCL scheme.
func circlContender(s circlkem.Scheme) contender {
	seed := benchSeed(s.SeedSize())
	pk, sk := s.DeriveKeyPair(seed)
	c, _, _ := s.Encapsulate(pk)
	return contender{
		impl:   "circl",
		keygen: func() { s.DeriveKeyPair(seed) },
		encap:  func() { s.Encapsulate(pk) },
		decap:  func() { s.Decapsulate(sk, c) },
	}
}

func contenders(s kem.Scheme) []contender {
	if !cpuid.HasAVX2() {
		return append([]contender{pqkemContender(s, "pqkem", false)}, othersFor(s)...)
	}
	cs := []contender{pqkemContender(s, "pqkem-avx2", false)}
	if mlkemlevel.ByName(s.Name()) != nil {
		// ML-KEM's generic path is the readable reference; show it beside
		// the others.
		cs = append(cs, pqkemContender(s, "pqkem-generic", true))
	}
	return append(cs, othersFor(s)...)
}

// othersFor returns the implementations other than pqkem's of s: CIRCL at
// every ML-KEM level, crypto/mlkem at the two levels it has, and CIRCL's
// FrodoKEM, the NIST round 3 one, beside eFrodoKEM-640-SHAKE, which equals
// it.
func othersFor(s kem.Scheme) []contender {
	if l := mlkemlevel.ByName(s.Name()); l != nil {
		var cs []contender
		switch l {
		case mlkemlevel.MLKEM768():
			cs = append(cs, stdContender(stdmlkem.NewDecapsulationKey768))
		case mlkemlevel.MLKEM1024():
			cs = append(cs, stdContender(stdmlkem.NewDecapsulationKey1024))
		}
		return append(cs, circlContender(schemes.ByName(l.Name())))
	}
	if s.Name() == "eFrodoKEM-640-SHAKE" {
		return []contender{circlContender(frodo640shake.Scheme())}
	}
	return nil
}

// benchResult is one cell of the table.
type benchResult struct {
	Scheme    string    `json:"scheme"`
	Operation string    `json:"operation"`
	Impl      string    `json:"impl"`
	MedianNs  float64   `json:"median_ns"`
	SamplesNs []float64 `json:"samples_ns"`
	// Ratio is this implementation's median over pqkem's default path's
	// median for the same scheme and operation (1 for pqkem itself).
	Ratio float64 `json:"ratio_to_pqkem"`
}

// timeOp times op for about d and returns the time per call in ns. iters
// is the number of calls that took about d last time; it is updated.
// prepare, if not nil, readies each batch of calls, untimed.
func timeOp(op benchOp, prepare func(int), generic bool, d time.Duration, iters *int) float64 {
	defer cpuid.ForceGeneric(generic)()
	if prepare == nil {
		prepare = func(int) {}
	}
	if *iters == 0 {
		// Calibrate: double until one batch takes a tenth of d.
		n := 1
		for {
			prepare(n)
			start := time.Now()
			for range n {
				op()
			}
			if el := time.Since(start); el >= d/10 || n >= 1<<20 {
				*iters = max(1, int(float64(n)*float64(d)/float64(el+1)))
				break
			}
			n *= 2
		}
	}
	prepare(*iters)
	start := time.Now()
	for range *iters {
		op()
	}
	return float64(time.Since(start).Nanoseconds()) / float64(*iters)
}

// bench runs the rounds and returns the results in table order. It writes
// a progress line to progress.
func bench(progress io.Writer, schemes []kem.Scheme, rounds int, sample time.Duration) []benchResult {
	type cell struct {
		res   *benchResult
		op    benchOp
		prep  func(int)
		gen   bool
		iters int
	}
	var cells []*cell
	var results []benchResult
	for _, s := range schemes {
		cs := contenders(s)
		for _, opName := range benchOps {
			for i := range cs {
				results = append(results, benchResult{Scheme: s.Name(), Operation: opName, Impl: cs[i].impl})
				c := &cell{op: cs[i].op(opName), gen: cs[i].generic}
				if opName == "decapsulate" {
					c.prep = cs[i].prepareDecap
				}
				cells = append(cells, c)
			}
		}
	}
	for i := range cells {
		cells[i].res = &results[i]
	}
	// The contenders of one scheme and operation (consecutive cells) take
	// turns in slices of a tenth of sample, each slice starting one
	// contender further on, so that a slow stretch of the machine falls on
	// all of them alike; a round's figure for a cell is the mean of its
	// slices.
	const slices = 10
	for r := range rounds {
		fmt.Fprintf(progress, "\rpqkem-bench kem: round %d of %d (%d measurements each)...", r+1, rounds, len(cells))
		for lo := 0; lo < len(cells); {
			hi := lo + 1
			for hi < len(cells) && results[hi].Scheme == results[lo].Scheme && results[hi].Operation == results[lo].Operation {
				hi++
			}
			group := cells[lo:hi]
			sums := make([]float64, len(group))
			for sl := range slices {
				for j := range group {
					i := (sl + j) % len(group)
					c := group[i]
					sums[i] += timeOp(c.op, c.prep, c.gen, sample/slices, &c.iters)
				}
			}
			for i, c := range group {
				c.res.SamplesNs = append(c.res.SamplesNs, sums[i]/slices)
			}
			lo = hi
		}
	}
	fmt.Fprintf(progress, "\rpqkem-bench kem: %d rounds done.%30s\n", rounds, "")

	base := make(map[[2]string]float64)
	for i := range results {
		r := &results[i]
		r.MedianNs = median(r.SamplesNs)
		if strings.HasPrefix(r.Impl, "pqkem") && !strings.HasSuffix(r.Impl, "-generic") {
			base[[2]string{r.Scheme, r.Operation}] = r.MedianNs
		}
	}
	for i := range results {
		r := &results[i]
		r.Ratio = r.MedianNs / base[[2]string{r.Scheme, r.Operation}]
	}
	return results
}

// median is the median of xs, which it leaves as it is.
func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	return medianSorted(s)
}

// medianSorted is the median of s, which is sorted.
func medianSorted(s []float64) float64 {
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// printBench prints one line per scheme and operation, with a column per
// implementation: its median and its ratio to pqkem's default path.
func printBench(w io.Writer, results []benchResult, rounds int) {
	fmt.Fprintf(w, "Median time per operation over %d alternating rounds; (N.NNx) = that many times pqkem's time.\n\n", rounds)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	var line []string
	key := ""
	flush := func() {
		if len(line) > 0 {
			fmt.Fprintln(tw, strings.Join(line, "\t")+"\t")
		}
	}
	for _, r := range results {
		k := r.Scheme + " " + r.Operation
		if k != key {
			flush()
			key = k
			line = []string{r.Scheme, r.Operation}
		}
		line = append(line, r.Impl+" "+r.cell())
	}
	flush()
	tw.Flush()
}

// cell is the median and, but for pqkem's default path, the ratio to it.
func (r *benchResult) cell() string {
	s := formatNs(r.MedianNs)
	if !strings.HasPrefix(r.Impl, "pqkem") || strings.HasSuffix(r.Impl, "-generic") {
		s += fmt.Sprintf(" (%.2fx)", r.Ratio)
	}
	return s
}

// mdBench adds the results to rep as one table: a row per scheme and
// operation, a column per implementation.
func mdBench(rep *report, results []benchResult, rounds int) {
	rep.para(fmt.Sprintf("Median time per operation over %d alternating rounds; (N.NNx) = that many times the time of pqkem's default path (%s).", rounds, results[0].Impl))
	var impls []string
	for _, r := range results {
		if !slices.Contains(impls, r.Impl) {
			impls = append(impls, r.Impl)
		}
	}
	var rows [][]string
	for _, r := range results {
		if n := len(rows); n == 0 || rows[n-1][0] != r.Scheme || rows[n-1][1] != r.Operation {
			rows = append(rows, make([]string, 2+len(impls)))
			rows[n][0], rows[n][1] = r.Scheme, r.Operation
		}
		rows[len(rows)-1][2+slices.Index(impls, r.Impl)] = r.cell()
	}
	rep.table(append([]string{"scheme", "operation"}, impls...), rows)
}

func formatNs(ns float64) string {
	switch {
	case ns >= 1e6:
		return fmt.Sprintf("%.2fms", ns/1e6)
	case ns >= 1e3:
		return fmt.Sprintf("%.1fµs", ns/1e3)
	default:
		return fmt.Sprintf("%.0fns", ns)
	}
}
