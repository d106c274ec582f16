package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/pqkem/pqkem/internal/cli"
	"github.com/pqkem/pqkem/kem"
)

var cmdPages = &cli.Command{
	Name:    "pages",
	Summary: "serve web pages over PQNoise and crypto/tls with net/http, as Table 5 of the Frodo paper",
	Args:    "[-alg NAMES] [-pages SIZES] [-clients N] [-rounds N] [-sample DURATION] [-bulk MIB] [-handshakes N] [-cpuprofile FILE] [-json] [-md FILE]",
	Doc: `
Pages reproduces on loopback the experiment of Table 5 of the Frodo paper
(Bos et al., "Frodo: Take off the ring!", ACM CCS 2016): a web server
serving pages of 1 B, 1 KiB, 10 KiB and 100 KiB, one handshake per
connection, and how many connections a second it serves with each key
exchange. Every contender serves the same pages with Go's net/http over
its own listener on 127.0.0.1, and is fetched with net/http's client with
keep-alives off, so that every request is a new TCP connection and one
full handshake:

  TLS-X25519, TLS-X25519MLKEM768
      crypto/tls, TLS 1.3 with that one key exchange group on both sides,
      an ECDSA P-256 self-signed certificate made at start (the client
      verifies it), session tickets off.
  a kem scheme name, such as ML-KEM-768
      PQNoise pqNK over that scheme (package noise, Noise_pqNK_KEM_AESGCM_SHA256:
      the server's static key, which the client knows, as it knows a pinned
      certificate), served with net/http over noise.NewListener and fetched
      through a Transport whose DialContext is noise.Dialer's. The server's
      static key and the client's copy of it are precomputed once, by
      noise.NewListener and at the first dial, as package noise does for
      every Config (a FrodoKEM key keeps its matrix A). A scheme that is only safe for ephemeral keys
      runs pqNN instead, which authenticates neither side.
  STATIC+EPHEMERALe, such as FrodoKEM-640-AES+ML-KEM-768e
      pqNK with a server key of the scheme STATIC and ephemeral keys of
      EPHEMERAL (Noise_pqNK_MLKEM768+FrodoKEM-640-AES_AESGCM_SHA256).

Without -alg the contenders are both TLS ones and pqNK with
DHKEM-X25519-HKDF-SHA256 (the classical baseline), ML-KEM-512, ML-KEM-768,
ML-KEM-1024, X-Wing, X25519MLKEM768, the six FrodoKEM sets, and the
three FrodoKEM AES sets with ML-KEM-768 ephemeral keys, and, if the
registry has it, pqNN with Frodo-CCS2016-Recommended (the paper's own key
exchange, which is only for ephemeral keys).

Client and server run in this one process and share its CPUs, so a
connection's figure is the work of both sides. In each of -rounds rounds,
for each page size, every contender serves for -sample with -clients
clients fetching at once (loaded), then every contender again for -sample
with one client (unloaded), the contenders taking turns in two passes of
half of -sample each, the second in the opposite order, the first
contender changing from round to round. The tables give the median over the rounds
of connections per second (loaded) and its ratio to TLS-X25519 and to
TLS-X25519MLKEM768 in the same run; the median over the rounds of the
process's CPU time per connection (user and system, both sides: on a
machine that other work shares, it varies less than the rate); and the
median and 99th percentile of the time of one request (connect, handshake,
request, whole page) over all the requests of the rounds, loaded and
unloaded.

Apart from the timed runs, -handshakes handshakes of each contender run one
after another in memory (net.Pipe), after one that is not counted (it
precomputes the static keys), both sides in this process, for the
bytes of one handshake each way on the wire (framing and record headers
included, TCP's not) and the heap that both sides allocate per handshake
(runtime.MemStats). With -bulk MIB, the bulk transfer sends MIB MiB over
one connection, after the handshake, from server to client, pqNK ML-KEM-768
(AESGCM, SHA256) against TLS-X25519MLKEM768, taking turns, three rounds for
each of -rounds: the median throughput, its ratio, and the CPU time of both
sides per MiB. A progress line goes to standard error while it runs; the
defaults take about 8 minutes.

-md FILE also writes the tables to FILE as a Markdown document with the
machine, the Go version, pqkem's commit and the command line that
regenerates it.`,
	Example: `
pqkem-bench pages
pqkem-bench pages -alg TLS-X25519,TLS-X25519MLKEM768,ML-KEM-768 -rounds 3 -sample 200ms -bulk 10
pqkem-bench pages -md docs/perf-served.md`,
	New: func() cli.Runner { return new(pagesCmd) },
}

