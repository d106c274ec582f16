package keccak

import "crypto/sha3"

// SHAKE is one SHAKE128 or SHAKE256 instance (FIPS 202, section 6.2) with
// the Write, Read and Reset of crypto/sha3.SHAKE, for long single streams
// such as FrodoKEM's error samples and its hashes of keys and ciphertexts.
//
// With the AVX-512 four-way permutation it runs in one lane of it (the
// other three permute whatever they hold): on a CPU that has it, a
// four-way permutation takes less time than crypto/sha3's one-state
// permutation (about 260 ns against 330 to 400 ns per block on an AMD Zen
// 4). Otherwise it is a crypto/sha3.SHAKE.
//
// A SHAKE can carry a second instance of the same function (StartSecond,
// SumSecond), which absorbs a long input in another lane during the
// first one's permutations: FrodoKEM's decapsulation hashes the
// ciphertext that way while it squeezes the error samples. The lanes it
// leaves free can run SHAKE128 rows meanwhile (Ride, Rows).
//
// A SHAKE must be set up with Init128 or Init256 before use.
type SHAKE struct {
	lanes bool // one lane of s, rather than std
	std   sha3.SHAKE
	s     Lanes
	rate  int
	ds    byte
	// While absorbing, buf[:n] is input not yet added to the state; while
	// squeezing, buf[n:rate] is output not yet read.
	buf       [Rate128]byte
	n         int
	squeezing bool

	// The second instance: in lane 1, side is the input it has not
	// absorbed; once fewer than a block of it remains, the lane's state
	// is set aside in saved (parked) until SumSecond. Without the lanes,
	// it is std2.
	second bool
	side   []byte
	parked bool
	saved  [25]uint64
	std2   sha3.SHAKE

	rows *Rows // the rows riding in the free lanes (Ride), or nil
}

// Init128 sets h to a fresh SHAKE128 instance.
func (h *SHAKE) Init128() { h.init(Rate128) }

// Init256 sets h to a fresh SHAKE256 instance.
func (h *SHAKE) Init256() { h.init(Rate256) }

func (h *SHAKE) init(rate int) {
	h.rate, h.ds = rate, 0x1f
	h.lanes = SingleInLane()
	h.n, h.squeezing = 0, false
	h.second, h.side, h.rows = false, nil, nil
	switch {
	case h.lanes:
		h.s.Reset(0)
	case rate == Rate128:
		h.std = *sha3.NewSHAKE128()
	default:
		h.std = *sha3.NewSHAKE256()
	}
}

// Reset returns h to its state after Init128 or Init256, without a
// second instance.
func (h *SHAKE) Reset() {
	h.second, h.side, h.rows = false, nil, nil
	if !h.lanes {
		h.std.Reset()
		return
	}
	h.n, h.squeezing = 0, false
	h.s.Reset(0)
}

// permute permutes the lanes, absorbing the second instance's next block
// into lane 1 first, or parking the lane once no whole block is left.
func (h *SHAKE) permute() {
	if h.second && !h.parked {
		if len(h.side) >= h.rate {
			h.s.XOR(1, h.side[:h.rate])
			h.side = h.side[h.rate:]
		} else {
			h.saved = h.s.Save(1)
			h.parked = true
		}
	}
	if r := h.rows; r != nil {
		first := h.firstFree()
		r.start(&h.s, first)
		h.s.Permute()
		r.squeeze(&h.s, first)
		return
	}
	h.s.Permute()
}

// StartSecond starts a second instance of h's function (a fresh one) and
// gives it in, the start of its input, which it absorbs during h's
// permutations. in must not change until SumSecond.
func (h *SHAKE) StartSecond(in []byte) {
	if h.rows != nil {
		panic("keccak: SHAKE.StartSecond during a ride")
	}
	h.second = true
	if !h.lanes {
		h.std2 = h.std
		h.std2.Reset()
		h.std2.Write(in)
		return
	}
	h.s.Reset(1)
	h.side, h.parked = in, false
}

// SumSecond absorbs rest after the input of StartSecond into the second
// instance and squeezes len(out) bytes of it into out, which ends it. h
// itself goes on where it was.
func (h *SHAKE) SumSecond(rest, out []byte) {
	if !h.second {
		panic("keccak: SHAKE.SumSecond without StartSecond")
	}
	if h.rows != nil {
		panic("keccak: SHAKE.SumSecond during a ride")
	}
	h.second = false
	if !h.lanes {
		h.std2.Write(rest)
		h.std2.Read(out)
		return
	}
	if h.parked {
		h.s.Restore(1, &h.saved)
	}
	own := h.s.Save(0)
	rate := h.rate
	var blk [Rate128]byte
	n := 0
	for _, p := range [2][]byte{h.side, rest} {
		for len(p) > 0 {
			c := copy(blk[n:rate], p)
			n += c
			p = p[c:]
			if n == rate {
				h.s.XOR(1, blk[:rate])
				h.s.Permute()
				n = 0
			}
		}
	}
	h.side = nil
	h.s.XOR(1, blk[:n])
	h.s.Pad(1, rate, n, h.ds)
	for len(out) > 0 {
		h.s.Permute()
		c := min(len(out), rate)
		h.s.Read(1, out[:c])
		out = out[c:]
	}
	h.s.Restore(0, &own)
}

// Write absorbs p. It must not be called after Read.
func (h *SHAKE) Write(p []byte) {
	if !h.lanes {
		h.std.Write(p)
		return
	}
	if h.squeezing {
		panic("keccak: SHAKE.Write after Read")
	}
	rate := h.rate
	if h.n > 0 {
		c := copy(h.buf[h.n:rate], p)
		h.n += c
		p = p[c:]
		if h.n < rate {
			return
		}
		h.s.XOR(0, h.buf[:rate])
		h.permute()
		h.n = 0
	}
	for len(p) >= rate {
		h.s.XOR(0, p[:rate])
		h.permute()
		p = p[rate:]
	}
	h.n = copy(h.buf[:rate], p)
}

// Read squeezes len(out) bytes into out.
func (h *SHAKE) Read(out []byte) {
	if !h.lanes {
		h.std.Read(out)
		return
	}
	rate := h.rate
	if !h.squeezing {
		h.s.XOR(0, h.buf[:h.n])
		h.s.Pad(0, rate, h.n, h.ds)
		h.squeezing, h.n = true, rate
	}
	if h.n < rate {
		c := copy(out, h.buf[h.n:rate])
		h.n += c
		out = out[c:]
	}
	for len(out) >= rate {
		h.permute()
		h.s.Read(0, out[:rate])
		out = out[rate:]
	}
	if len(out) > 0 {
		h.permute()
		h.s.Read(0, h.buf[:rate])
		h.n = copy(out, h.buf[:rate])
	}
}
