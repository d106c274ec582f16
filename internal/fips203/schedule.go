package fips203

import (
	"github.com/pqkem/pqkem/internal/keccak"
)

// The Keccak work of key generation, of parsing an encapsulation key and of
// decapsulation, scheduled on the four lanes of the AVX2 permutation.
//
// Key generation hashes the encapsulation key, SHA3-256 over 384k + 32
// bytes: 6 to 12 permutations in a chain that no batching can shorten, and
// that can only start once a row of t̂ exists. Run one state at a time, the
// chain costs as much as the whole matrix. Here it runs in one lane of the
// four-way permutation while the other three sample matrix entries and
// noise polynomials, so it is nearly free: each block of ek is absorbed as
// soon as the rows of t̂ that cover it are computed, and the matrix and
// noise jobs are ordered so that the rows come as early as possible.
// Parsing an encapsulation key does the same with all of ek known from the
// start. Decapsulation runs J(z || c), a chain of 6 to 12 permutations over
// the ciphertext, in one lane while G and then the re-encryption noise run
// in the others.
//
// Which lane runs what, and when, depends only on the order of the jobs
// (fixed) and on how many blocks each matrix entry needs (a function of
// rho, which is public). The noise, which is secret, is sampled in a fixed
// number of blocks.

// laneKind says what a lane of the schedule is doing.
type laneKind uint8

const (
	laneIdle   laneKind = iota
	laneMatrix          // SHAKE128 for SampleNTT, one matrix entry
	laneNoise           // SHAKE256 for PRF_eta, one noise polynomial
	laneHash            // the hash: SHA3-256 of ek, or SHAKE256 of z || c (J)
	laneG               // SHA3-512 of a 64-byte input, one block (G)
)

type laneJob struct {
	kind  laneKind
	index uint8 // the matrix entry e, or the noise counter N
	// x, y are the index bytes of a matrix entry's XOF input, e/k and e%k.
	x, y uint8
}

// lanesSchedule runs matrix, noise and hash jobs on the four lanes, one
// permutation per step.
type lanesSchedule struct {
	st   keccak.Lanes
	lane [4]laneJob
	// out holds the first block of every lane after a permutation (a
	// field, so that it is not zeroed at every step).
	out [4][keccak.Rate128]byte

	// queue holds the matrix and noise jobs not yet started, in order.
	queue      [maxK*maxK + 2*maxK]laneJob
	head, tail int

	// The matrix: entry e = x*k + y is SampleNTT(rho || x || y), as
	// encryptionKey numbers them; count[e] coefficients are accepted.
	k     int
	rho   [32]byte
	count [maxK * maxK]int
	// matrixDone has bit e set when entry e is complete.
	matrixDone uint32

	// The noise: *f[N] = SamplePolyCBD_eta[N](PRF_eta[N](sigma, N)), into
	// the caller's polynomials. Each lane gathers the blocks of its
	// polynomial in buf. (The callers set f[N] on their schedule as such:
	// a pointer stored through a pointer to the schedule, as a method
	// would, makes the compiler move the polynomials to the heap.)
	sigma     [32]byte
	f         [2*maxK + 1]*ringElement
	eta       [2*maxK + 1]int
	buf       [4][2 * keccak.Rate256]byte
	blocks    [4]int
	noiseDone uint32

	// The hash, SHA3-256 of ek or J, which takes a lane before any queued
	// job.
	hash hashJob
	// release says that the hash gives its lane up while it waits for
	// input (releaseHash).
	release bool

	// G, if queued: gOut = SHA3-512(gIn), one block.
	gIn   [64]byte
	gOut  [64]byte
	gDone bool
}

// hashJob is a SHA3-256 (or SHAKE256, 32 bytes out) chain in one lane,
// over input that may grow while it runs: in is the part of the input
// known so far, final says that it is all of it; pos bytes are absorbed.
// ds is the domain byte, 0x06 for SHA3-256 and 0x1f for SHAKE256; both
// have rate 136.
type hashJob struct {
	on     bool
	ds     byte
	in     []byte
	final  bool
	pos    int
	lane   int // the lane running it, or -1
	padded bool
	done   bool
	sum    [32]byte
	// saved holds the lane's state while it waits for input (waiting),
	// out of its lane or sitting permutations out (a field, so that it is
	// not zeroed at every step).
	waiting bool
	saved   [25]uint64
}