// pagesCmd is one run of pqkem-bench pages.
type pagesCmd struct {
	algs       string
	pages      string
	clients    int
	bulkMiB    int
	handshakes int
	cpuProfile string
	roundsFlags
	outputFlags
}

// defaultPageClients is -clients' default: four clients a CPU. A client
// spends part of each request waiting on loopback round trips (connect,
// handshake, request), so with one or two a CPU the server would sit idle
// at times; beyond saturation more clients add only queueing to the
// loaded latency.
func defaultPageClients() int { return 4 * runtime.GOMAXPROCS(0) }

func (c *pagesCmd) Flags(fs *flag.FlagSet) {
	fs.StringVar(&c.algs, "alg", "", "comma-separated contender `NAMES`: TLS-X25519, TLS-X25519MLKEM768, kem scheme names and STATIC+EPHEMERALe pairs (default: see the command's help)")
	fs.StringVar(&c.pages, "pages", "1,1024,10240,102400", "comma-separated page `SIZES` in bytes")
	fs.IntVar(&c.clients, "clients", defaultPageClients(), "`N` concurrent clients in the loaded runs, four a CPU by default")
	fs.IntVar(&c.rounds, "rounds", 7, "number of alternating `rounds`; the tables give medians over them")
	fs.DurationVar(&c.sample, "sample", 400*time.Millisecond, "how long each contender serves each page size in each round, loaded and again unloaded")
	fs.IntVar(&c.bulkMiB, "bulk", 100, "`MIB` of the bulk transfer over one connection, pqNK ML-KEM-768 against TLS-X25519MLKEM768; 0 skips it")
	fs.StringVar(&c.cpuProfile, "cpuprofile", "", "write a CPU profile of the timed runs to `FILE` (go tool pprof reads it)")
	fs.IntVar(&c.handshakes, "handshakes", 64, "`N` handshakes of each contender in memory, for its heap use")
	c.outputFlags.define(fs, true)
}

// pagesResults are the results of a run, as -json prints them.
type pagesResults struct {
	Clients    int              `json:"clients"`
	Rounds     int              `json:"rounds"`
	SampleMs   float64          `json:"sample_ms"`
	Pages      []int            `json:"pages"`
	Contenders []*pageContender `json:"contenders"`
	Bulk       []*bulkResult    `json:"bulk,omitempty"`
	BulkMiB    int              `json:"bulk_mib,omitempty"`
}

// A pageContender is one contender's results.
type pageContender struct {
	Name      string        `json:"name"`     // the -alg name
	Label     string        `json:"label"`    // the table's row
	Protocol  string        `json:"protocol"` // what runs
	Handshake handshakeCost `json:"handshake"`
	Pages     []*pageResult `json:"pages"` // in the order of pagesResults.Pages
}

// A pageResult is one contender's figures for one page size.
type pageResult struct {
	Size int `json:"size"`
	// ConnsPerSec is the median over the rounds of connections per
	// second with all the clients; PerRound has each round's.
	ConnsPerSec float64   `json:"conns_per_sec"`
	PerRound    []float64 `json:"conns_per_sec_rounds"`
	// CPUPerConnUs is the median over the rounds of the process's CPU
	// time (both sides, user and system) per connection in the loaded
	// runs, in µs, or 0 where the system does not say; on a machine that
	// other work shares, it varies less than ConnsPerSec.
	CPUPerConnUs float64   `json:"cpu_per_conn_us"`
	cpuRounds    []float64 // µs, one a round
	// The ratios of ConnsPerSec to the TLS contenders' for the same page
	// size, or 0 where that contender did not run.
	RatioTLSX25519         float64 `json:"ratio_to_tls_x25519,omitempty"`
	RatioTLSX25519MLKEM768 float64 `json:"ratio_to_tls_x25519mlkem768,omitempty"`
	Loaded                 latency `json:"loaded"`
	Unloaded               latency `json:"unloaded"`
}

