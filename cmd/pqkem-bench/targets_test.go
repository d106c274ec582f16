package main

import (
	"strings"
	"testing"
	"time"

	"github.com/pqkem/pqkem/internal/dudect"
	"github.com/pqkem/pqkem/kem"
)

// TestHarnessSeesEarlyExit runs in every go test: the early-exit compare
// control must give a clear leak in a fraction of a second, so a broken
// timer or a broken statistic cannot pass unnoticed. (A 1-byte against a
// 1024-byte loop differ by hundreds of cycles: no load makes that vanish.)
func TestHarnessSeesEarlyExit(t *testing.T) {
	targets := selectTargets(allTargets(), "control/early-exit")
	if len(targets) != 1 {
		t.Fatalf("found %d early-exit controls", len(targets))
	}
	res, err := targets[0].run(20000, 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%s: %v", targets[0].name(), res)
	if !(res.T > 10*dudect.LeakThreshold) {
		t.Errorf("early-exit compare: |t| = %.2f, want far above %.0f", res.T, float64(dudect.LeakThreshold))
	}
}

// TestTargetList checks that the list covers every scheme and sampler on
// every path, under unique names.
func TestTargetList(t *testing.T) {
	names := make(map[string]bool)
	for _, tg := range allTargets() {
		if names[tg.name()] {
			t.Errorf("two targets are called %s", tg.name())
		}
		names[tg.name()] = true
	}
	var want []string
	for _, path := range codePaths() {
		for _, s := range kem.All() {
			want = append(want, s.Name()+"/Decapsulate/"+path)
			if kem.SingleUse(s) {
				want = append(want, s.Name()+"/Alice0/"+path, s.Name()+"/Bob/"+path)
			}
		}
		for _, smp := range pakeSamplers {
			want = append(want, "pake sampler/Sample "+smp.String()+"/"+path)
		}
		want = append(want, "control/A/A ML-KEM-768 Decapsulate/"+path)
	}
	for _, w := range want {
		if !names[w] {
			t.Errorf("no target %s", w)
		}
	}
	if got := selectTargets(allTargets(), " ML-KEM-768/DECAP , nothing"); len(got) != len(codePaths()) ||
		!strings.HasPrefix(got[0].name(), "ML-KEM-768/Decapsulate/") {
		t.Errorf("selectTargets(ML-KEM-768/DECAP) gave %d targets", len(got))
	}
}

// The targets of a single-use scheme prepare their inputs: its keys come
// from kemtest.GenerateKey, the scheme making none from bytes.
func TestSingleUseTargetsPrepare(t *testing.T) {
	n := 0
	for _, tg := range selectTargets(allTargets(), "Frodo-CCS2016-Recommended") {
		if tg.Path != codePaths()[0] {
			continue
		}
		n++
		split, err := tg.prepare()
		if err != nil {
			t.Fatalf("%s: %v", tg.name(), err)
		}
		for class := range 2 {
			split.Setup(class, 0)
			split.Run()
		}
	}
	if n != 3 { // Decapsulate, Alice0, Bob
		t.Errorf("%d targets of Frodo-CCS2016-Recommended on one path, want 3", n)
	}
}
