package main

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"net"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/pqkem/pqkem/internal/cli"
	"github.com/pqkem/pqkem/internal/leaktest"
	"github.com/pqkem/pqkem/kem"
	"github.com/pqkem/pqkem/noise"
)

// TestFlood runs the flood command end to end with tiny loads and checks
// the shape of its results, not their figures: that every phase ran,
// that serve's CPU time and memory were read, and that no serve and no
// goroutine is left behind.
func TestFlood(t *testing.T) {
	if testing.Short() {
		t.Skip("builds pqkem and runs it: not with -short")
	}
	if runtime.GOOS != "linux" {
		t.Skip("the CPU time and memory figures need Linux's /proc")
	}
	// os/signal's watcher starts at the first Notify and runs for good.
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt)
	signal.Stop(sig)
	leaktest.Check(t)

	var mu sync.Mutex
	var pids []int
	serveStarted = func(pid int) {
		mu.Lock()
		pids = append(pids, pid)
		mu.Unlock()
	}
	t.Cleanup(func() { serveStarted = func(int) {} })

	file := filepath.Join(t.TempDir(), "flood.md")
	args := []string{"flood", "-n", "5", "-rounds", "2", "-idle-sockets", "50", "-flood-workers", "1", "-forwarded", "5", "-json", "-md", file}
	code, stdout, stderr := pqkemBench(t, args...)
	wantCode(t, args, code, cli.ExitOK, stderr)

	mu.Lock()
	defer mu.Unlock()
	if len(pids) != 2 {
		t.Errorf("%d serve processes started, want 2", len(pids))
	}
	for _, pid := range pids {
		if _, err := os.Stat("/proc/" + strconv.Itoa(pid)); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("serve, process %d, is still there after the run: %v", pid, err)
		}
	}

	var res floodResults
	if err := json.Unmarshal([]byte(stdout), &res); err != nil {
		t.Fatalf("flood -json output does not parse: %v\n%s", err, stdout)
	}
	s, err := kem.ByName("ML-KEM-768")
	if err != nil {
		t.Fatal(err)
	}
	p := noise.Protocol{Pattern: noise.PQNK, KEM: s, Cipher: noise.AESGCM, Hash: noise.SHA256}
	if res.Protocol != p.String() || !strings.HasPrefix(res.Pqkem, "pqkem ") || res.N != 5 || res.Rounds != 2 {
		t.Errorf("protocol %q, pqkem %q, n %d, %d rounds; want %v, pqkem's version, 5, 2", res.Protocol, res.Pqkem, res.N, res.Rounds, p)
	}
	names := []string{phaseUnloaded, phaseIdle, phaseFlood}
	if len(res.Phases) != len(names) {
		t.Fatalf("%d phases, want %d", len(res.Phases), len(names))
	}
	for i, ph := range res.Phases {
		if ph.Name != names[i] || ph.Planned != 5 || ph.Run > 5 || ph.Failed > ph.Run || ph.Latency.Requests != ph.Run-ph.Failed {
			t.Errorf("phase %d: %s, %d planned, %d run, %d failed, %d timed; want %s, 5, at most 5, at most those run, those that got through",
				i, ph.Name, ph.Planned, ph.Run, ph.Failed, ph.Latency.Requests, names[i])
		}
		if ph.Latency.Requests > 0 && (ph.Latency.MedianMs <= 0 || ph.Latency.P99Ms < ph.Latency.MedianMs) {
			t.Errorf("%s: latency %+v; want a positive median and a 99th percentile at least as large", ph.Name, ph.Latency)
		}
		if i > 0 && ph.Latency.Requests > 0 && ph.P99Ratio <= 0 {
			t.Errorf("%s: no ratio to the unloaded phase", ph.Name)
		}
		if ph.ServeCPUSeconds == nil || *ph.ServeCPUSeconds < 0 || ph.BackendConns < int64(ph.Latency.Requests) {
			t.Errorf("%s: serve's CPU time %v, %d backend connections; want a time, and one a connection that got through", ph.Name, ph.ServeCPUSeconds, ph.BackendConns)
		}
	}
	if u := res.Phases[0]; u.Run != 5 || u.Failed != 0 || u.CutShort {
		t.Errorf("unloaded: %d run, %d failed (%v), cut short %v; want all 5 through", u.Run, u.Failed, u.FailureExample, u.CutShort)
	}
	if res.Idle.Asked != 50 || res.Idle.Opened+res.Idle.Failed != 50 || res.Idle.OpenAtStart > int64(res.Idle.Opened) {
		t.Errorf("idle sockets %+v; want 50 asked, each opened or failed", res.Idle)
	}
	if res.Flood.Workers != 1 || res.Flood.MessageSize != p.MessageSizes()[0] {
		t.Errorf("flood %+v; want 1 worker, messages of %d bytes", res.Flood, p.MessageSizes()[0])
	}
	if res.Recovery == nil || res.Recovery.Attempts < 1 {
		t.Errorf("recovery %+v, want at least one attempt", res.Recovery)
	}
	m := res.Memory
	if !m.Known || m.RSSBeforeIdle <= 0 || m.RSSWithIdle <= 0 || m.RSSBeforeForwarded <= 0 || m.RSSWithForwarded <= 0 || m.Forwarded+m.ForwardedFailed != 5 {
		t.Errorf("memory %+v; want resident sizes, and 5 forwarded connections tried", m)
	}
	if res.Sources != 1 && !strings.Contains(strings.Join(res.Notes, " "), "127.0.0.2") {
		t.Errorf("attack sources %d, notes %q; want 1, or a note that 127.0.0.2 could not be bound", res.Sources, res.Notes)
	}

	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	checkReport(t, string(data), "pqkem-bench flood -flood-workers 1 -forwarded 5 -idle-sockets 50 -json -md "+file+" -n 5 -rounds 2",
		"| phase | load | connections | failed | median ms | p99 ms | p99 / unloaded | serve CPU s (cores) | bench CPU s | serve log lines | backend connections |",
		"| unloaded | none | 5 of 5 | 0 | ", "| idle sockets | 50 idle sockets: ", "| random-bytes flood | 1 worker: ",
		"| what serve holds | how many | RSS before MiB | RSS with them MiB | KiB each |", "| idle sockets | ", "| forwarded connections (a fresh serve) | ",
		"Loaded p99 over unloaded p99: ", "Noise_pqNK_MLKEM768_AESGCM_SHA256")
	if !strings.Contains(stderr, "pqkem-bench flood: done.") {
		t.Errorf("no progress on stderr: %q", stderr)
	}
}

