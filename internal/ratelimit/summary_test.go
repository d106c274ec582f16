package ratelimit

import (
	"fmt"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pqkem/pqkem/internal/leaktest"
)

// recorder collects the lines a Summary emits.
type recorder struct {
	mu    sync.Mutex
	lines []string
}

func (r *recorder) emit(line string) {
	r.mu.Lock()
	r.lines = append(r.lines, line)
	r.mu.Unlock()
}

// take returns the lines emitted since the last call.
func (r *recorder) take() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	l := r.lines
	r.lines = nil
	return l
}

func TestSummary(t *testing.T) {
	// An action is an event (cause and detail) or, with cause "", a
	// flush, at a time in seconds, and the lines it must emit.
	type action struct {
		at            float64
		cause, detail string
		want          []string
	}
	tests := []struct {
		name     string
		interval time.Duration
		actions  []action
	}{
		{"first in full, then counted", 10 * time.Second, []action{
			{0, "timeout", "192.0.2.1: no first message in 10s", []string{"timeout: 192.0.2.1: no first message in 10s"}},
			{1, "timeout", "192.0.2.2", nil},
			{2, "tampered", "192.0.2.3: bad frame", []string{"tampered: 192.0.2.3: bad frame"}},
			{3, "timeout", "192.0.2.4", nil},
			{9.9, "replay", "192.0.2.5", []string{"replay: 192.0.2.5"}},
			{9.9, "tampered", "192.0.2.6", nil},
			// The interval is over: the counts, sorted by cause, then the
			// new event in full, which starts the next interval.
			{10, "timeout", "192.0.2.7", []string{
				"1 more tampered failures in the last 10s",
				"2 more timeout failures in the last 10s",
				"timeout: 192.0.2.7",
			}},
			{11, "timeout", "192.0.2.8", nil},
			{25, "", "", []string{"1 more timeout failures in the last 10s"}},
			{26, "timeout", "192.0.2.9", []string{"timeout: 192.0.2.9"}},
		}},
		{"flush waits for the interval's end", time.Minute, []action{
			{0, "", "", nil},
			{0, "reset", "a", []string{"reset: a"}},
			{1, "reset", "b", nil},
			{59, "", "", nil},
			{60, "", "", []string{"1 more reset failures in the last 1m0s"}},
			{61, "", "", nil},
			{62, "reset", "c", []string{"reset: c"}},
		}},
		{"an interval without repeats writes no counts", time.Second, []action{
			{0, "a", "x", []string{"a: x"}},
			{0, "b", "y", []string{"b: y"}},
			{5, "a", "z", []string{"a: z"}},
		}},
		{"time going backwards ends nothing", time.Second, []action{
			{10, "a", "x", []string{"a: x"}},
			{0, "a", "y", nil},
			{0, "", "", nil},
			{11, "", "", []string{"1 more a failures in the last 1s"}},
		}},
		{"zero interval writes everything", 0, []action{
			{0, "a", "x", []string{"a: x"}},
			{0, "a", "y", []string{"a: y"}},
			{0, "", "", nil},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var r recorder
			s := NewSummary(tt.interval, r.emit)
			for i, a := range tt.actions {
				if a.cause == "" {
					s.Flush(at(a.at))
				} else {
					s.Event(a.cause, a.detail, at(a.at))
				}
				if got := r.take(); strings.Join(got, "\n") != strings.Join(a.want, "\n") {
					t.Fatalf("action %d: emitted %q, want %q", i, got, a.want)
				}
			}
		})
	}
}

func TestSummaryCausesBounded(t *testing.T) {
	var r recorder
	s := NewSummary(time.Second, r.emit)
	for round := range 3 {
		for c := range 100 {
			s.Event("cause"+strconv.Itoa(c), "detail", t0)
			if round == 0 && c == MaxCauses-2 {
				if n := len(r.lines); n != MaxCauses-1 {
					t.Fatalf("%d lines for %d causes", n, MaxCauses-1)
				}
			}
		}
	}
	full := r.take()
	// The first MaxCauses-1 causes, then the first of the others, in
	// full, under its own name.
	if len(full) != MaxCauses {
		t.Fatalf("%d lines in full, want %d: %q", len(full), MaxCauses, full)
	}
	if want := fmt.Sprintf("cause%d: detail", MaxCauses-1); full[MaxCauses-1] != want {
		t.Errorf("last full line %q, want %q", full[MaxCauses-1], want)
	}
	if len(s.more) > MaxCauses {
		t.Errorf("%d causes kept, want at most %d", len(s.more), MaxCauses)
	}
	s.Flush(at(1))
	counts := r.take()
	if len(counts) != MaxCauses {
		t.Fatalf("%d count lines, want %d: %q", len(counts), MaxCauses, counts)
	}
	// 300 events: MaxCauses lines in full, each of the MaxCauses-1 named
	// causes twice more, and the rest under other.
	wantOther := 300 - MaxCauses - 2*(MaxCauses-1)
	if want := fmt.Sprintf("%d more other failures in the last 1s", wantOther); !strings.Contains(strings.Join(counts, "\n"), want) {
		t.Errorf("count lines %q, want one %q", counts, want)
	}
	if counts[0] != "2 more cause0 failures in the last 1s" {
		t.Errorf("first count line %q", counts[0])
	}
}

func TestSummaryConcurrent(t *testing.T) {
	leaktest.Check(t)
	var r recorder
	s := NewSummary(time.Second, r.emit)
	const workers, events = 8, 500
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for i := range events {
				// The clock moves on: some events end an interval.
				s.Event("cause"+strconv.Itoa(i%5), strconv.Itoa(w), at(float64(i)/100))
			}
		})
	}
	wg.Wait()
	s.Flush(at(100))
	// Every event is written in full or counted exactly once.
	total := 0
	for _, line := range r.take() {
		if n, rest, ok := strings.Cut(line, " more "); ok && strings.HasSuffix(rest, " failures in the last 1s") {
			k, err := strconv.Atoi(n)
			if err != nil {
				t.Fatalf("line %q", line)
			}
			total += k
		} else {
			total++
		}
	}
	if total != workers*events {
		t.Errorf("%d events written or counted, want %d", total, workers*events)
	}
}
