package main

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
)

// A pagesTable is one table of the results: a title, a header and rows,
// printed as text or Markdown.
type pagesTable struct {
	title  string
	header []string
	rows   [][]string
}

// pagesTables lays the results out as the tables both outputs show.
func pagesTables(res *pagesResults) []pagesTable {
	sizeCols := func(first string) []string {
		h := []string{first}
		for _, n := range res.Pages {
			h = append(h, pageSizeLabel(n))
		}
		return h
	}
	perPage := func(cell func(*pageResult) string) [][]string {
		var rows [][]string
		for _, pc := range res.Contenders {
			row := []string{pc.Label}
			for _, pr := range pc.Pages {
				row = append(row, cell(pr))
			}
			rows = append(rows, row)
		}
		return rows
	}
	tables := []pagesTable{{
		title: fmt.Sprintf("Connections per second with %d clients, one handshake per connection: medians of %d rounds of %v.",
			res.Clients, res.Rounds, msDuration(res.SampleMs)),
		header: sizeCols("contender"),
		rows:   perPage(func(pr *pageResult) string { return fmt.Sprintf("%.0f", pr.ConnsPerSec) }),
	}}
	if hasRatio(res) {
		tables = append(tables, pagesTable{
			title:  "Connections per second as a ratio to TLS 1.3 X25519 / to TLS 1.3 X25519MLKEM768 in the same run (1.50x: one and a half times as many).",
			header: sizeCols("contender"),
			rows: perPage(func(pr *pageResult) string {
				return ratioCell(pr.RatioTLSX25519) + " / " + ratioCell(pr.RatioTLSX25519MLKEM768)
			}),
		})
	}
	if hasCPU(res) {
		tables = append(tables, pagesTable{
			title:  fmt.Sprintf("CPU time per connection in µs, both sides (user and system time of the process over the %d-client runs): medians of the rounds.", res.Clients),
			header: sizeCols("contender"),
			rows:   perPage(func(pr *pageResult) string { return fmt.Sprintf("%.0f", pr.CPUPerConnUs) }),
		})
	}
	tables = append(tables, pagesTable{
		title:  "Time of one request (connect, handshake, request, whole page), median / 99th percentile in ms, unloaded (one client).",
		header: sizeCols("contender"),
		rows:   perPage(func(pr *pageResult) string { return latencyCell(pr.Unloaded) }),
	}, pagesTable{
		title:  fmt.Sprintf("Time of one request, median / 99th percentile in ms, loaded (%d clients).", res.Clients),
		header: sizeCols("contender"),
		rows:   perPage(func(pr *pageResult) string { return latencyCell(pr.Loaded) }),
	})
	hs := pagesTable{
		title:  "One handshake: bytes on the wire each way (framing and TLS record headers included, TCP/IP headers not), and the heap both sides allocate.",
		header: []string{"contender", "protocol", "client → server B", "server → client B", "heap KiB", "allocations"},
	}
	for _, pc := range res.Contenders {
		h := pc.Handshake
		hs.rows = append(hs.rows, []string{pc.Label, pc.Protocol,
			fmt.Sprint(h.ClientToServer), fmt.Sprint(h.ServerToClient),
			fmt.Sprintf("%.1f", h.HeapBytes/1024), fmt.Sprintf("%.0f", h.HeapAllocs)})
	}
	tables = append(tables, hs)
	if len(res.Bulk) > 0 {
		bt := pagesTable{
			title: fmt.Sprintf("Bulk: %d MiB over one connection, server to client, after the handshake: medians of %d rounds; CPU time of both sides per MiB.",
				res.BulkMiB, len(res.Bulk[0].PerRound)),
			header: []string{"contender", "protocol", "MiB/s", "ratio to TLS", "CPU ms per MiB"},
		}
		for _, b := range res.Bulk {
			bt.rows = append(bt.rows, []string{b.Label, b.Protocol, fmt.Sprintf("%.0f", b.MiBPerS), ratioCell(b.Ratio), fmt.Sprintf("%.2f", b.CPUPerMiBMs)})
		}
		tables = append(tables, bt)
	}
	return tables
}

func hasRatio(res *pagesResults) bool {
	for _, pc := range res.Contenders {
		for _, pr := range pc.Pages {
			if pr.RatioTLSX25519 != 0 || pr.RatioTLSX25519MLKEM768 != 0 {
				return true
			}
		}
	}
	return false
}

func hasCPU(res *pagesResults) bool {
	for _, pc := range res.Contenders {
		for _, pr := range pc.Pages {
			if pr.CPUPerConnUs != 0 {
				return true
			}
		}
	}
	return false
}

func ratioCell(r float64) string {
	if r == 0 {
		return "-"
	}
	return fmt.Sprintf("%.2fx", r)
}

func latencyCell(l latency) string {
	if l.Requests == 0 {
		return "-"
	}
	return fmt.Sprintf("%.2f / %.2f", l.MedianMs, l.P99Ms)
}

func msDuration(ms float64) string {
	if ms >= 1000 {
		return fmt.Sprintf("%gs", ms/1000)
	}
	return fmt.Sprintf("%gms", ms)
}

// pageSizeLabel is "1 B", "1 KiB", "10 KiB" and so on.
func pageSizeLabel(n int) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d B", n)
}

const pagesNote = "Client and server run in one process on loopback and share its CPUs: each figure is the work of both sides. Every connection is a new TCP connection and one full handshake. pqNK authenticates the server by its static key, which the client knows; pqNN, for a scheme that is only safe for ephemeral keys, has no static key and authenticates neither side. Every Noise contender runs AESGCM (AES-256-GCM) and SHA256; the handshake table gives the cipher suite TLS 1.3 chose."

// printPages prints the tables as text.
func printPages(w io.Writer, res *pagesResults) {
	fmt.Fprintln(w, pagesNote)
	for _, t := range pagesTables(res) {
		fmt.Fprintf(w, "\n%s\n\n", t.title)
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, strings.Join(t.header, "\t")+"\t")
		for _, row := range t.rows {
			fmt.Fprintln(tw, strings.Join(row, "\t")+"\t")
		}
		tw.Flush()
	}
}

// mdPages adds the tables to rep.
func mdPages(rep *report, res *pagesResults) {
	rep.para(pagesNote)
	for _, t := range pagesTables(res) {
		rep.para(t.title)
		rep.table(t.header, t.rows)
	}
}
