package tunnel

import (
	"io"
	"log"
	"sync"
	"time"

	"github.com/pqkem/pqkem/internal/ratelimit"
)

// A Log writes a tunnel's events, one line an event with the UTC time.
// Failures go through a [ratelimit.Summary]: in each interval the first
// failure of each cause is written in full and the others counted, in a
// line a cause once the interval is over, so that a flood of failures
// cannot fill a disk.
type Log struct {
	l        *log.Logger
	quiet    bool
	interval time.Duration
	sum      *ratelimit.Summary
	stop     chan struct{}
	done     chan struct{}
	once     sync.Once
}

// NewLog returns a Log writing to w with the prefix, such as
// "pqkem serve: "; with quiet, Infof writes nothing. interval is the
// summary's interval (0 writes every failure). Close it when done.
func NewLog(w io.Writer, prefix string, quiet bool, interval time.Duration) *Log {
	l := &Log{l: log.New(w, prefix, log.LstdFlags|log.LUTC|log.Lmsgprefix), quiet: quiet, interval: interval}
	l.sum = ratelimit.NewSummary(interval, func(line string) { l.l.Print(line) })
	if interval > 0 {
		l.stop, l.done = make(chan struct{}), make(chan struct{})
		go l.flushEvery(interval)
	}
	return l
}

// flushEvery writes the counts of each interval, even when no failure
// follows them.
func (l *Log) flushEvery(interval time.Duration) {
	defer close(l.done)
	t := time.NewTicker(interval / 4)
	defer t.Stop()
	for {
		select {
		case now := <-t.C:
			l.sum.Flush(now)
		case <-l.stop:
			return
		}
	}
}

// Printf logs an event that is always logged: the start, the stop, a
// reload.
func (l *Log) Printf(format string, args ...any) { l.l.Printf(format, args...) }

// Infof logs an event of a connection that succeeds, unless quiet.
func (l *Log) Infof(format string, args ...any) {
	if !l.quiet {
		l.l.Printf(format, args...)
	}
}

// Failure logs a failure of the kind cause (a short word), rate-limited:
// the line is "cause: detail".
func (l *Log) Failure(cause, detail string) {
	l.sum.Event(cause, detail, time.Now())
}

// Close writes the counts not written yet and stops the Log's
// goroutine. The Log may still be written to after.
func (l *Log) Close() {
	l.once.Do(func() {
		if l.stop != nil {
			close(l.stop)
			<-l.done
		}
		l.sum.Flush(time.Now().Add(l.interval))
	})
}
