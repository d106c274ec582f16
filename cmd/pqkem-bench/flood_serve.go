package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// The child process side of flood: the pqkem command it runs, serve's
// process and log, and the echo service serve forwards to.

// buildPqkem builds the pqkem command of the module that the current
// directory is in into dir and returns its path.
func buildPqkem(ctx context.Context, dir string) (string, error) {
	out, err := exec.CommandContext(ctx, "go", "env", "GOMOD").Output()
	if err != nil {
		return "", fmt.Errorf("go env GOMOD: %w (give -pqkem PATH)", err)
	}
	gomod := strings.TrimSpace(string(out))
	if gomod == "" || gomod == os.DevNull {
		return "", errors.New("not in a module: run from pqkem's module or give -pqkem PATH")
	}
	data, err := os.ReadFile(gomod)
	if err != nil {
		return "", err
	}
	if !regexp.MustCompile(`(?m)^module\s+github\.com/pqkem/pqkem\s*$`).Match(data) {
		return "", fmt.Errorf("%s is not pqkem's module: run from it or give -pqkem PATH", gomod)
	}
	bin := filepath.Join(dir, "pqkem")
	cmd := exec.CommandContext(ctx, "go", "build", "-buildvcs=true", "-o", bin, "./cmd/pqkem")
	cmd.Dir = filepath.Dir(gomod)
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build ./cmd/pqkem: %w\n%s", err, bytes.TrimSpace(out))
	}
	return bin, nil
}

// runPqkem runs the pqkem command bin with args and returns its standard
// output.
func runPqkem(ctx context.Context, bin string, args ...string) (string, error) {
	var stdout, stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		if msg := bytes.TrimSpace(stderr.Bytes()); len(msg) > 0 {
			return "", fmt.Errorf("pqkem %s: %w: %s", args[0], err, msg)
		}
		return "", fmt.Errorf("pqkem %s: %w", args[0], err)
	}
	return stdout.String(), nil
}

// A serveProc is a running pqkem serve.
type serveProc struct {
	cmd   *exec.Cmd
	addr  string // where it listens
	pid   int
	lines atomic.Int64 // lines it has logged

	mu   sync.Mutex
	tail []string // its last lines, for an error

	done    chan struct{} // closed once it has exited
	waitErr error
}

// serveStartTimeout bounds how long serve may take to say where it
// listens.
const serveStartTimeout = 20 * time.Second

// serveTailLines is how many of serve's last log lines an error quotes.
const serveTailLines = 5

// listeningAddr returns the address in serve's start line, "listening
// on ADDR, ...": the first word after "listening on" that is a host and
// a port, or "".
func listeningAddr(line string) string {
	_, rest, ok := strings.Cut(line, "listening on ")
	if !ok {
		return ""
	}
	for _, w := range strings.Fields(rest) {
		w = strings.Trim(w, ",;()[]<>\"'`")
		if _, port, err := net.SplitHostPort(w); err == nil && port != "" && strings.Trim(port, "0123456789") == "" {
			return w
		}
	}
	return ""
}

// serveStarted is called with the process id of each serve started; the
// tests replace it to check that none is left running.
var serveStarted = func(pid int) {}

