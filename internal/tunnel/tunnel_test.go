package tunnel

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"os"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/pqkem/pqkem/internal/leaktest"
)

// tcpPair returns the two ends of a loopback TCP connection.
func tcpPair(t testing.TB) (*net.TCPConn, *net.TCPConn) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	c, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	s, err := ln.Accept()
	if err != nil {
		t.Fatal(err)
	}
	return c.(*net.TCPConn), s.(*net.TCPConn)
}

// readEnd reads c to its end and says how it ended: "fin" or "rst".
func readEnd(c net.Conn) (string, []byte) {
	c.SetReadDeadline(time.Now().Add(10 * time.Second))
	b, err := io.ReadAll(c)
	switch {
	case err == nil:
		return "fin", b
	case errors.Is(err, syscall.ECONNRESET):
		return "rst", b
	}
	return err.Error(), b
}

// TestForwardClean checks that each direction's end is passed on as a
// half-close, so that a request and its answer both get through, and
// that the result says both ended cleanly.
func TestForwardClean(t *testing.T) {
	leaktest.Check(t)
	app, a := tcpPair(t)
	b, svc := tcpPair(t)
	defer app.Close()
	defer svc.Close()
	done := make(chan *Result, 1)
	go func() { done <- Forward(context.Background(), a, b, [2]string{"client", "service"}, Options{}) }()
	app.Write([]byte("request"))
	app.CloseWrite()
	end, got := readEnd(svc)
	if end != "fin" || string(got) != "request" {
		t.Fatalf("the service read %q and %s, want the request and a FIN", got, end)
	}
	svc.Write([]byte("answer"))
	svc.CloseWrite()
	end, got = readEnd(app)
	if end != "fin" || string(got) != "answer" {
		t.Fatalf("the application read %q and %s, want the answer and a FIN", got, end)
	}
	r := <-done
	if r.Err != nil || r.AB.Bytes != 7 || r.BA.Bytes != 6 || !r.AB.SourceEnded || !r.BA.SourceEnded {
		t.Errorf("result %+v, want both clean", r)
	}
}

// TestForwardFailure checks that a reset on one side resets the other,
// and that cutting by the context resets both.
func TestForwardFailure(t *testing.T) {
	leaktest.Check(t)
	for _, how := range []string{"reset", "cut", "idle"} {
		t.Run(how, func(t *testing.T) {
			app, a := tcpPair(t)
			b, svc := tcpPair(t)
			defer app.Close()
			defer svc.Close()
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			opts := Options{}
			if how == "idle" {
				opts.Idle = 100 * time.Millisecond
			}
			done := make(chan *Result, 1)
			go func() { done <- Forward(ctx, a, b, [2]string{"client", "service"}, opts) }()
			app.Write([]byte("partial"))
			buf := make([]byte, 7)
			svc.SetReadDeadline(time.Now().Add(10 * time.Second))
			io.ReadFull(svc, buf)
			switch how {
			case "reset":
				app.SetLinger(0)
				app.Close()
			case "cut":
				cancel()
			}
			if end, _ := readEnd(svc); end != "rst" {
				t.Errorf("the service's connection ended with %s, want a reset", end)
			}
			if how != "reset" {
				if end, _ := readEnd(app); end != "rst" {
					t.Errorf("the application's connection ended with %s, want a reset", end)
				}
			}
			r := <-done
			want := map[string]error{"reset": syscall.ECONNRESET, "cut": ErrCut, "idle": ErrIdle}[how]
			if !errors.Is(r.Err, want) {
				t.Errorf("result error %v, want %v", r.Err, want)
			}
		})
	}
}

