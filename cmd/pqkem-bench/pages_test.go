package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/pqkem/pqkem/internal/cli"
	"github.com/pqkem/pqkem/kem"
	"github.com/pqkem/pqkem/noise"
)

func TestPagesJSON(t *testing.T) {
	args := []string{"pages", "-alg", "TLS-X25519,ML-KEM-768", "-pages", "1,1024", "-rounds", "2", "-sample", "20ms",
		"-clients", "2", "-bulk", "1", "-handshakes", "2", "-json"}
	code, stdout, stderr := pqkemBench(t, args...)
	wantCode(t, args, code, cli.ExitOK, stderr)
	var res pagesResults
	if err := json.Unmarshal([]byte(stdout), &res); err != nil {
		t.Fatalf("pages -json output does not parse: %v\n%s", err, stdout)
	}
	if res.Clients != 2 || res.Rounds != 2 || len(res.Pages) != 2 || len(res.Contenders) != 2 {
		t.Fatalf("results: %d clients, %d rounds, pages %v, %d contenders; want 2, 2, [1 1024], 2", res.Clients, res.Rounds, res.Pages, len(res.Contenders))
	}
	for _, pc := range res.Contenders {
		if len(pc.Pages) != 2 {
			t.Fatalf("%s: %d page results, want 2", pc.Label, len(pc.Pages))
		}
		for _, pr := range pc.Pages {
			if len(pr.PerRound) != 2 || pr.ConnsPerSec <= 0 {
				t.Errorf("%s, %d B: %v connections a second over the rounds, median %v; want 2 rounds, positive", pc.Label, pr.Size, pr.PerRound, pr.ConnsPerSec)
			}
			for _, l := range []latency{pr.Loaded, pr.Unloaded} {
				if l.Requests == 0 || l.MedianMs <= 0 || l.P99Ms < l.MedianMs {
					t.Errorf("%s, %d B: latency %+v; want requests, a positive median and a 99th percentile at least as large", pc.Label, pr.Size, l)
				}
			}
			if pr.RatioTLSX25519MLKEM768 != 0 {
				t.Errorf("%s: a ratio to TLS-X25519MLKEM768, which did not run", pc.Label)
			}
		}
		if pc.Handshake.HeapBytes <= 0 || pc.Handshake.HeapAllocs <= 0 {
			t.Errorf("%s: handshake heap %+v, want positive", pc.Label, pc.Handshake)
		}
	}
	tlsc, nc := res.Contenders[0], res.Contenders[1]
	if tlsc.Name != "TLS-X25519" || !strings.Contains(tlsc.Protocol, "TLS_AES_") || nc.Name != "ML-KEM-768" {
		t.Errorf("contenders %q (%s), %q; want TLS-X25519 with its cipher suite, ML-KEM-768", tlsc.Name, tlsc.Protocol, nc.Name)
	}
	for _, pr := range tlsc.Pages {
		if pr.RatioTLSX25519 != 1 {
			t.Errorf("TLS-X25519's ratio to itself is %v", pr.RatioTLSX25519)
		}
	}
	// The Noise handshake on the wire: each message with an empty payload
	// and its 2-byte length, and the client's confirmation (an empty
	// transport message: a 16-byte tag).
	s, _ := kem.ByName("ML-KEM-768")
	p := noise.Protocol{Pattern: noise.PQNK, KEM: s, Cipher: noise.AESGCM, Hash: noise.SHA256}
	sizes := p.MessageSizes()
	const confirmation = 2 + 16
	if nc.Protocol != p.String() || nc.Handshake.ClientToServer != int64(2+sizes[0]+confirmation) || nc.Handshake.ServerToClient != int64(2+sizes[1]) {
		t.Errorf("%s: %s, %d and %d bytes; want %v, %d and %d", nc.Label, nc.Protocol, nc.Handshake.ClientToServer, nc.Handshake.ServerToClient, p, 2+sizes[0]+confirmation, 2+sizes[1])
	}
	if tlsc.Handshake.ClientToServer == 0 || tlsc.Handshake.ServerToClient == 0 {
		t.Errorf("TLS handshake of %d and %d bytes", tlsc.Handshake.ClientToServer, tlsc.Handshake.ServerToClient)
	}
	if len(res.Bulk) != 2 || res.BulkMiB != 1 || len(res.Bulk[0].PerRound) != 2*bulkRoundsPer {
		t.Fatalf("bulk: %d results of %d MiB, want 2 of 1 with %d rounds", len(res.Bulk), res.BulkMiB, 2*bulkRoundsPer)
	}
	for _, b := range res.Bulk {
		if len(b.PerRound) != 2*bulkRoundsPer || b.MiBPerS <= 0 || b.Ratio <= 0 {
			t.Errorf("bulk %s: %+v; want %d rounds, positive throughput and ratio", b.Label, b, 2*bulkRoundsPer)
		}
	}
	if res.Bulk[1].Ratio != 1 || !strings.HasPrefix(res.Bulk[1].Label, "TLS") || !strings.Contains(res.Bulk[1].Protocol, "TLS_AES_") {
		t.Errorf("bulk: the last contender is %s (%s) with ratio %v, want TLS, with its cipher suite, with 1", res.Bulk[1].Label, res.Bulk[1].Protocol, res.Bulk[1].Ratio)
	}
	if !strings.Contains(stderr, "2 rounds done") {
		t.Errorf("no progress line on stderr: %q", stderr)
	}
}

