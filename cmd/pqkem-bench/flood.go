package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/pqkem/pqkem/internal/cli"
	"github.com/pqkem/pqkem/noise"
)

var cmdFlood = &cli.Command{
	Name:    "flood",
	Summary: "measure how a running pqkem serve holds up under idle sockets and a handshake flood",
	Args:    "[-pqkem PATH] [-alg NAME] [-n N] [-rounds N] [-idle-sockets N] [-flood-workers N] [-forwarded N] [-sources N] [-client-timeout DURATION] [-serve-flags FLAGS] [-timeout DURATION] [-json] [-md FILE]",
	Doc: `
Flood runs 'pqkem serve' as a child process, as an operator would, and
measures from outside how a real client fares while the server is under
attack, and what the attack costs the server. It works with any version
of serve that takes -key, -listen, -to and -quiet and logs "listening on
ADDR" when it starts, whatever its insides.

It builds the pqkem command of the module it is run in (go build
-buildvcs=true ./cmd/pqkem, in a temporary folder) or runs -pqkem PATH,
makes a server key of scheme -alg with 'pqkem keygen' and its public key
with 'pqkem pub', starts an echo service on loopback and runs

  pqkem serve -key KEY -listen 127.0.0.1:0 -to ECHO -quiet [-serve-flags]

The real client runs in this process: noise.Dialer with the server's
public key, pqNK and serve's default cipher and hash (AESGCM, SHA256),
from 127.0.0.1. One connection is a TCP connect, the handshake, one byte
sent and its echo read, then a close; its time is the latency. In each of
three phases the client makes -n connections, one after another, and the
phases take turns in -rounds rounds (each round makes its share of the
-n of each phase, and starts its own idle sockets and flood), so that
the machine's other load weighs on them alike:

  unloaded       nothing else runs.
  idle sockets   -idle-sockets TCP connections are opened to serve before
                 the phase and held open for all of it; they never send a
                 byte. Those that cannot connect within a second (a full
                 listening queue) are counted and not retried, and those
                 the server closes are not reopened: the table says how
                 many were open at the start and at the end.
  flood          -flood-workers goroutines each connect, send a first
                 handshake message of the right size (the 2-byte length,
                 then random bytes) and leave the connection for the
                 server to close (or close it after a second), over and
                 over, each keeping up to 64 such connections open: the
                 server always has a bogus handshake to work on. They run
                 in a child process (this program again) with
                 GOMAXPROCS=1, a flood of at most one core, as they
                 would on another machine: the real client does not
                 wait behind them for its own process's scheduler.

A failed connection of the real client (a timeout after -client-timeout,
a reset, a close) is a result, counted by cause, not an error. Each phase
ends after -n connections or a fifth of -timeout (shared by its
rounds), whichever comes first; a phase cut short says so. Between the idle-socket phase and the flood
the idle sockets are closed and the client tries until it gets through
again: the recovery time (the longest of the rounds').

The attack comes from loopback addresses of its own, 127.0.0.2 onwards
(-sources of them, one by default), so that a server that limits each
source address tells the attacker from the real client; where the
system cannot bind them (only Linux routes all of 127.0.0.0/8 by
default), the attack shares the client's address, and the report says
so.

For each phase the tables give the connections made and failed, the
median and 99th percentile of the latency, the 99th percentile as a
ratio to the unloaded one (which should stay within 3x), the CPU time
serve used (user and system, from /proc/PID/stat) and this process
used (client, idle sockets and echo service; the flood's process's
is in its load column), the lines serve logged, and the
connections it made to the echo service. Memory is serve's resident set
(VmRSS in /proc/PID/status): before and after opening the first
round's idle sockets,
for the bytes per idle socket (sockets that wait in the listening queue,
not yet accepted, cost the kernel's memory, not serve's); and, with a
fresh serve
(-max set to -forwarded plus 64, so that all fit), before and after
opening -forwarded connections that complete the handshake and echo a
byte, then stay open, for the bytes per forwarded connection. The CPU
and memory figures need Linux's /proc; elsewhere they read n/a.

The soft limit on open files is raised to the hard one; if that is too
low for -idle-sockets or -forwarded (whose echo connections also count),
fewer are used, and the report says so. The whole run is bounded by
-timeout; on an error, at -timeout or on an interrupt, serve is killed
and every socket closed. The figures are only as steady as the machine:
client, attacker and server share its CPUs.

-serve-flags passes more flags to every serve it starts (split at
spaces), for example a newer serve's limits; the client's cipher and hash
stay the defaults.`,
	Example: `
pqkem-bench flood
pqkem-bench flood -n 50 -idle-sockets 2000 -flood-workers 1 -forwarded 100
pqkem-bench flood -alg FrodoKEM-640-AES -sources 64 -md flood.md
pqkem-bench flood -pqkem ./pqkem -serve-flags '-max 1024 -timeout 5s' -json`,
	New: func() cli.Runner { return new(floodCmd) },
}