// latency sums up the time of the requests of a contender and page size
// over all the rounds, in milliseconds.
type latency struct {
	Requests int     `json:"requests"`
	MedianMs float64 `json:"median_ms"`
	P99Ms    float64 `json:"p99_ms"`
	lats     []float64
}

func (l *latency) finish() {
	s := l.lats
	slices.Sort(s)
	l.Requests = len(s)
	if len(s) == 0 {
		return
	}
	l.MedianMs = medianSorted(s)
	l.P99Ms = s[(len(s)*99+99)/100-1] // the smallest at or above 99% of them
}

// A bulkResult is one contender of the bulk transfer.
type bulkResult struct {
	Label    string    `json:"label"`
	Protocol string    `json:"protocol"`
	MiBPerS  float64   `json:"mib_per_s"` // median over the rounds
	PerRound []float64 `json:"mib_per_s_rounds"`
	Ratio    float64   `json:"ratio_to_tls"` // MiBPerS over TLS's
	// CPUPerMiBMs is the median over the rounds of the process's CPU time
	// (both sides) per MiB, in ms, or 0 where the system does not say.
	CPUPerMiBMs float64 `json:"cpu_per_mib_ms"`
	cpuRounds   []float64
}

// bulkRoundsPer is how many bulk rounds run for each of -rounds: a
// transfer takes a fraction of a second, and more of them make the median
// steadier.
const bulkRoundsPer = 3

func (c *pagesCmd) Run(out *cli.Output, args []string) error {
	if err := cli.NoArgs(args); err != nil {
		return err
	}
	if err := c.roundsFlags.check(); err != nil {
		return err
	}
	switch {
	case c.clients < 1:
		return cli.Usagef("-clients must be at least 1, got %d", c.clients)
	case c.bulkMiB < 0:
		return cli.Usagef("-bulk must not be negative, got %d", c.bulkMiB)
	case c.handshakes < 1:
		return cli.Usagef("-handshakes must be at least 1, got %d", c.handshakes)
	}
	sizes, err := parsePageSizes(c.pages)
	if err != nil {
		return err
	}
	names := defaultPageNames()
	if c.algs != "" {
		names = nil
		for name := range strings.SplitSeq(c.algs, ",") {
			name = strings.TrimSpace(name)
			if slices.ContainsFunc(names, func(n string) bool { return strings.EqualFold(n, name) }) {
				return cli.Usagef("-alg: %s given twice", name)
			}
			names = append(names, name)
		}
	}
	secs, err := pageContenders(names)
	if err != nil {
		return cli.Usage(err)
	}
	if c.cpuProfile != "" {
		stop, err := startCPUProfile(c.cpuProfile)
		if err != nil {
			return err
		}
		defer stop()
	}
	res, err := c.bench(out.Stderr, names, secs, sizes)
	if err != nil {
		return err
	}
	return c.write(out.Stdout, res,
		func(w io.Writer) { printPages(w, res) },
		"Web pages over PQNoise and TLS 1.3, as Table 5 of the Frodo paper",
		func(r *report) { mdPages(r, res) })
}

// startCPUProfile starts a CPU profile written to name and returns the
// function that stops it and closes the file.
func startCPUProfile(name string) (stop func(), err error) {
	f, err := os.Create(name)
	if err != nil {
		return nil, err
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("-cpuprofile: %v", err)
	}
	return func() {
		pprof.StopCPUProfile()
		f.Close()
	}, nil
}

// maxPageSize is the largest page -pages takes.
const maxPageSize = 16 << 20

