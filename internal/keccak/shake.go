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
}

// Init128 sets h to a fresh SHAKE128 instance.
func (h *SHAKE) Init128() { h.init(Rate128) }

// Init256 sets h to a fresh SHAKE256 instance.
func (h *SHAKE) Init256() { h.init(Rate256) }

func (h *SHAKE) init(rate int) {
	h.rate, h.ds = rate, 0x1f
	h.lanes = x4Level >= levelAVX512 && Accelerated()
	h.n, h.squeezing = 0, false
	switch {
	case h.lanes:
		h.s.Reset(0)
	case rate == Rate128:
		h.std = *sha3.NewSHAKE128()
	default:
		h.std = *sha3.NewSHAKE256()
	}
}

// Reset returns h to its state after Init128 or Init256.
func (h *SHAKE) Reset() {
	if !h.lanes {
		h.std.Reset()
		return
	}
	h.n, h.squeezing = 0, false
	h.s.Reset(0)
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
		h.s.Permute()
		h.n = 0
	}
	for len(p) >= rate {
		h.s.XOR(0, p[:rate])
		h.s.Permute()
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
		h.s.Permute()
		h.s.Read(0, out[:rate])
		out = out[rate:]
	}
	if len(out) > 0 {
		h.s.Permute()
		h.s.Read(0, h.buf[:rate])
		h.n = copy(out, h.buf[:rate])
	}
}
