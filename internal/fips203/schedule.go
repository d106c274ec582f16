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
	laneHash            // a hash (its slot in index): SHA3-256 of ek, SHAKE256 of z || c (J), or the caller's (Extra.Hash)
	laneG               // SHA3-512 of a 64-byte input, one block (G)
	laneStream          // SHAKE128 for a caller's Stream (key generation)
)

type laneJob struct {
	kind  laneKind
	index uint8 // the matrix entry e, the noise counter N, the stream or the hash slot
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

	// queue holds the jobs not yet started, in order.
	queue      [maxStreams + maxK*maxK + 2*maxK]laneJob
	head, tail int

	// The matrix: entry e = x*k + y is SampleNTT(rho || x || y), as
	// encryptionKey numbers them; count[e] coefficients are accepted.
	k     int
	rho   [32]byte
	count [maxK * maxK]int
	// matrixDone has bit e set when entry e is complete.
	matrixDone uint32

	// The noise: f[N] = SamplePolyCBD_eta[N](PRF_eta[N](sigma, N)). Each
	// lane gathers the blocks of its polynomial in buf. (The polynomials
	// live here, not behind pointers to the caller's variables, which
	// would make the compiler move those to the heap.)
	sigma     [32]byte
	f         [2*maxK + 1]ringElement
	eta       [2*maxK + 1]int
	buf       [4][2 * keccak.Rate256]byte
	blocks    [4]int
	noiseDone uint32

	// The hashes: hash[0] is the schedule's own (SHA3-256 of ek, or J),
	// which takes a lane before any queued job; hash[1], if on, is a
	// caller's (Extra.Hash), which takes a lane only once the queue is
	// empty, so that it cannot hold up the work the other waits for.
	hash [2]hashJob

	// G, if queued: gOut = SHA3-512(gIn), one block.
	gIn   [64]byte
	gOut  [64]byte
	gDone bool
}

// hashJob is a SHA3-256 (or SHAKE256, 32 bytes out) chain in one lane,
// over input that may grow while it runs: in is the part of the input
// known so far (for the caller's hash, slot 1, Extra.Hash.In instead),
// final says that it is all of it; pos bytes are absorbed. ds is the
// domain byte, 0x06 for SHA3-256 and 0x1f for SHAKE256; both have rate
// 136.
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
	// sitting permutations out (a field, so that it is not zeroed at every
	// step).
	waiting bool
	saved   [25]uint64
}

// Hash is a SHA3-256 hash that key generation runs for its caller beside
// its own work (see Extra): In is the input known so far, which the caller
// extends in Extra.Update; Final says that In is all of it. Sum is the
// hash once the call returns.
type Hash struct {
	In    []byte
	Final bool
	Sum   [32]byte
}

// Extra is work that key generation (KeyGenInternalWithExtra) runs for its
// caller in the Keccak lanes its own work leaves idle.
type Extra struct {
	// Streams (at most three) take lanes from the first permutation on
	// and keep them until their output is complete.
	Streams []Stream
	// Hash, if not nil, is the caller's hash, which takes a lane once key
	// generation's own jobs have all started.
	Hash *Hash
	// EKBuf, if not nil, is where key generation encodes ek (it needs
	// room for EncapsulationKeySize bytes): the rows of t̂ as they are
	// computed, then rho.
	EKBuf []byte
	// Update, if not nil, is called after every permutation with the
	// number of permutations so far (stream i then holds its first
	// min(steps*168, len(Out)) bytes) and the number of bytes of ek in
	// EKBuf. It may extend Hash.In, and must set Hash.Final once the
	// streams are complete (steps covers every stream) and ekLen is the
	// whole key: a hash left waiting then is a programming error, and
	// panics.
	Update func(steps, ekLen int)
}

// Stream is SHAKE128 output that key generation squeezes
// beside its own work (see KeyGenInternalWithStreams and Extra): Out
// receives the first len(Out) bytes of SHAKE128(Seed). If Blocks is not
// zero, the stream is instead Blocks whole blocks of 168 bytes, each
// written over Out[:168] in turn, for Extra.Update to take after every
// permutation (so that a long stream needs no long buffer).
type Stream struct {
	Seed   [34]byte
	Out    []byte
	Blocks int
}

// maxStreams is the most streams key generation takes: it keeps one of the
// four lanes for itself.
const maxStreams = 3

// addStreams queues n streams, which go first: they are the longest
// chains, and key generation fits in the lanes they leave. The streams
// themselves are step's argument (kept out of s, whose fields the compiler
// treats as heap: a slice stored there would move the caller's buffers to
// the heap); the lane running stream i writes blocks[lane] blocks of it.
func (s *lanesSchedule) addStreams(n int) {
	for i := range n {
		s.queue[s.tail] = laneJob{kind: laneStream, index: uint8(i)}
		s.tail++
	}
}

