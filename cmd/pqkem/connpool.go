package main

import (
	"net"
	"sync"

	"github.com/pqkem/pqkem/internal/tunnel"
)

// A connPool serves the connections a listener accepts, each in a
// goroutine of its own, at most max at once: while max connections are
// being served the pool does not call Accept, so further connections wait
// in the listener's queue (the kernel's backlog) until one ends. The
// listener of pqkem pake uses it; pqkem serve and pqkem connect -listen
// have package internal/tunnel's.
type connPool struct {
	max  int
	quit chan struct{} // closed by stopAccepting
	once sync.Once
	ln   net.Listener
	wg   sync.WaitGroup // the accept loop and the handlers

	mu       sync.Mutex
	conns    map[net.Conn]bool // the connections being served
	accepted int               // connections accepted
	closed   bool              // closeAll was called
}

func newConnPool(max int) *connPool {
	return &connPool{max: max, quit: make(chan struct{}), conns: make(map[net.Conn]bool)}
}

// listenHook, if set (by tests), is called with the address of the
// listener a pool starts on.
var listenHook func(net.Addr)

// start accepts connections from ln in a goroutine of its own and runs
// handle for each in another, until Accept fails or stopAccepting is
// called; the connection is closed when handle returns. The channel
// receives the error that ended the accept loop: Accept's, or nil after
// stopAccepting. Temporary errors are retried, as [tunnel.Accept] does.
func (p *connPool) start(ln net.Listener, handle func(net.Conn)) <-chan error {
	p.ln = ln
	if listenHook != nil {
		listenHook(ln.Addr())
	}
	done := make(chan error, 1)
	p.wg.Go(func() { done <- p.acceptLoop(ln, handle) })
	return done
}

func (p *connPool) acceptLoop(ln net.Listener, handle func(net.Conn)) error {
	slots := make(chan struct{}, p.max)
	for {
		select {
		case slots <- struct{}{}: // wait for a free slot before accepting
		case <-p.quit:
			return nil
		}
		conn, err := tunnel.Accept(ln, p.quit)
		if conn == nil {
			return err
		}
		if !p.add(conn) {
			conn.Close()
			<-slots
			continue
		}
		p.wg.Go(func() {
			defer func() {
				p.remove(conn)
				conn.Close()
				<-slots
			}()
			handle(conn)
		})
	}
}

func (p *connPool) add(conn net.Conn) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.accepted++
	if p.closed {
		return false
	}
	p.conns[conn] = true
	return true
}

func (p *connPool) remove(conn net.Conn) {
	p.mu.Lock()
	defer p.mu.Unlock()
	delete(p.conns, conn)
}

// stopAccepting ends the accept loop and closes the listener; the
// connections being served go on.
func (p *connPool) stopAccepting() {
	p.once.Do(func() {
		close(p.quit)
		if p.ln != nil {
			p.ln.Close()
		}
	})
}

// closeAll closes every connection being served, and any accepted after
// it, so that their handlers return.
func (p *connPool) closeAll() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.closed = true
	for c := range p.conns {
		c.Close()
	}
}

// acceptedCount returns the number of connections accepted so far.
func (p *connPool) acceptedCount() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.accepted
}

// wait waits for the accept loop, once stopped, and for every handler.
func (p *connPool) wait() { p.wg.Wait() }