func TestPagesTable(t *testing.T) {
	stdout, md, file := runReport(t, "pages", "-alg", "TLS-X25519MLKEM768,DHKEM-X25519-HKDF-SHA256", "-pages", "1", "-rounds", "1", "-sample", "10ms", "-clients", "2", "-bulk", "0", "-handshakes", "1")
	for _, want := range []string{"Connections per second with 2 clients", "TLS 1.3 X25519MLKEM768", "pqNK DHKEM-X25519-HKDF-SHA256", "1.00x", "unloaded (one client)", "heap KiB"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("pages output lacks %q:\n%s", want, stdout)
		}
	}
	if strings.Contains(stdout, "Bulk") {
		t.Errorf("-bulk 0 printed a bulk table:\n%s", stdout)
	}
	checkReport(t, md, "pqkem-bench pages -alg TLS-X25519MLKEM768,DHKEM-X25519-HKDF-SHA256 -bulk 0 -clients 2 -handshakes 1 -md "+file+" -pages 1 -rounds 1 -sample 10ms",
		"| contender | 1 B |", "| TLS 1.3 X25519MLKEM768 | ", "| pqNK DHKEM-X25519-HKDF-SHA256 | ",
		"| contender | protocol | client → server B | server → client B | heap KiB | allocations |", "Noise_pqNK_DHKEM-X25519-HKDF-SHA256_AESGCM_SHA256")
}

// TestPagesEphemeralOnly runs a scheme that is only for ephemeral keys,
// which pages runs as pqNN.
func TestPagesEphemeralOnly(t *testing.T) {
	args := []string{"pages", "-alg", "eFrodoKEM-640-SHAKE", "-pages", "0", "-rounds", "1", "-sample", "10ms", "-clients", "1", "-bulk", "0", "-handshakes", "1", "-json"}
	code, stdout, stderr := pqkemBench(t, args...)
	wantCode(t, args, code, cli.ExitOK, stderr)
	var res pagesResults
	if err := json.Unmarshal([]byte(stdout), &res); err != nil {
		t.Fatal(err)
	}
	if pc := res.Contenders[0]; pc.Protocol != "Noise_pqNN_eFrodoKEM-640-SHAKE_AESGCM_SHA256" || !strings.HasPrefix(pc.Label, "pqNN ") || pc.Pages[0].Loaded.Requests == 0 {
		t.Errorf("eFrodoKEM-640-SHAKE ran as %q (%s), %d requests; want pqNN", pc.Label, pc.Protocol, pc.Pages[0].Loaded.Requests)
	}
}

// TestPagesDefaults checks that the default contenders all resolve, and
// that the Frodo paper's key exchange is among them, as pqNN, where the
// registry has it.
func TestPagesDefaults(t *testing.T) {
	names := defaultPageNames()
	secs, err := pageContenders(names)
	if err != nil {
		t.Fatal(err)
	}
	_, hasCCS := kem.ByName(frodoCCS2016Name)
	last := secs[len(secs)-1]
	if ccs := names[len(names)-1] == frodoCCS2016Name; ccs != (hasCCS == nil) || ccs && !strings.HasPrefix(last.protocol, "Noise_pqNN_") {
		t.Errorf("default contenders end with %s (%s); the registry has %s: %v", names[len(names)-1], last.protocol, frodoCCS2016Name, hasCCS == nil)
	}
}

// TestPagesSplit checks the contenders with a static key of one scheme
// and ephemeral keys of another.
func TestPagesSplit(t *testing.T) {
	secs, err := pageContenders([]string{"FrodoKEM-640-AES+ML-KEM-768e"})
	if err != nil {
		t.Fatal(err)
	}
	if s := secs[0]; s.label != "pqNK FrodoKEM-640-AES+ML-KEM-768e" || s.protocol != "Noise_pqNK_MLKEM768+FrodoKEM-640-AES_AESGCM_SHA256" {
		t.Errorf("label %q, protocol %q", s.label, s.protocol)
	}
	for _, name := range []string{"FrodoKEM-640-AES+ML-KEM-768", "FrodoKEM-640-AES+Nope-e", "eFrodoKEM-640-AES+ML-KEM-768e", "ML-KEM-768+ML-KEM-768e"} {
		if _, err := pageContenders([]string{name}); err == nil {
			t.Errorf("-alg %s: no error", name)
		}
	}
}

func TestPagesUsage(t *testing.T) {
	checkUsage(t, []usageCase{
		{[]string{"pages", "-rounds", "0"}, "-rounds must be at least 1"},
		{[]string{"pages", "-sample", "0s"}, "-sample must be positive"},
		{[]string{"pages", "-clients", "0"}, "-clients must be at least 1"},
		{[]string{"pages", "-bulk", "-1"}, "-bulk must not be negative"},
		{[]string{"pages", "-handshakes", "0"}, "-handshakes must be at least 1"},
		{[]string{"pages", "-pages", "1,x"}, `invalid page size "x"`},
		{[]string{"pages", "-pages", "1,1"}, "page size 1 given twice"},
		{[]string{"pages", "-alg", "TLS-P256"}, "TLS-X25519MLKEM768"},
		{[]string{"pages", "-alg", "ML-KEM-768,ml-kem-768"}, "-alg: ml-kem-768 given twice"},
		{[]string{"pages", "-pages", "16777217"}, `invalid page size "16777217"`},
		{[]string{"pages", "extra"}, `unexpected argument "extra"`},
	})
}