// defaultPageNames are the contenders without -alg: defaultPageContenders
// and, if the registry has it, the Frodo paper's key exchange.
func defaultPageNames() []string {
	names := slices.Clone(defaultPageContenders)
	if _, err := kem.ByName(frodoCCS2016Name); err == nil {
		names = append(names, frodoCCS2016Name)
	}
	return names
}

// parsePageSizes parses -pages.
func parsePageSizes(s string) ([]int, error) {
	var sizes []int
	for f := range strings.SplitSeq(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 0 || n > maxPageSize {
			return nil, cli.Usagef("-pages: invalid page size %q, want a number of bytes from 0 to %d", f, maxPageSize)
		}
		if slices.Contains(sizes, n) {
			return nil, cli.Usagef("-pages: page size %d given twice", n)
		}
		sizes = append(sizes, n)
	}
	return sizes, nil
}

// bench runs everything: the handshake costs, the warm-up, the rounds of
// page serving and the bulk transfer.
func (c *pagesCmd) bench(progress io.Writer, names []string, secs []*security, sizes []int) (*pagesResults, error) {
	res := &pagesResults{Clients: c.clients, Rounds: c.rounds, SampleMs: float64(c.sample) / float64(time.Millisecond), Pages: sizes}
	for i, sec := range secs {
		pc := &pageContender{Name: names[i], Label: sec.label, Protocol: sec.protocol}
		for _, n := range sizes {
			pc.Pages = append(pc.Pages, &pageResult{Size: n})
		}
		res.Contenders = append(res.Contenders, pc)
	}

	// The heap and bytes of a handshake, before any server runs.
	for i, sec := range secs {
		fmt.Fprintf(progress, "\rpqkem-bench pages: handshake heap and bytes, %d of %d...%20s", i+1, len(secs), "")
		hc, err := measureHandshake(sec, c.handshakes)
		if err != nil {
			return nil, err
		}
		res.Contenders[i].Handshake = hc
		res.Contenders[i].Protocol = sec.protocol // with TLS's cipher suite now
	}

	servers := make([]*pageServer, len(secs))
	defer func() {
		for _, ps := range servers {
			if ps != nil {
				ps.close()
			}
		}
	}()
	pages := make(map[int][]byte) // one copy of each page, which every server serves
	for _, n := range sizes {
		pages[n] = []byte(strings.Repeat("x", n))
	}
	for i, sec := range secs {
		ps, err := startPageServer(sec, pages)
		if err != nil {
			return nil, err
		}
		servers[i] = ps
		for range 8 { // warm up: code, the server's first connections
			if err := ps.get(sizes[0]); err != nil {
				return nil, fmt.Errorf("pages: %s: %w", sec.label, err)
			}
		}
	}

	// In each round, for each page size and load, the contenders serve
	// in turn in two passes of half of -sample, the second in the
	// opposite order (A B C, then C B A), the first contender changing
	// from round to round, so that a machine that grows slower or faster
	// during a pass favours none of them; a round's rate is over both.
	const passes = 2
	for r := range c.rounds {
		for pi, n := range sizes {
			for _, loaded := range []bool{true, false} {
				clients := 1
				if loaded {
					clients = c.clients
				}
				sum := make([]serveRun, len(servers))
				for pass := range passes {
					for j := range servers {
						k := j
						if pass%2 == 1 {
							k = len(servers) - 1 - j
						}
						i := (k + r) % len(servers)
						fmt.Fprintf(progress, "\rpqkem-bench pages: round %d of %d, %d-byte page, %d clients, %d of %d...%10s",
							r+1, c.rounds, n, clients, pass*len(servers)+j+1, passes*len(servers), "")
						run, err := servers[i].run(n, clients, c.sample/passes)
						if err != nil {
							return nil, err
						}
						sum[i].conns += run.conns
						sum[i].elapsed += run.elapsed
						sum[i].cpu += run.cpu
						sum[i].lats = append(sum[i].lats, run.lats...)
					}
				}
				for i, run := range sum {
					pr := res.Contenders[i].Pages[pi]
					if loaded {
						pr.PerRound = append(pr.PerRound, float64(run.conns)/run.elapsed.Seconds())
						pr.cpuRounds = append(pr.cpuRounds, float64(run.cpu.Microseconds())/float64(max(run.conns, 1)))
						pr.Loaded.lats = append(pr.Loaded.lats, run.lats...)
					} else {
						pr.Unloaded.lats = append(pr.Unloaded.lats, run.lats...)
					}
				}
			}
		}
	}
	for _, ps := range servers {
		if err := ps.close(); err != nil {
			return nil, fmt.Errorf("pages: %s: serving: %w", ps.sec.label, err)
		}
	}
	servers = nil

	if c.bulkMiB > 0 {
		bulk, err := c.bulk(progress)
		if err != nil {
			return nil, err
		}
		res.Bulk, res.BulkMiB = bulk, c.bulkMiB
	}
	fmt.Fprintf(progress, "\rpqkem-bench pages: %d rounds done.%60s\n", c.rounds, "")

	finishPages(res)
	return res, nil
}