func TestFloodUsage(t *testing.T) {
	checkUsage(t, []usageCase{
		{[]string{"flood", "-n", "0"}, "-n must be at least 1"},
		{[]string{"flood", "-rounds", "0"}, "-rounds must be from 1 to -n (1000), got 0"},
		{[]string{"flood", "-n", "4", "-rounds", "5"}, "-rounds must be from 1 to -n (4), got 5"},
		{[]string{"flood", "-idle-sockets", "-1"}, "-idle-sockets must not be negative"},
		{[]string{"flood", "-flood-workers", "-1"}, "-flood-workers must not be negative"},
		{[]string{"flood", "-forwarded", "-1"}, "-forwarded must not be negative"},
		{[]string{"flood", "-sources", "0"}, "-sources must be from 1 to 65536"},
		{[]string{"flood", "-client-timeout", "0s"}, "-client-timeout must be positive"},
		{[]string{"flood", "-timeout", "-1s"}, "-timeout must be positive"},
		{[]string{"flood", "-alg", ""}, "-alg must name a scheme"},
		{[]string{"flood", "extra"}, `unexpected argument "extra"`},
	})
}

// TestFloodText prints made-up results, as a system without /proc gives
// them, for the text output's shape.
func TestFloodText(t *testing.T) {
	ph := func(name string, run, failed int, lats ...float64) *floodPhase {
		p := &floodPhase{Name: name, Planned: 4, Run: run, Failed: failed, Seconds: 1, BackendConns: int64(len(lats))}
		p.Latency.lats = lats
		p.Latency.finish()
		if failed > 0 {
			p.Failures = map[string]int{"timeout": failed}
			p.FailureExample = "i/o timeout"
		}
		return p
	}
	res := &floodResults{
		Pqkem: "pqkem v0.0.0", Protocol: "Noise_pqNK_MLKEM768_AESGCM_SHA256", N: 4, Rounds: 1, ClientTimeoutMs: 10000, ServeArgs: "-key KEY",
		Phases:   []*floodPhase{ph(phaseUnloaded, 4, 0, 1, 1, 1, 2), ph(phaseIdle, 2, 2), ph(phaseFlood, 4, 1, 2, 3, 8)},
		Idle:     idleLoad{Asked: 10, Opened: 8, Failed: 2, OpenAtStart: 8, OpenAtEnd: 3},
		Flood:    floodLoad{Workers: 2, MessageSize: 2288, Sent: 100, PerSec: 50},
		Recovery: &floodRecovery{Recovered: true, Ms: 12, Attempts: 1},
		Notes:    []string{"A note."},
	}
	res.Phases[1].CutShort = true
	res.Phases[2].P99Ratio = 4
	var b strings.Builder
	printFlood(&b, res)
	out := b.String()
	for _, want := range []string{
		"from 127.0.0.1) makes 4 connections a phase", "the attack came from the real client's address", "take turns in 1 round,",
		"unloaded            none", "0 of 4 (cut at the deadline after 2)", "2 (timeout 2)",
		"10 idle sockets: 8 connected in 0s, ", "2 did not connect", "2 workers: 100 bogus first messages of 2288 B, 50 a second",
		"n/a", "idle sockets: no connection got through", "random-bytes flood 4.00x: over 3x, and 1 of 4 connections failed",
		"at the first attempt", "First failure, idle sockets: i/o timeout", "A note.",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the text output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "forwarded connections (a fresh serve)") {
		t.Errorf("a forwarded row without forwarded connections:\n%s", out)
	}
}