// startServe starts bin serve with args, which must include -listen,
// and waits until it logs where it listens ("listening on ADDR"). It is killed when ctx ends
// or stop is called.
func startServe(ctx context.Context, bin string, args []string) (*serveProc, error) {
	cmd := exec.CommandContext(ctx, bin, append([]string{"serve"}, args...)...)
	cmd.SysProcAttr = childSysProcAttr()
	cmd.WaitDelay = 2 * time.Second
	// Its standard output and error both go to the log we read, wherever
	// a version of serve writes its start line.
	logR, logW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	cmd.Stdout, cmd.Stderr = logW, logW
	err = cmd.Start()
	logW.Close()
	if err != nil {
		logR.Close()
		return nil, err
	}
	s := &serveProc{cmd: cmd, pid: cmd.Process.Pid, done: make(chan struct{})}
	serveStarted(s.pid)
	addrc := make(chan string, 1)
	go func() {
		s.readLog(logR, addrc) // until serve exits and the pipe ends
		logR.Close()
		s.waitErr = cmd.Wait()
		close(s.done)
	}()
	timer := time.NewTimer(serveStartTimeout)
	defer timer.Stop()
	select {
	case s.addr = <-addrc:
		return s, nil
	case <-s.done:
		return nil, fmt.Errorf("serve exited: %v: %s", s.waitErr, s.lastLines())
	case <-timer.C:
		s.stop()
		return nil, fmt.Errorf("serve did not say where it listens within %v: %s", serveStartTimeout, s.lastLines())
	case <-ctx.Done():
		s.stop()
		return nil, ctx.Err()
	}
}

// readLog reads serve's log until it ends: it counts the lines, keeps the
// last ones and sends the listening address once on addrc. Reading all
// of it also keeps serve from blocking on a full pipe when a flood makes
// it log a line a connection.
func (s *serveProc) readLog(r io.Reader, addrc chan<- string) {
	br := bufio.NewReaderSize(r, 64<<10)
	found := false
	for {
		line, err := br.ReadString('\n')
		if line != "" {
			s.lines.Add(1)
			line = strings.TrimRight(line, "\r\n")
			s.mu.Lock()
			if len(s.tail) == serveTailLines {
				s.tail = s.tail[1:]
			}
			s.tail = append(s.tail, line)
			s.mu.Unlock()
			if addr := listeningAddr(line); addr != "" && !found {
				found = true
				addrc <- addr
			}
		}
		if err != nil {
			return
		}
	}
}

// lastLines is the last lines serve logged, on one line.
func (s *serveProc) lastLines() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.tail) == 0 {
		return "(no log)"
	}
	return strings.Join(s.tail, " / ")
}

// exited reports whether serve has exited, and why.
func (s *serveProc) exited() error {
	select {
	case <-s.done:
		return fmt.Errorf("serve exited: %v: %s", s.waitErr, s.lastLines())
	default:
		return nil
	}
}

// stop kills serve and waits for it.
func (s *serveProc) stop() {
	s.cmd.Process.Kill()
	<-s.done
}

// An echoServer is the service behind serve: it sends back what it reads.
type echoServer struct {
	ln       net.Listener
	accepted atomic.Int64

	mu     sync.Mutex
	conns  map[net.Conn]struct{}
	closed bool
	wg     sync.WaitGroup
}

func startEcho() (*echoServer, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	e := &echoServer{ln: ln, conns: make(map[net.Conn]struct{})}
	e.wg.Go(e.serve)
	return e, nil
}

func (e *echoServer) serve() {
	for {
		c, err := e.ln.Accept()
		if err != nil {
			if ne, ok := errors.AsType[net.Error](err); ok && ne.Timeout() {
				continue
			}
			if errors.Is(err, net.ErrClosed) {
				return
			}
			time.Sleep(10 * time.Millisecond) // out of files, say: try again
			continue
		}
		e.accepted.Add(1)
		e.mu.Lock()
		if e.closed {
			e.mu.Unlock()
			c.Close()
			return
		}
		e.conns[c] = struct{}{}
		e.mu.Unlock()
		e.wg.Go(func() {
			io.Copy(c, c)
			c.Close()
			e.mu.Lock()
			delete(e.conns, c)
			e.mu.Unlock()
		})
	}
}

func (e *echoServer) addr() string { return e.ln.Addr().String() }

// close stops the service and closes its connections.
func (e *echoServer) close() {
	e.ln.Close()
	e.mu.Lock()
	e.closed = true
	for c := range e.conns {
		c.Close()
	}
	e.mu.Unlock()
	e.wg.Wait()
}