// TestHandshakesEviction checks the pool's rule: a new connection over
// the bound takes the place of the oldest that has sent nothing, or if
// all have, the oldest; and the per-source bound works the same within
// a source.
func TestHandshakesEviction(t *testing.T) {
	h := newHandshakes(3, 2)
	conn := func() net.Conn { a, _ := net.Pipe(); return a }
	p1, v := h.add(conn(), "a")
	p2, _ := h.add(conn(), "b")
	p3, _ := h.add(conn(), "c")
	if v != nil {
		t.Fatal("a victim before the pool is full")
	}
	h.start(p1)
	p4, v := h.add(conn(), "d")
	if v != p2 {
		t.Errorf("the pool full: dropped %v, want the oldest that sent nothing", v)
	}
	h.start(p3)
	if _, v = h.add(conn(), "e"); v != p4 {
		t.Errorf("dropped %v, want the one idle one", v)
	}
	h.start(p1)
	h.start(p3)
	// Now p1, p3 and the "e" one; only "e" is idle.
	if _, v = h.add(conn(), "f"); v == p1 || v == p3 {
		t.Errorf("dropped a started one while one was idle")
	}
	// Per source: the third from "x" drops the first from "x".
	h = newHandshakes(100, 2)
	x1, _ := h.add(conn(), "x")
	h.add(conn(), "x")
	_, v = h.add(conn(), "x")
	if v != x1 {
		t.Errorf("per source: dropped %v, want the first of its source", v)
	}
	if _, v = h.add(conn(), "y"); v != nil {
		t.Error("another source's connection dropped one")
	}
	select {
	case <-x1.evicted:
	default:
		t.Error("a dropped entry is not told")
	}
	if h.len() != 3 {
		t.Errorf("%d in the pool, want 3", h.len())
	}
}

// TestSourceKey checks the per-source keys.
func TestSourceKey(t *testing.T) {
	for _, tc := range []struct {
		addr net.Addr
		want string
	}{
		{&net.TCPAddr{IP: net.ParseIP("192.0.2.7"), Port: 1}, "192.0.2.7"},
		{&net.TCPAddr{IP: net.ParseIP("::ffff:192.0.2.7"), Port: 1}, "192.0.2.7"},
		{&net.TCPAddr{IP: net.ParseIP("2001:db8:1:2:3:4:5:6"), Port: 1}, "2001:db8:1:2::/64"},
		{&net.UnixAddr{Name: "/x", Net: "unix"}, ""},
		{&net.TCPAddr{}, ""},
	} {
		if got := sourceKey(tc.addr); got != tc.want {
			t.Errorf("sourceKey(%v) = %q, want %q", tc.addr, got, tc.want)
		}
	}
}

// echoProxy starts a Proxy on loopback whose back end is an echo, with
// the handshake waiting for the first bytes.
func echoProxy(t testing.TB, lim Limits, logw io.Writer) (*Proxy, string) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &Proxy{
		Limits:         lim,
		WaitFirstBytes: true,
		Names:          [2]string{"client", "echo"},
		Dial: func(ctx context.Context, c *Conn) error {
			a, b := tcpPairFrom(t)
			go func() {
				defer b.Close()
				io.Copy(b, b)
				b.CloseWrite()
			}()
			c.Back = a
			return nil
		},
		Log: NewLog(logw, "test: ", false, 0),
	}
	done := p.Start(ln)
	t.Cleanup(func() {
		p.StopAccepting()
		<-done
		p.Cut()
		p.Wait()
	})
	return p, ln.Addr().String()
}

func tcpPairFrom(t testing.TB) (*net.TCPConn, *net.TCPConn) { return tcpPair(t) }

// TestProxyIdleSockets opens 2,000 sockets that send nothing to a proxy
// that waits for the first bytes, and measures what each costs: heap
// and goroutine stacks, both ends being in this process. A client that
// sends at once gets through while they are open.
func TestProxyIdleSockets(t *testing.T) {
	leaktest.Check(t)
	n := 2000
	if testing.Short() || openFileLimit() < 5000 {
		n = 200
	}
	var logw syncWriter
	p, addr := echoProxy(t, Limits{MaxConns: 16, MaxHandshakes: 10_000, Timeout: time.Minute}, &logw)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	conns := make([]net.Conn, 0, n)
	defer func() {
		for _, c := range conns {
			c.Close()
		}
	}()
	for range n {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		conns = append(conns, c)
	}
	for deadline := time.Now().Add(20 * time.Second); p.Open() < n; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%d of %d sockets accepted", p.Open(), n)
		}
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	heap := float64(after.HeapInuse) - float64(before.HeapInuse)
	stacks := float64(after.StackInuse) - float64(before.StackInuse)
	perSocket := (heap + stacks) / float64(n)
	t.Logf("%d idle sockets: %.0f bytes of heap and %.0f of goroutine stacks each, both ends; %.1f MB for 10,000", n, heap/float64(n), stacks/float64(n), perSocket*10_000/1e6)
	if perSocket*10_000 > 100e6 {
		t.Errorf("10,000 idle sockets would cost %.0f MB, want under 100", perSocket*10_000/1e6)
	}
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(10 * time.Second))
	c.Write([]byte("hello"))
	c.(*net.TCPConn).CloseWrite()
	if got, err := io.ReadAll(c); err != nil || string(got) != "hello" {
		t.Errorf("a real client among the idle sockets: %q, %v", got, err)
	}
}

