package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/pqkem/pqkem/internal/cli"
	"github.com/pqkem/pqkem/keyfile"
	"github.com/pqkem/pqkem/noise"
)

// floodResults are the results of a run, as -json prints them.
type floodResults struct {
	Pqkem           string  `json:"pqkem"` // what 'pqkem version' says of the binary measured
	Protocol        string  `json:"protocol"`
	N               int     `json:"n"`
	Rounds          int     `json:"rounds"`
	ClientTimeoutMs float64 `json:"client_timeout_ms"`
	// Sources is the number of loopback addresses the attack came from,
	// 0 if it shared the real client's.
	Sources   int    `json:"sources"`
	FileLimit uint64 `json:"file_limit,omitempty"` // the soft limit on open files, raised
	ServeArgs string `json:"serve_args"`           // serve's flags, the files' names left out

	Phases   []*floodPhase  `json:"phases"` // unloaded, idle sockets, flood
	Idle     idleLoad       `json:"idle"`
	Recovery *floodRecovery `json:"recovery,omitempty"`
	Flood    floodLoad      `json:"flood"`
	Memory   floodMemory    `json:"memory"`
	Notes    []string       `json:"notes,omitempty"`
}

// A floodPhase is what the real client saw in one phase, and what the
// phase cost serve.
type floodPhase struct {
	Name     string `json:"name"`
	Planned  int    `json:"planned"` // -n
	Run      int    `json:"run"`     // connections tried
	Failed   int    `json:"failed"`
	CutShort bool   `json:"cut_short"` // ended at its deadline before -n
	// Failures counts the failed connections by cause: timeout, refused,
	// reset, closed, other; FailureExample is the first one's error.
	Failures       map[string]int `json:"failures,omitempty"`
	FailureExample string         `json:"failure_example,omitempty"`
	Latency        latency        `json:"latency"` // of the connections that succeeded
	// P99Ratio is the 99th percentile over the unloaded phase's, or 0.
	P99Ratio float64 `json:"p99_ratio,omitempty"`
	Seconds  float64 `json:"seconds"`
	// ServeCPUSeconds is serve's user and system time over the phase,
	// where the system says (Linux).
	ServeCPUSeconds *float64 `json:"serve_cpu_s,omitempty"`
	ServeLogLines   int64    `json:"serve_log_lines"`
	// BenchCPUSeconds is this process's CPU time over the phase (the real
	// client, the attack, the echo service), or 0 where the system does
	// not say.
	BenchCPUSeconds float64 `json:"bench_cpu_s"`
	BackendConns    int64   `json:"backend_conns"` // connections serve made to the echo service
}

// idleLoad is the load of the idle-socket phase: over the rounds, the
// fewest opened and open, the most that failed, the longest to open.
type idleLoad struct {
	Asked       int     `json:"asked"`  // -idle-sockets, or what the limit on files allowed
	Opened      int     `json:"opened"` // connected
	Failed      int     `json:"failed"` // did not connect within a second
	FirstError  string  `json:"first_error,omitempty"`
	OpenAtStart int64   `json:"open_at_start"` // not yet closed by the server when the phase started
	OpenAtEnd   int64   `json:"open_at_end"`
	OpenMs      float64 `json:"open_ms"` // how long opening them took
}

// floodRecovery is how long after the idle sockets closed the real
// client got through again.
type floodRecovery struct {
	Recovered bool    `json:"recovered"`
	Ms        float64 `json:"ms"`
	Attempts  int     `json:"attempts"`
}

// floodLoad is the load of the flood phase.
type floodLoad struct {
	Workers     int     `json:"workers"`
	MessageSize int     `json:"message_size"` // the first message, without its 2-byte length
	Sent        int64   `json:"sent"`         // bogus first messages sent during the phase
	PerSec      float64 `json:"per_sec"`
	DialErrors  int64   `json:"dial_errors"`
	// CPUSeconds is the flood's process's CPU time over the phase, where
	// the system says (Linux).
	CPUSeconds *float64 `json:"cpu_s,omitempty"`
}

// floodMemory is serve's resident memory, where the system says (Linux).
type floodMemory struct {
	Known              bool    `json:"known"`
	IdleSockets        int64   `json:"idle_sockets"` // open when measured
	RSSBeforeIdle      int64   `json:"rss_before_idle"`
	RSSWithIdle        int64   `json:"rss_with_idle"`
	BytesPerIdle       float64 `json:"bytes_per_idle_socket"`
	Forwarded          int     `json:"forwarded"` // held open when measured
	ForwardedFailed    int     `json:"forwarded_failed"`
	RSSBeforeForwarded int64   `json:"rss_before_forwarded"`
	RSSWithForwarded   int64   `json:"rss_with_forwarded"`
	BytesPerForwarded  float64 `json:"bytes_per_forwarded"`
}

