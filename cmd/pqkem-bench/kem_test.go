package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/pqkem/pqkem/internal/cli"
	"github.com/pqkem/pqkem/internal/cpuid"
)

func TestKEMJSON(t *testing.T) {
	args := []string{"kem", "-rounds", "3", "-sample", "1ms", "-json"}
	code, stdout, stderr := pqkemBench(t, args...)
	wantCode(t, args, code, cli.ExitOK, stderr)
	var results []benchResult
	if err := json.Unmarshal([]byte(stdout), &results); err != nil {
		t.Fatalf("kem -json output does not parse: %v\n%s", err, stdout)
	}
	type key struct{ scheme, op, impl string }
	got := make(map[key]benchResult)
	for _, r := range results {
		got[key{r.Scheme, r.Operation, r.Impl}] = r
		if len(r.SamplesNs) != 3 || r.MedianNs <= 0 || r.Ratio <= 0 {
			t.Errorf("%+v: want 3 positive samples, a positive median and ratio", r)
		}
	}
	ours := "pqkem"
	if cpuid.HasAVX2() {
		ours = "pqkem-avx2"
	}
	for _, scheme := range []string{"ML-KEM-512", "ML-KEM-768", "ML-KEM-1024"} {
		for _, op := range benchOps {
			impls := []string{ours, "circl"}
			if scheme != "ML-KEM-512" {
				impls = append(impls, "crypto/mlkem")
			}
			if cpuid.HasAVX2() {
				impls = append(impls, "pqkem-generic")
			}
			for _, impl := range impls {
				r, ok := got[key{scheme, op, impl}]
				if !ok {
					t.Errorf("no result for %s %s %s", scheme, op, impl)
				}
				if impl == ours && r.Ratio != 1 {
					t.Errorf("%s %s: ratio of pqkem to itself is %v", scheme, op, r.Ratio)
				}
			}
		}
	}
	if !strings.Contains(stderr, "round 3 of 3") {
		t.Errorf("no progress line on stderr: %q", stderr)
	}
}

func TestKEMTable(t *testing.T) {
	stdout, md, file := runReport(t, "kem", "-alg", "ml-kem-768", "-rounds", "1", "-sample", "1ms")
	for _, want := range []string{"ML-KEM-768  keygen", "ML-KEM-768  encapsulate", "ML-KEM-768  decapsulate", "crypto/mlkem", "circl"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("kem table does not contain %q:\n%s", want, stdout)
		}
	}
	checkReport(t, md, "pqkem-bench kem -alg ml-kem-768 -md "+file+" -rounds 1 -sample 1ms",
		"| scheme | operation | pqkem", "| ML-KEM-768 | keygen | ", "| ML-KEM-768 | decapsulate | ", "x) |")
}

// A single-use scheme is timed on keys from GenerateKey, a fresh one for
// each decapsulation: every operation gives a positive time.
func TestKEMSingleUse(t *testing.T) {
	args := []string{"kem", "-alg", "Frodo-CCS2016-Recommended", "-rounds", "1", "-sample", "1ms", "-json"}
	code, stdout, stderr := pqkemBench(t, args...)
	wantCode(t, args, code, cli.ExitOK, stderr)
	var results []benchResult
	if err := json.Unmarshal([]byte(stdout), &results); err != nil {
		t.Fatalf("kem -json output does not parse: %v\n%s", err, stdout)
	}
	if len(results) != len(benchOps) {
		t.Fatalf("%d results, want %d: %+v", len(results), len(benchOps), results)
	}
	for i, r := range results {
		if r.Scheme != "Frodo-CCS2016-Recommended" || r.Operation != benchOps[i] || r.MedianNs <= 0 || r.Ratio != 1 {
			t.Errorf("%+v: want a positive time for %s", r, benchOps[i])
		}
	}
}