// init sets s to a schedule with no jobs and no hash, for a matrix of rank
// k from rho.
func (s *lanesSchedule) init(k int, rho *[32]byte) {
	s.k = k
	s.hash.lane, s.hash.ds = -1, 0x06
	if rho != nil {
		s.rho = *rho
	}
}

// addMatrix queues the matrix entry e = x*k + y.
func (s *lanesSchedule) addMatrix(x, y int) {
	s.queue[s.tail] = laneJob{laneMatrix, uint8(x*s.k + y), uint8(x), uint8(y)}
	s.tail++
}

// addMatrices queues every entry of the matrix, in order.
func (s *lanesSchedule) addMatrices() {
	for x := range s.k {
		for y := range s.k {
			s.addMatrix(x, y)
		}
	}
}

// addNoise queues the noise polynomial *s.f[N] = SamplePolyCBD_eta(
// PRF_eta(s.sigma, N)); the caller sets s.f[N].
func (s *lanesSchedule) addNoise(N int, eta int) {
	s.eta[N] = eta
	s.queue[s.tail] = laneJob{kind: laneNoise, index: uint8(N)}
	s.tail++
}

// addG queues G = SHA3-512(in), for s.gOut.
func (s *lanesSchedule) addG(in *[64]byte) {
	s.gIn = *in
	s.queue[s.tail] = laneJob{kind: laneG}
	s.tail++
}

// busy reports whether a job is queued or running, or the hash is not
// complete.
func (s *lanesSchedule) busy() bool {
	if s.head < s.tail || (s.hash.on && !s.hash.done) {
		return true
	}
	for _, l := range s.lane {
		if l.kind != laneIdle {
			return true
		}
	}
	return false
}

// column reports whether the entries of column i of a (e = j*k + i, which
// t̂[i] needs) are complete.
func (s *lanesSchedule) column(i int) bool {
	for j := range s.k {
		if s.matrixDone&(1<<(j*s.k+i)) == 0 {
			return false
		}
	}
	return true
}

// startHash gives the hash the first idle lane, once a whole block, or
// the whole input, is known.
//
// A hash that has absorbed all the input known so far gives its lane up
// (releaseHash) until the next block is known, and then takes the first
// idle lane again, with its state set aside meanwhile (waiting).
func (s *lanesSchedule) startHash() {
	h := &s.hash
	if !h.on || h.lane >= 0 || h.done || (len(h.in)-h.pos < keccak.Rate256 && !h.final) {
		return
	}
	for j := range s.lane {
		if s.lane[j].kind == laneIdle {
			s.lane[j] = laneJob{kind: laneHash}
			h.lane = j
			if !h.waiting {
				s.st.Reset(j)
			}
			return
		}
	}
}

// releaseHash frees the hash's lane for the queued jobs if s.release is
// set and the hash has no whole block to absorb next, setting its state
// aside: in key generation, the rows of t̂ come slower than the hash
// absorbs them, and a lane that waited for them permuted for nothing.
func (s *lanesSchedule) releaseHash() {
	h := &s.hash
	if !s.release || h.lane < 0 || s.head == s.tail || len(h.in)-h.pos >= keccak.Rate256 || h.final {
		return
	}
	h.saved = s.st.Save(h.lane)
	h.waiting = true
	s.lane[h.lane] = laneJob{}
	h.lane = -1
}

