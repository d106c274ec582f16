package main

import (
	"errors"
	"fmt"
	"os"
	"os/signal"
	"sync"
	"syscall"
)

// pending are the files an interrupted run removes: the temporary files
// being written and the outputs it created (see [outputs.write]). Every
// change to them, and to the set, happens under
// the lock, which the interrupt takes and keeps until the process exits:
// no file appears after the interrupt has removed the others.
var pending = struct {
	sync.Mutex
	names   map[string]bool
	stopped bool
}{names: make(map[string]bool)}

var errInterrupted = errors.New("interrupted")

// addPending runs create, which makes the file name, and adds name to the
// pending files if it succeeds.
func addPending(name string, create func() error) error {
	pending.Lock()
	defer pending.Unlock()
	if pending.stopped {
		return errInterrupted
	}
	if err := create(); err != nil {
		return err
	}
	pending.names[name] = true
	return nil
}

// linkPending links the pending file tmp to name, which becomes pending
// in its place.
func linkPending(tmp, name string) error {
	pending.Lock()
	defer pending.Unlock()
	if err := os.Link(tmp, name); err != nil {
		return err
	}
	pending.names[name] = true
	os.Remove(tmp)
	delete(pending.names, tmp)
	return nil
}

// renamePending renames the pending file tmp to name, which becomes
// pending in its place if created (a file that was there is not removed
// on an interrupt: its old contents are gone).
func renamePending(tmp, name string, created bool) error {
	pending.Lock()
	defer pending.Unlock()
	if err := os.Rename(tmp, name); err != nil {
		return fmt.Errorf("%s: %w", name, unwrapPath(err))
	}
	delete(pending.names, tmp)
	if created {
		pending.names[name] = true
	}
	return nil
}

// removePending removes the files names and forgets them.
func removePending(names ...string) {
	pending.Lock()
	defer pending.Unlock()
	for _, name := range names {
		if pending.names[name] {
			os.Remove(name)
			delete(pending.names, name)
		}
	}
}

// exit exits with status code once the command has run: it takes the
// lock of the pending files for good, so that an interrupt from now on
// neither removes them nor changes the status. Until then the files a run
// created stay pending, complete or not: an interrupted run leaves none.
func exit(code int) {
	pending.Lock() // kept: the process exits
	os.Exit(code)
}

// handleInterrupts makes SIGINT and SIGTERM remove the pending files, say
// so on standard error and exit with status 128 plus the signal's number,
// as a shell reports a command the signal killed; while a command that
// stops gracefully is running (see [notifyStop]), it gets the signals
// instead.
func handleInterrupts() {
	c := make(chan os.Signal, 1)
	signal.Notify(c, os.Interrupt, syscall.SIGTERM)
	go func() {
		sig := <-c
		for deliverStop(sig) {
			sig = <-c
		}
		pending.Lock() // kept: the process exits
		pending.stopped = true
		for name := range pending.names {
			os.Remove(name)
		}
		fmt.Fprintf(os.Stderr, "%s: %v: stopped, unfinished files removed\n", runningCommand(), sig)
		code := 128 + 2
		if s, ok := sig.(syscall.Signal); ok {
			code = 128 + int(s)
		}
		os.Exit(code)
	}()
}

// stoppers are the channels of the commands running that stop gracefully
// on SIGINT and SIGTERM (pqkem serve, pqkem connect), each with the
// number of signals it was sent.
var stoppers = struct {
	sync.Mutex
	chans map[chan os.Signal]int
}{chans: make(map[chan os.Signal]int)}

// maxStopSignals is the number of signals a command that stops
// gracefully gets: the first starts the graceful stop, the second makes
// it quick. A further signal ends the process as if no command took them.
const maxStopSignals = 2

// notifyStop makes SIGINT and SIGTERM send on the returned channel
// instead of ending the process, until release is called: the command
// stops gracefully, and exits with its own status. The channel gets the
// first maxStopSignals signals; the next ends the process (see
// [handleInterrupts]), in case the command does not end.
func notifyStop() (stop <-chan os.Signal, release func()) {
	c := make(chan os.Signal, maxStopSignals)
	stoppers.Lock()
	stoppers.chans[c] = 0
	stoppers.Unlock()
	return c, func() {
		stoppers.Lock()
		delete(stoppers.chans, c)
		stoppers.Unlock()
	}
}

// deliverStop sends sig to the commands that stop gracefully and have
// not had maxStopSignals yet, and reports whether there were any: if not,
// the signal ends the process. Tests call it in place of a signal.
func deliverStop(sig os.Signal) bool {
	stoppers.Lock()
	defer stoppers.Unlock()
	delivered := false
	for c, n := range stoppers.chans {
		if n < maxStopSignals {
			c <- sig // never blocks: the channel holds maxStopSignals
			stoppers.chans[c] = n + 1
			delivered = true
		}
	}
	return delivered
}

// runningCommand names the command the process runs, "pqkem keygen", for
// a line on standard error outside the frame's; "pqkem" if it is unknown.
func runningCommand() string {
	if len(os.Args) > 1 {
		if c := program.Lookup(os.Args[1]); c != nil {
			return program.Name + " " + c.Name
		}
	}
	return program.Name
}