// Phase names.
const (
	phaseUnloaded = "unloaded"
	phaseIdle     = "idle sockets"
	phaseFlood    = "random-bytes flood"
)

// floodWarmups is how many connections the client makes, not counted,
// before measuring a fresh serve.
const floodWarmups = 5

// fdMargin is the open files kept for everything but the sockets of the
// load.
const fdMargin = 128

// A floodRun is the state of one run.
type floodRun struct {
	c        *floodCmd
	progress io.Writer
	budget   time.Duration // of a phase
	echo     *echoServer
}

func (r *floodRun) say(format string, args ...any) {
	fmt.Fprintf(r.progress, "\rpqkem-bench flood: %-72s", fmt.Sprintf(format, args...))
}

// bench runs everything; the deferred calls kill serve and close every
// socket however it ends.
func (c *floodCmd) bench(ctx context.Context, progress io.Writer) (*floodResults, error) {
	r := &floodRun{c: c, progress: progress, budget: c.timeout / 5}
	dir, err := os.MkdirTemp("", "pqkem-bench-flood-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	bin := c.pqkem
	if bin != "" {
		if bin, err = exec.LookPath(bin); err != nil {
			return nil, cli.Usagef("-pqkem: %v", err)
		}
	} else {
		r.say("building pqkem...")
		if bin, err = buildPqkem(ctx, dir); err != nil {
			return nil, err
		}
	}
	res := &floodResults{N: c.n, Rounds: c.rounds, ClientTimeoutMs: float64(c.clientTimeout) / float64(time.Millisecond)}
	res.Pqkem = "unknown: 'pqkem version' failed"
	if v, err := runPqkem(ctx, bin, "version"); err == nil {
		res.Pqkem = strings.TrimSpace(v)
	}

	// The server's key, and the client's copy of its public key.
	r.say("making the server's key...")
	key, pubFile := filepath.Join(dir, "server.pem"), filepath.Join(dir, "server.pub")
	if _, err := runPqkem(ctx, bin, "keygen", "-alg", c.alg, "-out", key); err != nil {
		return nil, err
	}
	if _, err := runPqkem(ctx, bin, "pub", "-in", key, "-out", pubFile); err != nil {
		return nil, err
	}
	data, err := os.ReadFile(pubFile)
	if err != nil {
		return nil, err
	}
	pub, err := keyfile.DecodePublicKey(data, nil)
	if err != nil {
		return nil, fmt.Errorf("the server's public key: %w", err)
	}
	// serve's default cipher and hash, and pqNK since it has no -allow.
	proto := noise.Protocol{Pattern: noise.PQNK, KEM: pub.Key.Scheme(), Cipher: noise.AESGCM, Hash: noise.SHA256}
	cfg := &noise.Config{Protocol: proto, PeerStaticKey: pub.Key, HandshakeTimeout: c.clientTimeout}
	res.Protocol = proto.String()

	// Room for the sockets.
	idle, forwarded := c.idleSockets, c.forwarded
	if limit, ok := raiseFileLimit(); ok {
		res.FileLimit = limit
		fit := int(min(limit, 1<<30)) - fdMargin
		if idle > fit {
			res.Notes = append(res.Notes, fmt.Sprintf("The limit on open files is %d: %d idle sockets instead of %d.", limit, max(fit, 0), idle))
			idle = max(fit, 0)
		}
		if 2*forwarded > fit {
			res.Notes = append(res.Notes, fmt.Sprintf("The limit on open files is %d: %d forwarded connections instead of %d (each has an echo connection too).", limit, max(fit/2, 0), forwarded))
			forwarded = max(fit/2, 0)
		}
	}

	echo, err := startEcho()
	if err != nil {
		return nil, err
	}
	defer echo.close()
	r.echo = echo
	sources, own := attackSources(c.sources, echo.addr())
	if own {
		res.Sources = len(sources)
	} else {
		res.Notes = append(res.Notes, "The system cannot bind 127.0.0.2: the attack comes from the real client's address.")
	}

	args := []string{"-key", key, "-listen", "127.0.0.1:0", "-to", echo.addr(), "-quiet"}
	args = append(args, c.serveFlagList()...)
	res.ServeArgs = strings.Join(append([]string{"-key", "KEY", "-listen", "127.0.0.1:0", "-to", "ECHO", "-quiet"}, c.serveFlagList()...), " ")
	r.say("starting pqkem serve...")
	sp, err := startServe(ctx, bin, args)
	if err != nil {
		return nil, err
	}
	defer sp.stop()
	rc := newRealClient(cfg, sp.addr, c.clientTimeout)
	if err := r.warmUp(ctx, rc, sp); err != nil {
		return nil, err
	}
	unloaded, idled, flooded := r.newPhase(phaseUnloaded), r.newPhase(phaseIdle), r.newPhase(phaseFlood)
	res.Phases = []*floodPhase{unloaded, idled, flooded}
	res.Flood = floodLoad{Workers: c.floodWorkers, MessageSize: proto.MessageSizes()[0]}
	var floodSeconds float64
	for round := range c.rounds {
		// This round's share of the -n connections of each phase.
		count := c.n*(round+1)/c.rounds - c.n*round/c.rounds

		// Phase 1: unloaded.
		if err := r.measure(ctx, unloaded, round, count, rc, sp); err != nil {
			return nil, err
		}

		// Phase 2: idle sockets, and (in the first round) the memory
		// they cost.
		var rss0 int64
		memOK := false
		if round == 0 {
			rss0, memOK = settledRSS(ctx, sp.pid)
		}
		r.say("round %d of %d: opening %d idle sockets...", round+1, c.rounds, idle)
		openStart := time.Now()
		is := openIdle(ctx, sp.addr, idle, sources)
		openMs := float64(time.Since(openStart)) / float64(time.Millisecond)
		if ctx.Err() != nil {
			is.close()
			return nil, ctx.Err()
		}
		if round == 0 {
			rss1, _ := settledRSS(ctx, sp.pid)
			res.Memory.Known = memOK
			res.Memory.IdleSockets = is.open.Load()
			if memOK {
				res.Memory.RSSBeforeIdle, res.Memory.RSSWithIdle = rss0, rss1
				if n := res.Memory.IdleSockets; n > 0 {
					res.Memory.BytesPerIdle = float64(rss1-rss0) / float64(n)
				}
			}
		}
		openAtStart := is.open.Load()
		err := r.measure(ctx, idled, round, count, rc, sp)
		res.Idle.add(round, idle, is, openMs, openAtStart)
		is.close()
		if err != nil {
			return nil, err
		}

		// Back to normal once the idle sockets have gone?
		res.Recovery = res.Recovery.worse(r.recovery(ctx, rc))
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}

		// Phase 3: the random-bytes flood.
		r.say("round %d of %d: starting the flood...", round+1, c.rounds)
		var f *floodProc
		if c.floodWorkers > 0 {
			if f, err = startFloodProc(sp.addr, c.floodWorkers, res.Flood.MessageSize, res.Sources); err != nil {
				return nil, err
			}
		}
		err = r.floodRound(ctx, f, flooded, round, count, rc, sp, &res.Flood, &floodSeconds)
		if f != nil {
			f.stop()
		}
		if err != nil {
			return nil, err
		}
	}
	for _, p := range res.Phases {
		p.finish()
	}
	if floodSeconds > 0 {
		res.Flood.PerSec = float64(res.Flood.Sent) / floodSeconds
	}
	if n := res.Idle.Failed; n > 0 {
		note := fmt.Sprintf("Up to %d of the %d idle sockets of a round did not connect within %v: serve's listening queue was full, and the kernel drops connections to a full queue", n, idle, idleDialTimeout)
		if b, ok := listenBacklog(); ok {
			note += fmt.Sprintf(" (its length is capped at net.core.somaxconn, %d here)", b)
		}
		res.Notes = append(res.Notes, note+".")
	}
	sp.stop()

	// The memory of forwarded connections, in a fresh serve.
	if forwarded > 0 {
		if err := r.forwardedMemory(ctx, bin, cfg, key, forwarded, res); err != nil {
			return nil, err
		}
	}
	r.say("done.")
	fmt.Fprintln(progress)

	base := unloaded.Latency.P99Ms
	for _, p := range res.Phases[1:] {
		if base > 0 && p.Latency.Requests > 0 {
			p.P99Ratio = p.Latency.P99Ms / base
		}
	}
	return res, nil
}