// finishPages computes the medians, percentiles and ratios.
func finishPages(res *pagesResults) {
	base := func(name string) *pageContender {
		for _, pc := range res.Contenders {
			if strings.EqualFold(pc.Name, name) {
				return pc
			}
		}
		return nil
	}
	for _, pc := range res.Contenders {
		for _, pr := range pc.Pages {
			pr.ConnsPerSec = median(pr.PerRound)
			pr.CPUPerConnUs = median(pr.cpuRounds)
			pr.Loaded.finish()
			pr.Unloaded.finish()
		}
	}
	x, h := base(tlsX25519Name), base(tlsX25519MLKEM768)
	for _, pc := range res.Contenders {
		for i, pr := range pc.Pages {
			if x != nil {
				pr.RatioTLSX25519 = pr.ConnsPerSec / x.Pages[i].ConnsPerSec
			}
			if h != nil {
				pr.RatioTLSX25519MLKEM768 = pr.ConnsPerSec / h.Pages[i].ConnsPerSec
			}
		}
	}
}

// bulk runs the bulk transfer: pqNK ML-KEM-768 against crypto/tls with
// X25519MLKEM768, in turns, each round starting with the other.
func (c *pagesCmd) bulk(progress io.Writer) ([]*bulkResult, error) {
	secs, err := pageContenders([]string{pagesBulkNoiseKEM, tlsX25519MLKEM768})
	if err != nil {
		return nil, err
	}
	size := int64(c.bulkMiB) << 20
	var results []*bulkResult
	var servers []*bulkServer
	defer func() {
		for _, bs := range servers {
			bs.close()
		}
	}()
	for _, sec := range secs {
		bs, err := startBulkServer(sec, size)
		if err != nil {
			return nil, err
		}
		servers = append(servers, bs)
		results = append(results, &bulkResult{Label: sec.label, Protocol: sec.protocol})
	}
	rounds := bulkRoundsPer * c.rounds
	for r := range rounds {
		for j := range servers {
			i := (j + r) % len(servers)
			fmt.Fprintf(progress, "\rpqkem-bench pages: bulk, round %d of %d, %d of %d...%40s", r+1, rounds, j+1, len(servers), "")
			mibps, cpu, err := servers[i].transfer()
			if err != nil {
				return nil, err
			}
			results[i].PerRound = append(results[i].PerRound, mibps)
			results[i].cpuRounds = append(results[i].cpuRounds, float64(cpu.Microseconds())/1000)
		}
	}
	for i, b := range results {
		b.MiBPerS = median(b.PerRound)
		b.CPUPerMiBMs = median(b.cpuRounds)
		b.Protocol = secs[i].protocol // with TLS's cipher suite now
	}
	tls := results[len(results)-1].MiBPerS
	for _, b := range results {
		b.Ratio = b.MiBPerS / tls
	}
	return results, nil
}