// step assigns free lanes (the hash first, as the longest chain, then the
// queue in order), feeds the lanes, permutes, and takes the output: matrix
// entries go to a.
func (s *lanesSchedule) step(a []nttElement) {
	s.startHash()
	s.releaseHash()
	for j := range s.lane {
		if s.lane[j].kind != laneIdle || s.head == s.tail {
			continue
		}
		job := s.queue[s.head]
		s.head++
		s.lane[j] = job
		switch job.kind {
		case laneMatrix:
			// XOF(rho, x, y) = SHAKE128(rho || x || y)
			s.st.StartSeed(j, keccak.Rate128, 0x1f, &s.rho, uint64(job.x)|uint64(job.y)<<8, 2)
		case laneNoise:
			// PRF(sigma, N) = SHAKE256(sigma || N)
			s.st.StartSeed(j, keccak.Rate256, 0x1f, &s.sigma, uint64(job.index), 1)
			s.blocks[j] = 0
		case laneG:
			s.st.Start(j, keccak.Rate512, 0x06, s.gIn[:])
		}
	}

	// The hash absorbs its next block if it is known; otherwise its lane
	// sits this permutation out.
	sitOut := false
	if h := &s.hash; h.lane >= 0 {
		j := h.lane
		rest := h.in[h.pos:]
		switch {
		case len(rest) < keccak.Rate256 && !h.final:
			// The lane's state is set aside until the next block comes;
			// meanwhile the lane is permuted for nothing.
			if !h.waiting {
				h.saved = s.st.Save(j)
				h.waiting = true
			}
			sitOut = true
		default:
			if h.waiting {
				s.st.Restore(j, &h.saved)
				h.waiting = false
			}
			if len(rest) >= keccak.Rate256 {
				s.st.XOR(j, rest[:keccak.Rate256])
				h.pos += keccak.Rate256
			} else {
				s.st.XOR(j, rest)
				s.st.Pad(j, keccak.Rate256, len(rest), h.ds)
				h.pos += len(rest)
				h.padded = true
			}
		}
	}

	s.st.Permute()
	out := &s.out
	s.st.ReadAll(out)

	for j := range s.lane {
		switch job := s.lane[j]; job.kind {
		case laneMatrix:
			// Three bytes per candidate: a block of 168 bytes holds 56.
			e := int(job.index)
			s.count[e] = rejectionSample(&a[e], s.count[e], out[j][:])
			if s.count[e] == n {
				s.matrixDone |= 1 << e
				s.lane[j] = laneJob{}
			}
		case laneNoise:
			N := int(job.index)
			copy(s.buf[j][s.blocks[j]*keccak.Rate256:][:keccak.Rate256], out[j][:keccak.Rate256])
			s.blocks[j]++
			if s.blocks[j]*keccak.Rate256 >= 64*s.eta[N] {
				samplePolyCBD(s.f[N], s.buf[j][:], s.eta[N])
				s.noiseDone |= 1 << N
				s.lane[j] = laneJob{}
			}
		case laneG:
			copy(s.gOut[:], out[j][:64])
			s.gDone = true
			s.lane[j] = laneJob{}
		case laneHash:
			h := &s.hash
			if !sitOut && h.padded {
				copy(h.sum[:], out[j][:32])
				h.done = true
				h.lane = -1
				s.lane[j] = laneJob{}
			}
		}
	}
}