// warmUp makes the connections before a measure, which must all succeed.
func (r *floodRun) warmUp(ctx context.Context, rc *realClient, sp *serveProc) error {
	for range floodWarmups {
		if _, err := rc.once(ctx); err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			return fmt.Errorf("the real client fails without load: %w; serve's log: %s", err, sp.lastLines())
		}
	}
	return nil
}

// newPhase returns the phase name, which the rounds fill.
func (r *floodRun) newPhase(name string) *floodPhase {
	return &floodPhase{Name: name, Planned: r.c.n, Failures: make(map[string]int)}
}

// measure makes count connections of phase p with the real client, one
// after another, within a round's share of the phase's deadline, and
// measures serve meanwhile, adding to what p holds. An error is the end of
// the run (ctx ended, serve exited), not a failed connection.
func (r *floodRun) measure(ctx context.Context, p *floodPhase, round, count int, rc *realClient, sp *serveProc) error {
	pctx, cancel := context.WithTimeout(ctx, r.budget/time.Duration(r.c.rounds))
	defer cancel()
	cpu0, cpuOK := procCPU(sp.pid)
	self0 := processCPU()
	logs0, back0 := sp.lines.Load(), r.echo.accepted.Load()
	start := time.Now()
	for i := range count {
		if i%10 == 0 {
			r.say("round %d of %d: %s: connection %d of %d...", round+1, r.c.rounds, p.Name, i+1, count)
		}
		d, err := rc.once(pctx)
		if err != nil && pctx.Err() != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			p.CutShort = true // the phase's deadline, not the client's
			break
		}
		p.Run++
		if err != nil {
			p.Failed++
			p.Failures[failureCause(err)]++
			if p.FailureExample == "" {
				p.FailureExample = err.Error()
			}
			if err := sp.exited(); err != nil {
				return err
			}
			continue
		}
		p.Latency.lats = append(p.Latency.lats, float64(d)/float64(time.Millisecond))
	}
	p.Seconds += time.Since(start).Seconds()
	if cpu1, ok := procCPU(sp.pid); ok && cpuOK {
		addSeconds(&p.ServeCPUSeconds, cpu1-cpu0)
	}
	p.BenchCPUSeconds += (processCPU() - self0).Seconds()
	p.ServeLogLines += sp.lines.Load() - logs0
	p.BackendConns += r.echo.accepted.Load() - back0
	return sp.exited()
}

