package tunnel

import (
	"container/list"
	"net"
	"sync"
)

// handshakes is the pool of the connections in their handshake: from
// accept until they have proven they completed it and hold a place among
// the forwarded connections. It holds at most max, and at most perSource
// from one source; a new connection over either bound takes the place of
// the oldest one that has sent nothing yet (of its source, for the
// source's bound), or if all have, of the oldest. So sockets that stay
// idle, however many, cannot keep a client that runs its handshake at
// once from getting in: it only has to finish before max newer
// connections (perSource from its own source) arrive.
type handshakes struct {
	max, perSource int

	mu       sync.Mutex
	waiting  list.List // of *pending that have sent nothing, oldest first
	started  list.List // of *pending that have sent their first bytes
	bySource map[string]*list.List
	closed   bool // closeAll was called: no more entries
}

// A pending connection is one entry of the pool.
type pending struct {
	conn    net.Conn // as accepted
	source  string   // the key of its source, "" if none
	started bool
	elem    *list.Element // in waiting or started
	srcElem *list.Element // in bySource[source]
	removed bool          // no longer in the pool
	evicted chan struct{} // closed when it is dropped for another
}

func newHandshakes(max, perSource int) *handshakes {
	return &handshakes{max: max, perSource: perSource, bySource: make(map[string]*list.List)}
}

// add enters conn, from the source key source ("": no per-source bound),
// and returns its entry and the entry it displaced, if any, which the
// caller resets. After closeAll it returns a nil entry.
func (h *handshakes) add(conn net.Conn, source string) (p, victim *pending) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return nil, nil
	}
	if source != "" && h.perSource > 0 {
		if l := h.bySource[source]; l != nil && l.Len() >= h.perSource {
			victim = oldestOf(l)
			h.removeLocked(victim)
		}
	}
	if victim == nil && h.waiting.Len()+h.started.Len() >= h.max {
		e := h.waiting.Front()
		if e == nil {
			e = h.started.Front()
		}
		victim = e.Value.(*pending)
		h.removeLocked(victim)
	}
	if victim != nil {
		close(victim.evicted)
	}
	p = &pending{conn: conn, source: source, evicted: make(chan struct{})}
	p.elem = h.waiting.PushBack(p)
	if source != "" {
		l := h.bySource[source]
		if l == nil {
			l = list.New()
			h.bySource[source] = l
		}
		p.srcElem = l.PushBack(p)
	}
	return p, victim
}

// oldestOf returns the oldest entry of a source's list that has sent
// nothing, or if all have, the oldest.
func oldestOf(l *list.List) *pending {
	for e := l.Front(); e != nil; e = e.Next() {
		if p := e.Value.(*pending); !p.started {
			return p
		}
	}
	return l.Front().Value.(*pending)
}

// start records that p has sent its first bytes.
func (h *handshakes) start(p *pending) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if p.removed || p.started {
		return
	}
	h.waiting.Remove(p.elem)
	p.elem = h.started.PushBack(p)
	p.started = true
}

// remove takes p out of the pool, and reports whether it was still in
// it (not displaced by another).
func (h *handshakes) remove(p *pending) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	if p.removed {
		return false
	}
	h.removeLocked(p)
	return true
}

func (h *handshakes) removeLocked(p *pending) {
	p.removed = true
	if p.started {
		h.started.Remove(p.elem)
	} else {
		h.waiting.Remove(p.elem)
	}
	if p.srcElem != nil {
		l := h.bySource[p.source]
		l.Remove(p.srcElem)
		if l.Len() == 0 {
			delete(h.bySource, p.source)
		}
	}
}

// len returns the number of connections in the pool.
func (h *handshakes) len() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.waiting.Len() + h.started.Len()
}

// closeAll resets every connection in the pool and keeps new ones out.
func (h *handshakes) closeAll() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.closed = true
	for _, l := range []*list.List{&h.waiting, &h.started} {
		for e := l.Front(); e != nil; e = e.Next() {
			Reset(e.Value.(*pending).conn)
		}
	}
}