// init sets s to a schedule with no jobs and no hash, for a matrix of rank
// k from rho.
func (s *lanesSchedule) init(k int, rho *[32]byte) {
	s.k = k
	for i := range s.hash {
		s.hash[i].lane, s.hash[i].ds = -1, 0x06
	}
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

// addNoise queues the noise polynomial s.f[N] = SamplePolyCBD_eta(PRF_eta(
// s.sigma, N)).
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

// busy reports whether a job is queued or running, or a hash is not
// complete.
func (s *lanesSchedule) busy() bool {
	if s.head < s.tail || (s.hash[0].on && !s.hash[0].done) || (s.hash[1].on && !s.hash[1].done) {
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

// hashInput returns the input of hash slot i known so far, and whether it
// is all of it.
func (s *lanesSchedule) hashInput(i int, x *Extra) ([]byte, bool) {
	if i == 1 { // the caller's
		return x.Hash.In, x.Hash.Final
	}
	return s.hash[i].in, s.hash[i].final
}

// startHash gives hash slot i the first idle lane, once a whole block, or
// the whole input, is known.
func (s *lanesSchedule) startHash(i int, x *Extra) {
	h := &s.hash[i]
	if !h.on || h.lane >= 0 || h.done {
		return
	}
	if in, final := s.hashInput(i, x); len(in) < keccak.Rate256 && !final {
		return
	}
	for j := range s.lane {
		if s.lane[j].kind == laneIdle {
			s.lane[j] = laneJob{kind: laneHash, index: uint8(i)}
			h.lane = j
			s.st.Reset(j)
			return
		}
	}
}

// step assigns free lanes (the own hash first, as the longest chain, then
// the queue in order, then the caller's hash), feeds the lanes, permutes,
// and takes the output: matrix entries go to a, stream output to
// x.Streams (the ones addStreams queued).
func (s *lanesSchedule) step(a []nttElement, x *Extra) {
	streams := x.Streams
	s.startHash(0, x)
	for j := range s.lane {
		if s.lane[j].kind != laneIdle || s.head == s.tail {
			continue
		}
		job := s.queue[s.head]
		s.head++
		s.lane[j] = job
		var seed [34]byte
		switch job.kind {
		case laneMatrix:
			copy(seed[:], s.rho[:])
			seed[32], seed[33] = job.x, job.y
			s.st.Start(j, keccak.Rate128, 0x1f, seed[:])
		case laneNoise:
			copy(seed[:], s.sigma[:])
			seed[32] = job.index
			s.st.Start(j, keccak.Rate256, 0x1f, seed[:33])
			s.blocks[j] = 0
		case laneG:
			s.st.Start(j, rateSHA3512, 0x06, s.gIn[:])
		case laneStream:
			s.st.Start(j, keccak.Rate128, 0x1f, streams[job.index].Seed[:])
			s.blocks[j] = 0
		}
	}
	s.startHash(1, x)

	// A hash absorbs its next block if it is known; otherwise its lane
	// sits this permutation out.
	var sitOut [2]bool
	for i := range s.hash {
		h := &s.hash[i]
		j := h.lane
		if j < 0 {
			continue
		}
		in, final := s.hashInput(i, x)
		rest := in[h.pos:]
		if len(rest) < keccak.Rate256 && !final {
			// The lane's state is set aside until the next block comes;
			// meanwhile the lane is permuted for nothing.
			if !h.waiting {
				h.saved = s.st.Save(j)
				h.waiting = true
			}
			sitOut[i] = true
			continue
		}
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
	working := false
	for _, l := range s.lane {
		working = working || (l.kind != laneIdle && !(l.kind == laneHash && sitOut[l.index]))
	}
	if !working {
		// Nothing is left but a hash whose input will never come.
		panic("fips203: the schedule's hash input is never complete")
	}

	s.st.Permute()
	// Each lane's block goes to s.out, or a stream's that takes its blocks
	// one at a time straight to its buffer.
	out := &s.out
	dst := [4]*[keccak.Rate128]byte{&out[0], &out[1], &out[2], &out[3]}
	for j, l := range s.lane {
		if l.kind == laneStream && streams[l.index].Blocks > 0 {
			dst[j] = (*[keccak.Rate128]byte)(streams[l.index].Out)
		}
	}
	s.st.ReadAll(&dst)

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
				samplePolyCBD(&s.f[N], s.buf[j][:], s.eta[N])
				s.noiseDone |= 1 << N
				s.lane[j] = laneJob{}
			}
		case laneG:
			copy(s.gOut[:], out[j][:64])
			s.gDone = true
			s.lane[j] = laneJob{}
		case laneStream:
			st := &streams[job.index]
			if st.Blocks > 0 { // the block is in st.Out already
				s.blocks[j]++
				if s.blocks[j] >= st.Blocks {
					s.lane[j] = laneJob{}
				}
				break
			}
			copy(st.Out[s.blocks[j]*keccak.Rate128:], out[j][:])
			s.blocks[j]++
			if s.blocks[j]*keccak.Rate128 >= len(st.Out) {
				s.lane[j] = laneJob{}
			}
		case laneHash:
			h := &s.hash[job.index]
			if !sitOut[job.index] && h.padded {
				copy(h.sum[:], out[j][:32])
				h.done = true
				h.lane = -1
				s.lane[j] = laneJob{}
			}
		}
	}
}

// rateSHA3512 is the rate of SHA3-512 in bytes, 200 - 2*64 (FIPS 202).
const rateSHA3512 = 72

// keyGenX4 is K-PKE.KeyGen (FIPS 203, Algorithm 13) from rho and sigma
// (its lines 1 and 2 done by the caller), together with the H(ek) of
// ML-KEM.KeyGen_internal (Algorithm 16), which it returns. It computes
// what pkeKeyGen and KeyGenInternal do, with the Keccak work on the
// four-way permutation: s first (every row of t̂ needs all of it), then
// for each row i the column of Â it needs and the noise e[i], so that row
// 0 and the first blocks of the hash come early. (With three blocks per
// matrix entry this takes 10, 14 and 22 permutations for k = 2, 3, 4,
// against lower bounds of 10, 14 and 20.) A parameter set with
// another matrix sampler expands the matrix first, and only the noise and
// the hash are scheduled. The caller's streams (at most maxStreams) start
// first and keep their lanes until their output is complete; key
// generation runs in the lanes they leave, then the caller's hash, and
// keyGenX4 returns when all are done. Only for keccak.Accelerated().
func keyGenX4(p *Params, ex *encryptionKey, dx *decryptionKey, sigma *[32]byte, x *Extra) [32]byte {
	k := p.k
	var s lanesSchedule
	s.init(k, ex.rho)
	s.sigma = *sigma
	s.addStreams(len(x.Streams))
	for i := range k {
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
		s.addNoise(k+i, p.eta1)
	}

	var ekBuf [maxEncapsulationKeySize]byte
	s.hash[0].on, s.hash[0].in = true, ekBuf[:0]
	if x.EKBuf != nil {
		s.hash[0].in = x.EKBuf[:0]
	}
	s.hash[1].on = x.Hash != nil
	sNTT := false
	row := 0
	for steps := 1; s.busy(); steps++ {
		s.step(ex.a, x)
		// Lines 16 to 18 of Algorithm 13, a row at a time as its inputs
		// are ready, each row's encoding appended to the hash input.
		if !sNTT && s.noiseDone&(1<<k-1) == 1<<k-1 {
			for i := range k {
				dx.s[i] = nttElement(s.f[i])
				ntt((*ringElement)(&dx.s[i]))
				dx.sCache[i].compute(&dx.s[i])
			}
			sNTT = true
		}
		// (s.hash[0] written as such, not through a pointer, keeps ekBuf
		// on the stack.)
		for sNTT && row < k && s.noiseDone&(1<<(k+row)) != 0 && s.column(row) {
			innerProduct(&ex.t[row], ex.a[row:], k, dx.s, dx.sCache, k, ntt(&s.f[k+row]))
			s.hash[0].in = byteEncode12(s.hash[0].in, &ex.t[row])
			row++
			if row == k {
				s.hash[0].in = append(s.hash[0].in, ex.rho[:]...)
				s.hash[0].final = true
			}
		}
		if x.Update != nil {
			x.Update(steps, len(s.hash[0].in))
		}
	}
	if x.Hash != nil {
		x.Hash.Sum = s.hash[1].sum
	}
	return s.hash[0].sum
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
	s.hash[0].on, s.hash[0].in, s.hash[0].final = true, b, true
	var x Extra
	for s.busy() {
		s.step(ex.a, &x)
	}
	return s.hash[0].sum
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
	s.hash[0].on, s.hash[0].ds, s.hash[0].in, s.hash[0].final = true, 0x1f, jIn[:32+len(c)], true
	s.addG(gIn)
	queued := false
	var x Extra
	for s.busy() || !queued {
		s.step(nil, &x)
		if s.gDone && !queued {
			copy(s.sigma[:], s.gOut[32:])
			for N := range 2*k + 1 {
				s.addNoise(N, noiseEta(p, N))
			}
			queued = true
		}
	}
	for N := range 2*k + 1 {
		*f.poly(k, N) = s.f[N]
	}
	return s.gOut, s.hash[0].sum
}