// addSeconds adds d to the seconds *sum holds, or makes it d if nil (the
// figure was not known before).
func addSeconds(sum **float64, d time.Duration) {
	s := d.Seconds()
	if *sum != nil {
		s += **sum
	}
	*sum = &s
}

// finish computes the phase's latency figures once its rounds are done.
func (p *floodPhase) finish() {
	p.Latency.finish()
	if len(p.Failures) == 0 {
		p.Failures = nil
	}
}

// floodRound measures a round of the flood phase: the flood f (nil with
// no workers) runs for half a second first, to reach full speed; its
// counts and CPU time over the round are added to load, and the round's
// time to seconds.
func (r *floodRun) floodRound(ctx context.Context, f *floodProc, p *floodPhase, round, count int, rc *realClient, sp *serveProc, load *floodLoad, seconds *float64) error {
	sleepCtx(ctx, 500*time.Millisecond)
	var sent0, dial0 int64
	var cpu0 time.Duration
	var cpuOK bool
	if f != nil {
		var err error
		if sent0, dial0, err = f.counts(); err != nil {
			return err
		}
		cpu0, cpuOK = procCPU(f.pid)
	}
	start := time.Now()
	if err := r.measure(ctx, p, round, count, rc, sp); err != nil {
		return err
	}
	*seconds += time.Since(start).Seconds()
	if f == nil {
		return nil
	}
	sent1, dial1, err := f.counts()
	if err != nil {
		return err
	}
	load.Sent += sent1 - sent0
	load.DialErrors += dial1 - dial0
	if cpu1, ok := procCPU(f.pid); ok && cpuOK {
		addSeconds(&load.CPUSeconds, cpu1-cpu0)
	}
	return nil
}