// keyGenX4 is K-PKE.KeyGen (FIPS 203, Algorithm 13) from rho and sigma
// (its lines 1 and 2 done by the caller), together with the H(ek) of
// ML-KEM.KeyGen_internal (Algorithm 16), which it returns. It computes
// what pkeKeyGen and KeyGenInternal do, with the Keccak work on the
// four-way permutation: s first (every row of t̂ needs all of it), then
// for each row i the column of Â it needs and the noise e[i], so that row
// 0 and the first blocks of the hash come early. (With three blocks per
// matrix entry this takes 10, 14 and 21 permutations for k = 2, 3, 4,
// against lower bounds of 10, 14 and 20; at k = 4 the hash gives its lane
// up while it waits for rows, which saves a permutation.) A parameter set with
// another matrix sampler expands the matrix first, and only the noise and
// the hash are scheduled. Only for keccak.Accelerated().
func keyGenX4(p *Params, ex *encryptionKey, dx *decryptionKey, sigma *[32]byte) [32]byte {
	k := p.k
	var s lanesSchedule
	s.init(k, ex.rho)
	s.sigma = *sigma
	// The noise goes straight to the key: s to ŝ, and e[i] to t̂[i],
	// which line 18 then overwrites with Âŝ + ê[i].
	for i := range k {
		s.f[i] = (*ringElement)(&dx.s[i])
		s.addNoise(i, p.eta1)
	}
	if !p.fipsMatrix {
		expandMatrix(p, ex)
		s.matrixDone = 1<<(k*k) - 1
	}
	for i := range k {
		if p.fipsMatrix {
			for j := range k {
				s.addMatrix(j, i)
			}
		}
		s.f[k+i] = (*ringElement)(&ex.t[i])
		s.addNoise(k+i, p.eta1)
	}

	// At k = 4 the hash would wait five permutations for the rows of t̂,
	// and giving its lane up meanwhile saves one of 22. At k = 2 and 3 it
	// waits once at most, the count stays 10 and 14, and the release
	// measured 2% to 3% slower at k = 3.
	s.release = k == maxK

	var ekBuf [maxEncapsulationKeySize]byte
	s.hash.on, s.hash.in = true, ekBuf[:0]
	sNTT := false
	row := 0
	for s.busy() {
		s.step(ex.a)
		// Lines 16 to 18 of Algorithm 13, a row at a time as its inputs
		// are ready, each row's encoding appended to the hash input.
		if !sNTT && s.noiseDone&(1<<k-1) == 1<<k-1 {
			for i := range k {
				ntt((*ringElement)(&dx.s[i]))
				dx.sCache[i].compute(&dx.s[i])
			}
			sNTT = true
		}
		// (s.hash written as such, not through a pointer, keeps ekBuf on
		// the stack.)
		for sNTT && row < k && s.noiseDone&(1<<(k+row)) != 0 && s.column(row) {
			innerProduct(&ex.t[row], ex.a[row:], k, dx.s, dx.sCache, k, ntt((*ringElement)(&ex.t[row])))
			s.hash.in = byteEncode12(s.hash.in, &ex.t[row])
			row++
			if row == k {
				s.hash.in = append(s.hash.in, ex.rho[:]...)
				s.hash.final = true
			}
		}
	}
	return s.hash.sum
}

// parseX4 expands the matrix of an encapsulation key whose t̂ and rho are
// parsed, and returns H(b), the hash of its encoding b: the SHA3-256 chain
// in one lane and matrix entries in the others (or the parameter set's own
// sampler first, and the hash alone). Only for keccak.Accelerated().
func parseX4(p *Params, ex *encryptionKey, b []byte) [32]byte {
	k := p.k
	var s lanesSchedule
	s.init(k, ex.rho)
	if p.fipsMatrix {
		s.addMatrices()
	} else {
		expandMatrix(p, ex)
	}
	s.hash.on, s.hash.in, s.hash.final = true, b, true
	for s.busy() {
		s.step(ex.a)
	}
	return s.hash.sum
}

// decapsulateX4 is the Keccak work of ML-KEM.Decaps_internal (FIPS 203,
// Algorithm 18) on the four-way permutation, given m' (line 7): (K', r')
// = G(m' || h) (line 7), the noise of the re-encryption from r' (lines 8
// and 9, through K-PKE.Encrypt lines 9 to 17), and K̄ = J(z || c) (line
// 8), whose chain of permutations over the ciphertext runs in one lane
// while G and then the noise run in the others. Only for
// keccak.Accelerated().
func decapsulateX4(p *Params, f *encryptionNoise, gIn *[64]byte, z *[32]byte, c []byte) (g [64]byte, kBar [32]byte) {
	k := p.k
	var s lanesSchedule
	s.init(k, nil)
	var jIn [32 + maxCiphertextSize]byte
	copy(jIn[:], z[:])
	copy(jIn[32:], c)
	s.hash.on, s.hash.ds, s.hash.in, s.hash.final = true, 0x1f, jIn[:32+len(c)], true
	s.addG(gIn)
	queued := false
	for s.busy() || !queued {
		s.step(nil)
		if s.gDone && !queued {
			copy(s.sigma[:], s.gOut[32:])
			for N := range 2*k + 1 {
				s.f[N] = f.poly(k, N)
				s.addNoise(N, noiseEta(p, N))
			}
			queued = true
		}
	}
	return s.gOut, s.hash.sum
}
