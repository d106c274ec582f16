package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/netip"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"
)

// The random-bytes flood runs in a child process, this same program
// started again with attackerEnv set, as it would run on another machine.
// In the real client's process its hundreds of goroutines would share the
// client's Go scheduler: the client's wake-ups would wait behind theirs,
// and the latency measured would be the bench's, not serve's. Client,
// attacker and server still share the machine's CPUs.
//
// The parent sends a line to the child's standard input to ask for the
// counts so far, and the child answers "SENT DIALERRS" on a line of its
// standard output; at the end of its standard input the child stops the
// flood and exits.

// attackerEnv holds "ADDR WORKERS SIZE SOURCES" in the child: flood ADDR
// with WORKERS workers and first messages of SIZE bytes, from SOURCES
// loopback addresses from 127.0.0.2 on, or from any address if 0.
const attackerEnv = "PQKEM_BENCH_FLOOD_ATTACKER"

// attackerMain is the child's main; it returns its exit status.
func attackerMain(spec string, stdin io.Reader, stdout, stderr io.Writer) int {
	f := strings.Fields(spec)
	var workers, size, n int
	var err error
	if len(f) == 4 {
		workers, err = strconv.Atoi(f[1])
		if err == nil {
			size, err = strconv.Atoi(f[2])
		}
		if err == nil {
			n, err = strconv.Atoi(f[3])
		}
	}
	if len(f) != 4 || err != nil || workers < 1 || size < 1 || size > 0xffff || n < 0 || n > maxFloodSources {
		fmt.Fprintf(stderr, "pqkem-bench: bad %s %q\n", attackerEnv, spec)
		return 2
	}
	sources := []net.Addr{nil}
	if n > 0 {
		sources = loopbackSources(n)
	}
	fl := startFlood(context.Background(), f[0], workers, size, sources)
	in := bufio.NewScanner(stdin)
	for in.Scan() {
		fmt.Fprintf(stdout, "%d %d\n", fl.sent.Load(), fl.dialErrs.Load())
	}
	fl.stop()
	return 0
}

// loopbackSources is n addresses from 127.0.0.2 on.
func loopbackSources(n int) []net.Addr {
	addrs := make([]net.Addr, n)
	ip := netip.AddrFrom4([4]byte{127, 0, 0, 2})
	for i := range addrs {
		addrs[i] = net.TCPAddrFromAddrPort(netip.AddrPortFrom(ip, 0))
		ip = ip.Next()
	}
	return addrs
}

// A floodProc is the flood's child process.
type floodProc struct {
	cmd   *exec.Cmd
	in    io.WriteCloser
	out   *bufio.Scanner
	pid   int
	ended bool
}

// startFloodProc starts the flood in a child process: workers workers
// send first messages of size bytes to addr from sources loopback
// addresses (0: any address).
func startFloodProc(addr string, workers, size, sources int) (*floodProc, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("starting the flood: %w", err)
	}
	cmd := exec.Command(exe)
	// GOMAXPROCS=1: a one-core flood.
	cmd.Env = append(os.Environ(), fmt.Sprintf("%s=%s %d %d %d", attackerEnv, addr, workers, size, sources), "GOMAXPROCS=1")
	cmd.Stderr = os.Stderr
	cmd.SysProcAttr = childSysProcAttr()
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting the flood: %w", err)
	}
	return &floodProc{cmd: cmd, in: in, out: bufio.NewScanner(out), pid: cmd.Process.Pid}, nil
}

// counts asks the child for the first messages sent and the failed
// connects so far.
func (p *floodProc) counts() (sent, dialErrs int64, err error) {
	if _, err := io.WriteString(p.in, "\n"); err != nil {
		return 0, 0, fmt.Errorf("the flood's process: %w", err)
	}
	if !p.out.Scan() {
		return 0, 0, errors.New("the flood's process ended")
	}
	if _, err := fmt.Sscan(p.out.Text(), &sent, &dialErrs); err != nil {
		return 0, 0, fmt.Errorf("the flood's process said %q", p.out.Text())
	}
	return sent, dialErrs, nil
}

// stop ends the flood: it closes the child's standard input, and kills
// the child if it has not exited a few seconds later.
func (p *floodProc) stop() {
	if p.ended {
		return
	}
	p.ended = true
	p.in.Close()
	done := make(chan struct{})
	go func() {
		p.cmd.Wait()
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		p.cmd.Process.Kill()
		<-done
	}
}