// TestFloodProc runs the flood's child process against a listener that
// reads the first messages, and checks what the child counts and that it
// exits when told to.
func TestFloodProc(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a process: not with -short")
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	const size = 100
	var got atomic.Int64
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				var msg [2 + size]byte
				if _, err := io.ReadFull(c, msg[:]); err == nil && binary.BigEndian.Uint16(msg[:]) == size {
					got.Add(1)
				}
			}()
		}
	}()
	p, err := startFloodProc(ln.Addr().String(), 1, size, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer p.stop()
	var sent int64
	for deadline := time.Now().Add(10 * time.Second); sent < 10 && time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if sent, _, err = p.counts(); err != nil {
			t.Fatal(err)
		}
	}
	if sent < 10 {
		t.Fatalf("the flood sent %d first messages in 10s, want at least 10", sent)
	}
	p.stop()
	if !p.cmd.ProcessState.Exited() || p.cmd.ProcessState.ExitCode() != 0 {
		t.Errorf("the flood's process ended with %v, want exit status 0", p.cmd.ProcessState)
	}
	if got.Load() == 0 {
		t.Errorf("the listener read no well-formed first message; the flood says it sent %d", sent)
	}
	for _, spec := range []string{"", "127.0.0.1:1 1 100", "127.0.0.1:1 0 100 0", "127.0.0.1:1 1 65536 0", "127.0.0.1:1 1 100 -1"} {
		if code := attackerMain(spec, strings.NewReader(""), io.Discard, io.Discard); code != 2 {
			t.Errorf("%s=%q: exit status %d, want 2", attackerEnv, spec, code)
		}
	}
}
