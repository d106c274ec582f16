package ratelimit

import (
	"fmt"
	"slices"
	"sync"
	"time"
)

// A Summary writes events, such as failed handshakes, to a log at a
// bounded rate: within an interval, the first event of each cause is
// written in full and the others only counted; once the interval is over,
// the next [Summary.Event] or [Summary.Flush] writes a line with the
// count of each cause that had more, and a new interval starts with the
// next event. However many events come, an interval writes at most two
// lines for each of at most [MaxCauses] causes.
//
// A Summary is safe for concurrent use.
type Summary struct {
	interval time.Duration
	emit     func(line string)

	mu sync.Mutex
	// active tells whether an interval is running, start when it
	// started.
	active bool
	start  time.Time
	// more counts, for each cause seen in the interval, its events after
	// the first.
	more map[string]int
}

// MaxCauses bounds the causes a [Summary] tells apart in an interval:
// the events of causes beyond the first MaxCauses-1 count under
// [OtherCause].
const MaxCauses = 32

// OtherCause is the cause under which a [Summary] counts the events of
// causes beyond [MaxCauses].
const OtherCause = "other"

// NewSummary returns a summary with intervals of interval that writes
// its lines with emit. emit is called with the summary locked, so that
// lines come in order: it must not call the summary's methods. An
// interval of zero or less writes every event in full.
func NewSummary(interval time.Duration, emit func(line string)) *Summary {
	return &Summary{interval: interval, emit: emit, more: make(map[string]int)}
}

// Event records an event of cause at now, with detail saying what
// happened. The first event of a cause in an interval is written in full,
// as "cause: detail"; the others are counted.
func (s *Summary) Event(cause, detail string, now time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.interval <= 0 {
		s.emit(cause + ": " + detail)
		return
	}
	s.flush(now)
	if !s.active {
		s.active, s.start = true, now
	}
	key := cause
	if _, seen := s.more[key]; !seen && len(s.more) >= MaxCauses-1 {
		key = OtherCause
	}
	if _, seen := s.more[key]; seen {
		s.more[key]++
		return
	}
	s.more[key] = 0
	s.emit(cause + ": " + detail)
}

// Flush writes, if the current interval is over at now, a line
// "N more CAUSE failures in the last INTERVAL" for each cause with N
// events counted and not written, in the order of the causes, and ends
// the interval. Call it every interval, so that the counts are written
// when no more events come; to write them at once (when the program
// ends), pass a now an interval ahead.
func (s *Summary) Flush(now time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.flush(now)
}

// flush is Flush with s locked.
func (s *Summary) flush(now time.Time) {
	if !s.active || now.Sub(s.start) < s.interval {
		return
	}
	causes := make([]string, 0, len(s.more))
	for c, n := range s.more {
		if n > 0 {
			causes = append(causes, c)
		}
	}
	slices.Sort(causes)
	for _, c := range causes {
		s.emit(fmt.Sprintf("%d more %s failures in the last %v", s.more[c], c, s.interval))
	}
	clear(s.more)
	s.active = false
}
