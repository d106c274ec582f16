package main

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"
	"time"
)

// floodTargetRatio is the bound on the loaded 99th percentile
// over the unloaded one.
const floodTargetRatio = 3

// floodIntro says what was measured, before the tables.
func floodIntro(res *floodResults) []string {
	src := "the attack came from the real client's address, 127.0.0.1"
	switch {
	case res.Sources == 1:
		src = "the attack came from 127.0.0.2"
	case res.Sources > 1:
		src = fmt.Sprintf("the attack came from %d loopback addresses, 127.0.0.2 onwards", res.Sources)
	}
	return []string{
		fmt.Sprintf("Measured: %s, run as `pqkem serve %s`; %s.", res.Pqkem, res.ServeArgs, res.Protocol),
		fmt.Sprintf("The real client (this process, from 127.0.0.1) makes %d connections a phase, one after another: connect, handshake, one byte echoed, close, each within %v; %s. The three phases take turns in %s, each with its own idle sockets and flood. Client, attacker and server share this machine's CPUs, so the figures are as noisy as the machine is busy.",
			res.N, msDuration(res.ClientTimeoutMs), src, rounds(res.Rounds)),
	}
}

// rounds is "1 round", "5 rounds".
func rounds(n int) string {
	if n == 1 {
		return "1 round"
	}
	return fmt.Sprintf("%d rounds", n)
}

// floodPhaseTable is the table of the three phases.
func floodPhaseTable(res *floodResults) (header []string, rows [][]string) {
	header = []string{"phase", "load", "connections", "failed", "median ms", "p99 ms", "p99 / unloaded", "serve CPU s (cores)", "bench CPU s", "serve log lines", "backend connections"}
	for _, p := range res.Phases {
		conns := fmt.Sprintf("%d of %d", p.Run-p.Failed, p.Planned)
		if p.CutShort {
			conns += fmt.Sprintf(" (cut at the deadline after %d)", p.Run)
		}
		failed := fmt.Sprint(p.Failed)
		if p.Failed > 0 {
			failed += " (" + failureCounts(p.Failures) + ")"
		}
		med, p99 := "-", "-"
		if p.Latency.Requests > 0 {
			med, p99 = fmt.Sprintf("%.2f", p.Latency.MedianMs), fmt.Sprintf("%.2f", p.Latency.P99Ms)
		}
		cpu := "n/a"
		if p.ServeCPUSeconds != nil {
			cpu = fmt.Sprintf("%.2f (%.2f)", *p.ServeCPUSeconds, *p.ServeCPUSeconds/p.Seconds)
		}
		benchCPU := "n/a"
		if p.BenchCPUSeconds > 0 {
			benchCPU = fmt.Sprintf("%.2f", p.BenchCPUSeconds)
		}
		rows = append(rows, []string{p.Name, phaseLoad(res, p), conns, failed, med, p99, ratioCell(p.P99Ratio),
			cpu, benchCPU, fmt.Sprint(p.ServeLogLines), fmt.Sprint(p.BackendConns)})
	}
	return header, rows
}

// phaseLoad says what loaded the phase.
func phaseLoad(res *floodResults, p *floodPhase) string {
	switch p.Name {
	case phaseIdle:
		s := fmt.Sprintf("%d idle sockets: %d connected in %v, %d open at the start, %d at the end", res.Idle.Asked, res.Idle.Opened, msRound(res.Idle.OpenMs), res.Idle.OpenAtStart, res.Idle.OpenAtEnd)
		if res.Idle.Failed > 0 {
			s += fmt.Sprintf(", %d did not connect", res.Idle.Failed)
		}
		if res.Rounds > 1 {
			s += " (the worst round)"
		}
		return s
	case phaseFlood:
		workers := "workers"
		if res.Flood.Workers == 1 {
			workers = "worker"
		}
		s := fmt.Sprintf("%d %s: %d bogus first messages of %d B, %.0f a second", res.Flood.Workers, workers, res.Flood.Sent, res.Flood.MessageSize, res.Flood.PerSec)
		if res.Flood.DialErrors > 0 {
			s += fmt.Sprintf(", %d failed connects", res.Flood.DialErrors)
		}
		if cpu := res.Flood.CPUSeconds; cpu != nil {
			s += fmt.Sprintf(", %.2f s of CPU", *cpu)
		}
		return s
	}
	return "none"
}

// failureCounts is "timeout 3, reset 1".
func failureCounts(m map[string]int) string {
	var parts []string
	for cause, n := range m {
		parts = append(parts, fmt.Sprintf("%s %d", cause, n))
	}
	slices.Sort(parts)
	return strings.Join(parts, ", ")
}