// floodCmd is one run of pqkem-bench flood.
type floodCmd struct {
	pqkem         string
	alg           string
	n             int
	rounds        int
	idleSockets   int
	floodWorkers  int
	forwarded     int
	sources       int
	clientTimeout time.Duration
	serveFlags    string
	timeout       time.Duration
	outputFlags
}

// maxFloodSources is the largest -sources: 127.0.0.2 onwards stays in
// 127.0.0.0/8.
const maxFloodSources = 1 << 16

func (c *floodCmd) Flags(fs *flag.FlagSet) {
	fs.StringVar(&c.pqkem, "pqkem", "", "the pqkem command to measure, at `PATH`; by default it is built from the module in the current directory")
	fs.StringVar(&c.alg, "alg", "ML-KEM-768", "the scheme `NAME` of the server's key")
	fs.IntVar(&c.n, "n", 1000, "`N` connections of the real client in each phase")
	fs.IntVar(&c.rounds, "rounds", 5, "the phases take turns in `N` rounds")
	fs.IntVar(&c.idleSockets, "idle-sockets", 10000, "`N` idle TCP connections held open during the second phase")
	fs.IntVar(&c.floodWorkers, "flood-workers", 2, "`N` goroutines sending random first handshake messages during the third phase")
	fs.IntVar(&c.forwarded, "forwarded", 500, "`N` forwarded connections held open for serve's memory per connection; 0 skips it")
	fs.IntVar(&c.sources, "sources", 1, "`N` loopback addresses the attack comes from, 127.0.0.2 onwards (Linux)")
	fs.DurationVar(&c.clientTimeout, "client-timeout", noise.DefaultHandshakeTimeout, "how long the real client waits for one connection: connect, handshake and echo")
	fs.StringVar(&c.serveFlags, "serve-flags", "", "more `FLAGS` for pqkem serve, separated by spaces")
	fs.DurationVar(&c.timeout, "timeout", 5*time.Minute, "the longest the whole run may take; each phase gets a fifth of it")
	c.outputFlags.define(fs, true)
}

func (c *floodCmd) Run(out *cli.Output, args []string) error {
	if err := cli.NoArgs(args); err != nil {
		return err
	}
	switch {
	case c.n < 1:
		return cli.Usagef("-n must be at least 1, got %d", c.n)
	case c.rounds < 1 || c.rounds > c.n:
		return cli.Usagef("-rounds must be from 1 to -n (%d), got %d", c.n, c.rounds)
	case c.idleSockets < 0:
		return cli.Usagef("-idle-sockets must not be negative, got %d", c.idleSockets)
	case c.floodWorkers < 0:
		return cli.Usagef("-flood-workers must not be negative, got %d", c.floodWorkers)
	case c.forwarded < 0:
		return cli.Usagef("-forwarded must not be negative, got %d", c.forwarded)
	case c.sources < 1 || c.sources > maxFloodSources:
		return cli.Usagef("-sources must be from 1 to %d, got %d", maxFloodSources, c.sources)
	case c.clientTimeout <= 0:
		return cli.Usagef("-client-timeout must be positive, got %v", c.clientTimeout)
	case c.timeout <= 0:
		return cli.Usagef("-timeout must be positive, got %v", c.timeout)
	case c.alg == "":
		return cli.Usagef("-alg must name a scheme")
	}
	sigCtx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	ctx, cancel := context.WithTimeout(sigCtx, c.timeout)
	defer cancel()
	res, err := c.bench(ctx, out.Stderr)
	if err != nil {
		fmt.Fprintln(out.Stderr)
		switch {
		case sigCtx.Err() != nil:
			return errors.New("interrupted")
		case ctx.Err() != nil:
			return fmt.Errorf("not done within -timeout %v: %w", c.timeout, err)
		}
		return err
	}
	return c.write(out.Stdout, res,
		func(w io.Writer) { printFlood(w, res) },
		"pqkem serve under idle sockets and a handshake flood",
		func(r *report) { mdFlood(r, res) })
}

// serveFlagList is -serve-flags split at spaces.
func (c *floodCmd) serveFlagList() []string {
	return strings.Fields(c.serveFlags)
}