// add records a round's idle sockets: the fewest opened and open, the
// most that failed, the longest it took to open them.
func (l *idleLoad) add(round, asked int, is *idleSockets, openMs float64, openAtStart int64) {
	opened, openAtEnd := is.opened(), is.open.Load()
	if round == 0 {
		*l = idleLoad{Asked: asked, Opened: opened, Failed: is.failed, OpenAtStart: openAtStart, OpenAtEnd: openAtEnd, OpenMs: openMs}
	} else {
		l.Opened, l.Failed = min(l.Opened, opened), max(l.Failed, is.failed)
		l.OpenAtStart, l.OpenAtEnd = min(l.OpenAtStart, openAtStart), min(l.OpenAtEnd, openAtEnd)
		l.OpenMs = max(l.OpenMs, openMs)
	}
	if is.firstErr != nil && l.FirstError == "" {
		l.FirstError = is.firstErr.Error()
	}
}

// worse returns the slower of two recoveries (nil counts as none).
func (rec *floodRecovery) worse(other *floodRecovery) *floodRecovery {
	switch {
	case rec == nil:
		return other
	case other == nil:
		return rec
	case !other.Recovered && rec.Recovered, other.Recovered == rec.Recovered && other.Ms > rec.Ms:
		return other
	}
	return rec
}

// recovery tries the real client until it gets through, within a
// phase's time.
func (r *floodRun) recovery(ctx context.Context, rc *realClient) *floodRecovery {
	rec := new(floodRecovery)
	rctx, cancel := context.WithTimeout(ctx, r.budget)
	defer cancel()
	start := time.Now()
	for rctx.Err() == nil {
		r.say("idle sockets closed: waiting for serve, attempt %d...", rec.Attempts+1)
		rec.Attempts++
		t := time.Now()
		if _, err := rc.once(rctx); err == nil {
			rec.Recovered = true
			break
		}
		if time.Since(t) < 50*time.Millisecond {
			sleepCtx(rctx, 50*time.Millisecond)
		}
	}
	rec.Ms = float64(time.Since(start)) / float64(time.Millisecond)
	return rec
}

// forwardedMemory starts a fresh serve, room for n forwarded connections,
// and measures its resident memory before and after n clients connect and
// stay.
func (r *floodRun) forwardedMemory(ctx context.Context, bin string, cfg *noise.Config, key string, n int, res *floodResults) error {
	args := []string{"-key", key, "-listen", "127.0.0.1:0", "-to", r.echo.addr(), "-quiet", "-max", strconv.Itoa(n + 64)}
	r.say("starting a fresh pqkem serve...")
	sp, err := startServe(ctx, bin, append(args, r.c.serveFlagList()...))
	if err != nil {
		return err
	}
	defer sp.stop()
	rc := newRealClient(cfg, sp.addr, r.c.clientTimeout)
	if err := r.warmUp(ctx, rc, sp); err != nil {
		return err
	}
	before, ok := settledRSS(ctx, sp.pid)
	var held []net.Conn
	defer func() {
		for _, c := range held {
			c.Close()
		}
	}()
	fctx, cancel := context.WithTimeout(ctx, r.budget)
	defer cancel()
	failed := 0
	for i := range n {
		if i%10 == 0 {
			r.say("forwarded connection %d of %d...", i+1, n)
		}
		c, _, err := rc.open(fctx)
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			if fctx.Err() != nil {
				break
			}
			failed++
			continue
		}
		held = append(held, c)
	}
	after, _ := settledRSS(ctx, sp.pid)
	if err := sp.exited(); err != nil {
		return err
	}
	m := &res.Memory
	m.Forwarded, m.ForwardedFailed = len(held), failed
	if ok {
		m.RSSBeforeForwarded, m.RSSWithForwarded = before, after
		if len(held) > 0 {
			m.BytesPerForwarded = float64(after-before) / float64(len(held))
		}
	}
	if len(held) < n {
		res.Notes = append(res.Notes, fmt.Sprintf("%d of %d forwarded connections were made (%d failed).", len(held), n, failed))
	}
	return nil
}

// settledRSS waits for serve's resident memory to settle (two readings a
// fifth of a second apart within 1%, for at most 2 s) and returns it.
func settledRSS(ctx context.Context, pid int) (int64, bool) {
	prev, ok := procRSS(pid)
	if !ok {
		return 0, false
	}
	for range 10 {
		if !sleepCtx(ctx, 200*time.Millisecond) {
			break
		}
		cur, ok := procRSS(pid)
		if !ok {
			break
		}
		if d := cur - prev; d <= prev/100 && -d <= prev/100 {
			return cur, true
		}
		prev = cur
	}
	return prev, true
}

// sleepCtx sleeps for d or until ctx ends, and reports whether it slept
// all of d.
func sleepCtx(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}
