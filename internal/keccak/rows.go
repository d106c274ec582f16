package keccak

// RowSource says what the rows of a ride (SHAKE.Ride) are.
type RowSource interface {
	// RowIn returns the input of row i, shorter than Rate128, appended to
	// buf, which has room for Rate128 bytes.
	RowIn(i int, buf []byte) []byte
	// RowOut returns the buffer for the output of row i, or nil when row i
	// is not wanted (no more rows are started after a nil).
	RowOut(i int) []byte
}

// Rows are SHAKE128 streams, "rows", that a SHAKE computes in the lanes of
// the AVX-512 four-way permutation it does not use itself, during its own
// permutations (SHAKE.Ride): the three lanes besides its own, or two while
// it carries a second instance. FrodoKEM squeezes its long stream of error
// samples that way while the other lanes generate the first rows of the
// matrix A, which it can only use once the samples are all read.
//
// Rows are started in order, row 0 first, as lanes come free; each ends
// when its output is full. A row still running when the ride stops is
// left unfinished: Done counts the rows that are complete.
type Rows struct {
	src   RowSource
	next  int // the next row to start
	ended bool
	lane  [4]struct {
		row int
		out []byte // output still to squeeze; nil when the lane is idle
	}
	buf [Rate128]byte
}

// Done returns the number of complete rows: rows 0 to Done()-1 are.
func (r *Rows) Done() int {
	d := r.next
	for _, l := range r.lane {
		if l.out != nil {
			d = min(d, l.row)
		}
	}
	return d
}

// start starts a row in each lane from first on that has none.
func (r *Rows) start(s *Lanes, first int) {
	for j := first; j < 4; j++ {
		l := &r.lane[j]
		if l.out != nil || r.ended {
			continue
		}
		out := r.src.RowOut(r.next)
		if len(out) == 0 {
			r.ended = true
			continue
		}
		s.Start(j, Rate128, 0x1f, r.src.RowIn(r.next, r.buf[:0]))
		l.row, l.out = r.next, out
		r.next++
	}
}

// squeeze reads the output block of every lane from first on that runs a
// row, after a permutation.
func (r *Rows) squeeze(s *Lanes, first int) {
	for j := first; j < 4; j++ {
		l := &r.lane[j]
		if l.out == nil {
			continue
		}
		c := min(len(l.out), Rate128)
		s.Read(j, l.out[:c])
		l.out = l.out[c:]
		if len(l.out) == 0 {
			l.out = nil
		}
	}
}

// Ride makes h compute the rows src describes, with r as their state, in
// its free lanes during its permutations, from the next one on, until
// StopRide. It returns false, and computes nothing, where h does not run
// in lanes (without the AVX-512 permutation). h must not carry a second
// instance it starts after Ride, nor end one (SumSecond) before StopRide.
func (h *SHAKE) Ride(r *Rows, src RowSource) bool {
	if !h.lanes {
		return false
	}
	r.src, r.next, r.ended = src, 0, false
	r.lane = [4]struct {
		row int
		out []byte
	}{}
	h.rows = r
	return true
}

// StopRide ends the ride and returns the number of complete rows.
func (h *SHAKE) StopRide() int {
	r := h.rows
	if r == nil {
		return 0
	}
	h.rows, r.src = nil, nil
	return r.Done()
}

// firstFree returns the first lane h leaves to rows: 1, or 2 while it
// carries a second instance.
func (h *SHAKE) firstFree() int {
	if h.second {
		return 2
	}
	return 1
}