// floodMemoryTable is the table of serve's memory.
func floodMemoryTable(res *floodResults) (header []string, rows [][]string) {
	header = []string{"what serve holds", "how many", "RSS before MiB", "RSS with them MiB", "KiB each"}
	m := res.Memory
	mib := func(b int64) string {
		if !m.Known {
			return "n/a"
		}
		return fmt.Sprintf("%.1f", float64(b)/(1<<20))
	}
	kib := func(b float64, n int64) string {
		switch {
		case !m.Known:
			return "n/a"
		case n == 0:
			return "-"
		}
		return fmt.Sprintf("%.1f", b/1024)
	}
	rows = append(rows, []string{"idle sockets", fmt.Sprint(m.IdleSockets), mib(m.RSSBeforeIdle), mib(m.RSSWithIdle), kib(m.BytesPerIdle, m.IdleSockets)})
	if m.Forwarded > 0 || m.ForwardedFailed > 0 {
		rows = append(rows, []string{"forwarded connections (a fresh serve)", fmt.Sprint(m.Forwarded), mib(m.RSSBeforeForwarded), mib(m.RSSWithForwarded), kib(m.BytesPerForwarded, int64(m.Forwarded))})
	}
	return header, rows
}

// floodVerdict says whether each loaded phase kept its 99th percentile
// within floodTargetRatio of the unloaded one with every connection
// through, and how serve recovered from the idle sockets.
func floodVerdict(res *floodResults) []string {
	var lines []string
	var parts []string
	for _, p := range res.Phases[1:] {
		switch {
		case p.Latency.Requests == 0:
			parts = append(parts, fmt.Sprintf("%s: no connection got through", p.Name))
		case p.P99Ratio == 0:
			parts = append(parts, fmt.Sprintf("%s: no ratio", p.Name))
		default:
			met := fmt.Sprintf("within %dx", floodTargetRatio)
			if p.P99Ratio > floodTargetRatio {
				met = fmt.Sprintf("over %dx", floodTargetRatio)
			}
			if p.Failed > 0 {
				met += fmt.Sprintf(", and %d of %d connections failed", p.Failed, p.Run)
			}
			parts = append(parts, fmt.Sprintf("%s %.2fx: %s", p.Name, p.P99Ratio, met))
		}
	}
	lines = append(lines, fmt.Sprintf("Loaded p99 over unloaded p99: %s.", strings.Join(parts, "; ")))
	if rec := res.Recovery; rec != nil {
		attempts := fmt.Sprintf("%d attempts", rec.Attempts)
		if rec.Attempts == 1 {
			attempts = "at the first attempt"
		}
		if rec.Recovered {
			lines = append(lines, fmt.Sprintf("Once the idle sockets were closed, the real client got through after %.0f ms (%s).", rec.Ms, attempts))
		} else {
			lines = append(lines, fmt.Sprintf("Once the idle sockets were closed, the real client did not get through within %.0f ms (%s).", rec.Ms, attempts))
		}
	}
	for _, p := range res.Phases {
		if p.FailureExample != "" {
			lines = append(lines, fmt.Sprintf("First failure, %s: %s", p.Name, p.FailureExample))
		}
	}
	if res.Idle.FirstError != "" {
		lines = append(lines, "First idle socket that did not connect: "+res.Idle.FirstError)
	}
	return append(lines, res.Notes...)
}

const floodPhaseTitle = "The real client in each phase: connections that got through, failures by cause, latency (connect, handshake, 1-byte echo) of those that got through, what the phase cost serve (CPU time, and in cores: CPU time over the phase's time) and this process (client, idle sockets and echo service; the flood runs in a process of its own, whose CPU time is in its load column), the lines serve logged and the connections it made to the echo service."

const floodMemoryTitle = "Serve's resident memory (VmRSS): with the idle sockets of the second phase's first round, and in a fresh serve with forwarded connections held open."

// printFlood prints the results as text.
func printFlood(w io.Writer, res *floodResults) {
	for _, s := range floodIntro(res) {
		fmt.Fprintln(w, s)
	}
	printTable := func(title string, header []string, rows [][]string) {
		fmt.Fprintf(w, "\n%s\n\n", title)
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, strings.Join(header, "\t")+"\t")
		for _, row := range rows {
			fmt.Fprintln(tw, strings.Join(row, "\t")+"\t")
		}
		tw.Flush()
	}
	h, rows := floodPhaseTable(res)
	printTable(floodPhaseTitle, h, rows)
	h, rows = floodMemoryTable(res)
	printTable(floodMemoryTitle, h, rows)
	fmt.Fprintln(w)
	for _, s := range floodVerdict(res) {
		fmt.Fprintln(w, s)
	}
}

// mdFlood adds the results to rep.
func mdFlood(rep *report, res *floodResults) {
	for _, s := range floodIntro(res) {
		rep.para(s)
	}
	rep.para(floodPhaseTitle)
	rep.table(floodPhaseTable(res))
	rep.para(floodMemoryTitle)
	rep.table(floodMemoryTable(res))
	for _, s := range floodVerdict(res) {
		rep.para(s)
	}
}

// msRound is ms milliseconds as a duration, to the millisecond.
func msRound(ms float64) time.Duration {
	return time.Duration(ms * float64(time.Millisecond)).Round(time.Millisecond)
}
