package main

import (
	"strings"
	"testing"
)

func TestPake(t *testing.T) {
	stdout, md, file := runReport(t, "pake", "-rounds", "1", "-sample", "1ms")
	for _, want := range []string{"gen_a", "NoIC init+resp+end", "Tempo init+resp+end", "ML-KEM kg+enc+dec", "C1/A0", "Tempo-C1 / NoIC-A0", "Medians of 1 rounds"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("pake output lacks %q:\n%s", want, stdout)
		}
	}
	checkReport(t, md, "pqkem-bench pake -md "+file+" -rounds 1 -sample 1ms",
		"| level | what | A0 µs | A1 µs | B0 µs | C1 µs | A1/A0 | B0/A0 | C1/A0 |", "| 768 | Tempo init+resp+end | ",
		"| level | Tempo-C1 / NoIC-A0 | NoIC-A0 / ML-KEM |", "| 1024 | ")
}