// TestProxyDropsOldestIdle fills a pool of 10 with idle sockets: each new
// one drops the oldest, and a client that sends at once is served.
func TestProxyDropsOldestIdle(t *testing.T) {
	leaktest.Check(t)
	var logw syncWriter
	_, addr := echoProxy(t, Limits{MaxConns: 4, MaxHandshakes: 10, Timeout: time.Minute}, &logw)
	var conns []net.Conn
	defer func() {
		for _, c := range conns {
			c.Close()
		}
	}()
	for range 30 {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		conns = append(conns, c)
	}
	// The first are dropped: reset.
	if end, _ := readEnd(conns[0]); end != "rst" {
		t.Errorf("the oldest idle socket ended with %s, want a reset", end)
	}
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(10 * time.Second))
	c.Write([]byte("hi"))
	c.(*net.TCPConn).CloseWrite()
	if got, err := io.ReadAll(c); err != nil || string(got) != "hi" {
		t.Errorf("a client after 30 idle sockets in a pool of 10: %q, %v", got, err)
	}
	if !strings.Contains(logw.String(), "dropped: ") {
		t.Errorf("no drop in the log:\n%s", logw.String())
	}
}

type syncWriter struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (w *syncWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.Write(p)
}

func (w *syncWriter) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.String()
}

// TestFailureLimit checks the per-source limit of failed handshakes: a
// source is blocked once its burst of failures is spent, for a token's
// time, and only it.
func TestFailureLimit(t *testing.T) {
	l := newFailureLimit(10, 3, 100)
	now := time.Unix(1000, 0)
	for i := range 3 {
		if !l.allow("a", now) {
			t.Fatalf("blocked after %d failures, within the burst of 3", i)
		}
		l.failed("a", now)
	}
	l.failed("a", now)
	if l.allow("a", now) {
		t.Error("not blocked once the burst is spent")
	}
	if !l.allow("b", now) {
		t.Error("another source is blocked")
	}
	if l.allow("a", now.Add(50*time.Millisecond)) {
		t.Error("unblocked before a token came back")
	}
	if !l.allow("a", now.Add(100*time.Millisecond)) {
		t.Error("still blocked after a token's time")
	}
}

// scriptedListener's Accept returns its errors one by one, then its
// connection, then net.ErrClosed.
type scriptedListener struct {
	net.Listener
	errs  []error
	conn  net.Conn
	calls int
}

func (l *scriptedListener) Accept() (net.Conn, error) {
	l.calls++
	if len(l.errs) > 0 {
		err := l.errs[0]
		l.errs = l.errs[1:]
		return nil, err
	}
	if c := l.conn; c != nil {
		l.conn = nil
		return c, nil
	}
	return nil, net.ErrClosed
}

// TestAccept checks that Accept retries temporary errors (EMFILE,
// ENFILE), returns any other error and a timeout, and returns nil,
// nil once quit is closed.
func TestAccept(t *testing.T) {
	a, b := net.Pipe()
	defer a.Close()
	defer b.Close()
	quit := make(chan struct{})
	l := &scriptedListener{errs: []error{syscall.EMFILE, syscall.ENFILE}, conn: a}
	if c, err := Accept(l, quit); c != a || err != nil || l.calls != 3 {
		t.Errorf("after two temporary errors: %v, %v after %d calls; want the connection after 3", c, err, l.calls)
	}
	if c, err := Accept(l, quit); c != nil || !errors.Is(err, net.ErrClosed) {
		t.Errorf("a closed listener: %v, %v; want net.ErrClosed", c, err)
	}
	timeout := &net.OpError{Op: "accept", Err: os.ErrDeadlineExceeded}
	l = &scriptedListener{errs: []error{timeout}}
	if c, err := Accept(l, quit); c != nil || err != timeout {
		t.Errorf("a timeout: %v, %v; want it returned", c, err)
	}
	close(quit)
	l = &scriptedListener{errs: []error{syscall.EMFILE, syscall.EMFILE}}
	if c, err := Accept(l, quit); c != nil || err != nil {
		t.Errorf("after quit: %v, %v; want nil, nil", c, err)
	}
}
