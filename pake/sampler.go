package pake

import (
	"crypto/sha3"
	"encoding/binary"
	"errors"
	"fmt"
	"math/bits"

	"github.com/pqkem/pqkem/internal/cpuid"
	"github.com/pqkem/pqkem/internal/fips203"
	"github.com/pqkem/pqkem/internal/keccak"
)

// Sampler is a SampleNTT variant: a map from a 34-byte XOF input (a 32-byte
// seed and two index bytes) to 256 coefficients in [0, q), read from
// SHAKE128 of that input. NoIC uses it for the matrix Â and for the
// password mask; Tempo only for the mask.
type Sampler uint8

const (
	// a0VariableTime is FIPS 203 SampleNTT (Algorithm 7), the paper's A0:
	// rejection sampling, reading as many SHAKE128 bytes as it needs, so
	// its running time depends on its seed. In both protocols the mask's
	// seeds depend on the password, and in NoIC so does the matrix's (ρ is
	// masked): an attacker who times a party can test password guesses
	// offline. It is UNSAFE for real passwords, and exists for comparisons
	// and benchmarks only: no function of this package takes it or returns
	// a scheme that uses it; package paketest does, as A0VariableTime.
	a0VariableTime Sampler = iota + 1
	// A1 is the "fixed loop sampler": the same output as A0 (whenever A0
	// succeeds within 280 iterations, that is except with probability about
	// 2^-261), computed in constant time from exactly 840 SHAKE128 bytes.
	A1
	// B0 takes the first 400 SHAKE128 bytes as a 3200-bit little-endian
	// integer X and outputs its 256 least significant base-q digits,
	// floor(X / q^i) mod q, in constant time (fixed-width limb arithmetic,
	// no math/big). Not FIPS 203.
	B0
	// C1 reduces each of 256 little-endian 192-bit chunks of 6144 SHAKE128
	// bytes modulo q, in constant time. Not FIPS 203. It is the artifact's
	// C0 and C1 (the same output) and the default.
	C1
)

// Samplers returns the samplers: A1, B0 and C1, all constant time.
func Samplers() []Sampler { return []Sampler{A1, B0, C1} }

func (s Sampler) String() string {
	switch s {
	case a0VariableTime:
		return "A0"
	case A1:
		return "A1"
	case B0:
		return "B0"
	case C1:
		return "C1"
	}
	return fmt.Sprintf("Sampler(%d)", uint8(s))
}

// ParseSampler returns the constant-time sampler named name ("A1", "B0"
// or "C1"; "C0" is accepted as C1, whose output it is). It refuses "A0",
// the variable-time FIPS 203 SampleNTT, which leaks the password through
// timing.
func ParseSampler(name string) (Sampler, error) {
	switch name {
	case "A0", "a0":
		return 0, errors.New("pake: sampler A0 is variable time and leaks the password through timing; want A1, B0 or C1")
	case "A1", "a1":
		return A1, nil
	case "B0", "b0":
		return B0, nil
	case "C0", "c0", "C1", "c1":
		return C1, nil
	}
	return 0, fmt.Errorf("pake: unknown sampler %q, want A1, B0 or C1", name)
}

// ConstantTime reports whether the sampler's running time is independent
// of its seed: true for A1, B0 and C1.
func (s Sampler) ConstantTime() bool { return s == A1 || s == B0 || s == C1 }

func (s Sampler) valid() bool { return s >= a0VariableTime && s <= C1 }

// XOFBytes is the number of SHAKE128 output bytes the sampler reads: 840
// for A1, 400 for B0, 6144 for C1, and 0 for any other value.
func (s Sampler) XOFBytes() int {
	switch s {
	case A1:
		return a1Bytes
	case B0:
		return b0Bytes
	case C1:
		return c1Bytes
	}
	return 0
}

// Sample sets out to the sampler's output for the 34-byte XOF input seed.
func (s Sampler) Sample(out *[256]uint16, seed *[34]byte) {
	if !s.valid() {
		panic("pake: invalid sampler")
	}
	s.sampleBatch([]*[256]uint16{out}, [][34]byte{*seed})
}

const (
	q = 3329
	n = 256

	a1Iterations = 280
	a1Bytes      = 3 * a1Iterations // 840 = 5 SHAKE128 blocks
	b0Bytes      = 400              // 3200 bits, read from 3 blocks
	c1Bytes      = 24 * n           // 6144, read from 37 blocks
)

// blocks128 is the number of whole SHAKE128 blocks that hold nbytes.
func blocks128(nbytes int) int { return (nbytes + keccak.Rate128 - 1) / keccak.Rate128 }

// level is the assembly level of this package's samplers (a1Compact and
// c1Blocks, sampler_amd64.go and sampler_noasm.go): cpuid.Max(), chosen once
// when the process starts, as the CPU, the build and PQKEM_CPU allow. The
// tests lower it to run every path in one go test (cpuLevels, internal/cpuid/cpuidtest);
// cpuid.ForceGeneric, which pqkem-bench and other packages' tests use,
// caps it at the generic level. The four-way Keccak (keccak.Accelerated)
// and ML-KEM (internal/fips203) choose their own paths the same way.
var level = cpuid.Max()

// sampleBatch sets *out[e] to the sampler's output for seeds[e], for every
// e. The fixed-length samplers squeeze four seeds at a time with the
// four-way Keccak when it is accelerated, and eight at a time with the
// eight-way one at the AVX-512 level (whole batches of eight only: a
// short batch would leave lanes of the wider permutation idle).
//
// Nothing is allocated: A1 and B0 squeeze their few blocks into a stack
// buffer, and C1 reduces its 37 blocks one at a time as they are squeezed
// (a 168-byte block holds exactly seven 24-byte chunks), so its 6 KiB per
// polynomial never exist at once. The calls are direct (no function
// values), so the outputs can live on the caller's stack.
func (s Sampler) sampleBatch(out []*[256]uint16, seeds [][34]byte) {
	switch s {
	case a0VariableTime:
		e := 0
		if keccak.Accelerated() {
			for ; e+4 <= len(out); e += 4 {
				sampleA0x4((*[4]*[256]uint16)(out[e:e+4]), (*[4][34]byte)(seeds[e:e+4]))
			}
		}
		for ; e < len(out); e++ {
			sampleA0(out[e], &seeds[e])
		}
		return
	case A1, B0, C1:
	default:
		panic("pake: invalid sampler")
	}
	if keccak.Accelerated() && len(out) > 1 {
		e := 0
		if level >= cpuid.LevelAVX512 && keccak.Wide() {
			for ; e+8 <= len(out); e += 8 {
				var in [8][]byte
				for l := range in {
					in[l] = seeds[e+l][:]
				}
				var x keccak.X8
				x.Init128(in)
				s.squeezeX8(&x, (*[8]*[256]uint16)(out[e:e+8]))
			}
		}
		for ; e < len(out); e += 4 {
			// A short last batch repeats its last seed in the unused
			// lanes, whose output is then ignored.
			var in [4][]byte
			for l := range in {
				in[l] = seeds[min(e+l, len(out)-1)][:]
			}
			var x keccak.X4
			x.Init128(in)
			s.squeezeX4(&x, out[e:min(e+4, len(out))])
		}
		return
	}
	for e := range out {
		h := sha3.NewSHAKE128()
		h.Write(seeds[e][:])
		s.squeezeOne(h, out[e])
	}
}

// fixedBlocks is the most SHAKE128 blocks A1 or B0 reads (A1's 840 bytes).
const fixedBlocks = (a1Bytes + keccak.Rate128 - 1) / keccak.Rate128

// c1PerBlock is the number of C1's 24-byte chunks in one SHAKE128 block.
const c1PerBlock = keccak.Rate128 / 24 // 7, with no remainder

// c1BlockTo sets the coefficients of *out[l] that block j of its XOF
// stream holds (7j to 7j+6, 7j to 7j+3 in the last block) to C1 on that
// block, the 168 bytes at b[l*stride:], for every l < len(out) <= 4 (b
// holds c1BlockBuf bytes from the last lane's block on).
func c1BlockTo(out []*[256]uint16, j int, b []byte, stride int) {
	var res [4][8]uint16
	c1Blocks(&res, b, stride, len(out))
	if m := n - c1PerBlock*j; m < c1PerBlock { // the last block
		for l, o := range out {
			copy(o[c1PerBlock*j:], res[l][:m])
		}
	} else {
		for l, o := range out {
			*(*[c1PerBlock]uint16)(o[c1PerBlock*j:]) = [c1PerBlock]uint16(res[l][:c1PerBlock])
		}
	}
	clear(res[:])
}

// squeezeX4 sets *out[l] (len(out) <= 4) to the output of the fixed-length
// sampler s on lane l of x, which has absorbed the seeds.
func (s Sampler) squeezeX4(x *keccak.X4, out []*[256]uint16) {
	if s == C1 {
		var buf [4 * c1BlockBuf]byte // lane l at l*c1BlockBuf
		var bs [4][]byte
		for l := range bs {
			bs[l] = buf[l*c1BlockBuf:][:keccak.Rate128]
		}
		for j := range blocks128(c1Bytes) {
			x.SqueezeBlocks(&bs)
			c1BlockTo(out, j, buf[:], c1BlockBuf)
		}
		clear(buf[:])
		return
	}
	var buf [4][fixedBlocks * keccak.Rate128]byte
	nb := blocks128(s.XOFBytes()) * keccak.Rate128
	bs := [4][]byte{buf[0][:nb], buf[1][:nb], buf[2][:nb], buf[3][:nb]}
	x.SqueezeBlocks(&bs)
	s.fixedFromBytes(out, bs[:])
	clear(buf[:])
}

// squeezeX8 is squeezeX4 for eight lanes.
func (s Sampler) squeezeX8(x *keccak.X8, out *[8]*[256]uint16) {
	if s == C1 {
		var buf [8 * c1BlockBuf]byte // lane l at l*c1BlockBuf
		var bs [8][]byte
		for l := range bs {
			bs[l] = buf[l*c1BlockBuf:][:keccak.Rate128]
		}
		for j := range blocks128(c1Bytes) {
			x.SqueezeBlocks(&bs)
			c1BlockTo(out[:4], j, buf[:], c1BlockBuf)
			c1BlockTo(out[4:], j, buf[4*c1BlockBuf:], c1BlockBuf)
		}
		clear(buf[:])
		return
	}
	var buf [8][fixedBlocks * keccak.Rate128]byte
	nb := blocks128(s.XOFBytes()) * keccak.Rate128
	var bs [8][]byte
	for l := range bs {
		bs[l] = buf[l][:nb]
	}
	x.SqueezeBlocks(&bs)
	s.fixedFromBytes(out[:], bs[:])
	clear(buf[:])
}

// fixedFromBytes sets *out[l] to A1 or B0 on bs[l], for every l.
func (s Sampler) fixedFromBytes(out []*[256]uint16, bs [][]byte) {
	for l, o := range out {
		if s == A1 {
			a1FromBytes(o, bs[l])
		} else {
			b0FromBytes(o, bs[l])
		}
	}
}

// squeezeOne is squeezeX4 for one state.
func (s Sampler) squeezeOne(h *sha3.SHAKE, out *[256]uint16) {
	var buf [c1Bytes]byte // C1 reads the most
	b := buf[:s.XOFBytes()]
	h.Read(b)
	s.fromBytes(out, b)
	clear(b)
}

// fromBytes is the fixed-length sampler s (A1, B0 or C1) on the first
// XOFBytes() bytes of its SHAKE128 output b.
func (s Sampler) fromBytes(out *[256]uint16, b []byte) {
	switch s {
	case A1:
		a1FromBytes(out, b)
	case B0:
		b0FromBytes(out, b)
	case C1:
		c1FromBytes(out, b)
	default:
		panic("pake: not a fixed-length sampler")
	}
}

// sampleA0 is FIPS 203 SampleNTT (Algorithm 7). It reads SHAKE128 three
// bytes at a time until 256 coefficients are accepted, with no iteration
// cap: it equals the ML-KEM matrix sampler in every case, and its running
// time depends on the seed. Variable time; see a0VariableTime.
func sampleA0(out *[256]uint16, seed *[34]byte) {
	h := sha3.NewSHAKE128()
	h.Write(seed[:])
	var b [keccak.Rate128]byte
	for j := 0; j < n; {
		h.Read(b[:])
		j = fips203.RejectionSample(out, j, b[:])
	}
}

// sampleA0x4 is sampleA0 for four seeds with the four-way Keccak, as the
// ML-KEM matrix expansion does it: three blocks for every lane (enough in
// more than 99% of cases), then one more block for all four while any lane
// is short. Variable time; see a0VariableTime.
func sampleA0x4(out *[4]*[256]uint16, seeds *[4][34]byte) {
	var x keccak.X4
	x.Init128([4][]byte{seeds[0][:], seeds[1][:], seeds[2][:], seeds[3][:]})
	var buf [4][3 * keccak.Rate128]byte
	bs := [4][]byte{buf[0][:], buf[1][:], buf[2][:], buf[3][:]}
	x.SqueezeBlocks(&bs)
	var cnt [4]int
	for {
		done := true
		for l := range 4 {
			cnt[l] = fips203.RejectionSample(out[l], cnt[l], bs[l])
			done = done && cnt[l] == n
		}
		if done {
			return
		}
		for l := range bs {
			bs[l] = buf[l][:keccak.Rate128]
		}
		x.SqueezeBlocks(&bs)
	}
}

// SampleMatrix sets a[i*k+j] to the sampler's output for rho || i || j, for
// i, j < k: the matrix Â of ML-KEM (as NoIC expands it; gen_a in the
// paper's tables), transposed as internal/fips203 stores it. With
// [A1] it is the FIPS 203 matrix.
func (s Sampler) SampleMatrix(a *[16][256]uint16, rho *[32]byte, k int) {
	if !s.valid() || k < 1 || k > 4 {
		panic("pake: invalid sampler or k")
	}
	var seeds [16][34]byte
	var out [16]*[256]uint16
	for i := range k {
		for j := range k {
			e := i*k + j
			copy(seeds[e][:], rho[:])
			seeds[e][32], seeds[e][33] = byte(i), byte(j)
			out[e] = &a[e]
		}
	}
	s.sampleBatch(out[:k*k], seeds[:k*k])
}

// a1FromBytes is A1 on the first 840 XOF bytes b, in constant time.
//
// It computes what A0 computes: the 560 12-bit candidates, and for output
// slot j the j-th accepted one (candidate < q). The artifact sweeps all 256
// slots for each candidate (143,360 masked writes). Here the accepted
// candidates are moved to their slots by an oblivious, order-preserving
// compaction network instead: each candidate i is tagged with its distance
// dist(i) = the number of rejected candidates before it (a prefix count,
// computed without branches), and in round r = 0..9 every still valid
// candidate whose dist has bit r set moves left by 2^r. The distances of
// accepted candidates never decrease along the array and grow by at most the
// gap between them, so after each round the valid candidates are still in
// order and no two share a slot (the proof is in the test's comment); after
// the last round the accepted candidate i sits at slot i - dist(i). Every
// round touches every slot with the same masked select, so the memory
// access pattern and the instruction count are fixed: 10 rounds of 560
// selects, done two slots per 64-bit word.
//
// If fewer than 256 of the 560 candidates are accepted (probability about
// 2^-261), the slots past the last accepted one are left 0, as the
// artifact leaves them unfilled; A0 would read further.
func a1FromBytes(out *[256]uint16, b []byte) {
	// Slot x (candidate x) is the 32-bit lane x%2 of word x/2: the two
	// candidates of iteration t share word t. A lane holds the candidate in
	// bits 0-11, its distance in bits 12-21 and the valid (accepted) flag
	// in bit 31; each round works on both lanes of a word at once.
	const distShift = a1DistShift
	var v [a1PaddedWords]uint64 // v[a1Iterations:] stays zero, see a1Compact
	b = b[:a1Bytes]
	rejected := uint64(0)
	for t := range a1Iterations {
		b0, b1, b2 := uint64(b[3*t]), uint64(b[3*t+1]), uint64(b[3*t+2])
		d1, d2 := b0|(b1&0x0f)<<8, b1>>4|b2<<4
		acc1 := (d1 - q) >> 63 // 1 if d1 < q
		w := d1 | rejected<<distShift | acc1<<31
		rejected += 1 - acc1
		acc2 := (d2 - q) >> 63
		w |= (d2 | rejected<<distShift | acc2<<31) << 32
		rejected += 1 - acc2
		v[t] = w
	}
	a1Compact(&v)
	for j := range out {
		lane := uint32(v[j/2] >> (32 * (j % 2)))
		out[j] = uint16(lane & 0xfff & -(lane >> 31))
	}
	clear(v[:])
}

// a1PaddedWords is the size of a1FromBytes's slot array: the 280 words of
// slots, then zeros for the AVX2 network's loads past the end (slot x+s for
// x < 560, s <= 512).
const a1PaddedWords = a1Iterations + 260

// a1DistShift is where a slot's distance starts (bits 12-21, after the
// 12-bit candidate; bit 31 is the valid flag).
const a1DistShift = 12

// a1CompactGeneric runs the ten rounds of the compaction network in Go.
func a1CompactGeneric(v *[a1PaddedWords]uint64) {
	for r := range 10 {
		compactRound((*[a1Iterations]uint64)(v[:a1Iterations]), 1<<r, a1DistShift+r)
	}
}

// compactRound is one round of a1FromBytes's compaction: every valid slot
// whose distance has bit sh set moves left by s slots. Slot x takes slot
// x+s if that one moves, else keeps its own value unless it moves away
// (then it becomes invalid). The masks of the moving slots are computed
// first, from the values before the round; ascending order then reads a
// word before it is overwritten. Branch-free on the data, with a fixed
// access pattern.
func compactRound(v *[a1Iterations]uint64, s int, sh int) {
	const lanes = 0x0000_0001_0000_0001
	// mv[x] is all ones in each lane of word x whose slot is valid and
	// moves: a bit m at 0 or 32 becomes m<<32 - m, 32 ones above it.
	var mv [a1Iterations]uint64
	for x, w := range v {
		m := (w >> 31) & (w >> sh) & lanes
		mv[x] = m<<32 - m
	}
	if s == 1 {
		// Slot 2x takes slot 2x+1 (the high lane of word x); slot 2x+1
		// takes slot 2x+2 (the low lane of word x+1).
		for x := range a1Iterations - 1 {
			cur, out := v[x], mv[x]
			src, in := cur>>32|v[x+1]<<32, out>>32|mv[x+1]<<32
			v[x] = src&in | cur&^(out|in)
		}
		x := a1Iterations - 1
		cur, out := v[x], mv[x]
		src, in := cur>>32, out>>32
		v[x] = src&in | cur&^(out|in)
		return
	}
	ws := s / 2
	lo, hi := v[:a1Iterations-ws], v[ws:]
	mlo, mhi := mv[:a1Iterations-ws], mv[ws:]
	hi, mhi = hi[:len(lo)], mhi[:len(lo)]
	for x := range lo {
		in := mhi[x]
		lo[x] = hi[x]&in | lo[x]&^(mlo[x]|in)
	}
	for x := a1Iterations - ws; x < a1Iterations; x++ {
		v[x] &^= mv[x]
	}
	clear(mv[:])
}

// c1FromBytes is C1 on the first 6144 XOF bytes b: out[j] is the
// little-endian 192-bit integer b[24j : 24j+24] modulo q, in constant time
// (see c1Reduce).
func c1FromBytes(out *[256]uint16, b []byte) {
	b = b[:c1Bytes]
	// Blocks 0 to 35 four at a time, read where they are: the 8 bytes that
	// c1Blocks reads after a block are the next block's. The last block
	// (96 bytes) has nothing after it, so it goes through a lane buffer.
	const full = c1Bytes / keccak.Rate128 // 36
	var res [4][8]uint16
	for i := 0; i < full; i += 4 {
		c1Blocks(&res, b[keccak.Rate128*i:], keccak.Rate128, 4)
		for l := range 4 {
			*(*[c1PerBlock]uint16)(out[c1PerBlock*(i+l):]) = [c1PerBlock]uint16(res[l][:c1PerBlock])
		}
	}
	var last [c1BlockBuf]byte
	copy(last[:], b[keccak.Rate128*full:])
	c1Blocks(&res, last[:], c1BlockBuf, 1)
	copy(out[c1PerBlock*full:], res[0][:n-c1PerBlock*full])
	clear(last[:])
	clear(res[:])
}

// c1BlockBuf is what c1Blocks reads of a lane: one SHAKE128 block and 8
// bytes that the AVX2 code's last 32-byte load reads and ignores. A lane
// buffer of this size, or a stride of one block in a longer stream with
// the next block (or 8 spare bytes) after it, gives it that.
const c1BlockBuf = keccak.Rate128 + 8

// c1BlocksGeneric sets res[l][:7] to C1 on lane l's block, the 168 bytes
// at b[l*stride:], for l < lanes, two lanes at a time (see c1Blocks).
func c1BlocksGeneric(res *[4][8]uint16, b []byte, stride, lanes int) {
	block := func(l int) *[keccak.Rate128]byte { return (*[keccak.Rate128]byte)(b[l*stride:]) }
	l := 0
	for ; l+2 <= lanes; l += 2 {
		c1Two(res[l][:c1PerBlock], res[l+1][:c1PerBlock], block(l), block(l+1))
	}
	if l < lanes {
		c1Reduce(res[l][:c1PerBlock], block(l)[:])
	}
}

// c1Two is c1Reduce on two blocks at once, b0 into o0 and b1 into o1
// (len(o1) = len(o0) <= 7): two lanes of the four-way Keccak, whose chunks
// give the processor two independent chains with no odd chunk left over.
func c1Two(o0, o1 []uint16, b0, b1 *[keccak.Rate128]byte) {
	o1 = o1[:len(o0)]
	for i := range o0 {
		_, r0 := divQ(c1Sum((*[24]byte)(b0[24*i:])))
		_, r1 := divQ(c1Sum((*[24]byte)(b1[24*i:])))
		o0[i], o1[i] = uint16(r0), uint16(r1)
	}
}

// c1Reduce sets out[j] to the little-endian 192-bit integer b[24j : 24j+24]
// modulo q, for every j, as the artifact's portable C1 computes it, in
// constant time. The artifact Barrett-reduces each 32-bit word x_i and sums
// the residues times 2^(32 i) mod q; summing the unreduced words times
// those weights (below 11777 * 2^32 < 2^46) and reducing once gives the
// same value, X mod q, with fewer steps. Two chunks per iteration give the
// processor two independent chains.
func c1Reduce(out []uint16, b []byte) {
	for len(out) >= 2 {
		c := (*[48]byte)(b)
		_, r0 := divQ(c1Sum((*[24]byte)(c[:24])))
		_, r1 := divQ(c1Sum((*[24]byte)(c[24:])))
		out[0], out[1] = uint16(r0), uint16(r1)
		out, b = out[2:], b[48:]
	}
	if len(out) == 1 {
		_, r := divQ(c1Sum((*[24]byte)(b)))
		out[0] = uint16(r)
	}
}

// c1Sum is the sum of the six little-endian 32-bit words of c times 2^(32 i)
// mod q, below 2^46, and congruent to c's integer modulo q.
func c1Sum(c *[24]byte) uint64 {
	const w1, w2, w3, w4, w5 = 1353, 2988, 1358, 3095, 2982 // 2^(32 i) mod q
	return uint64(binary.LittleEndian.Uint32(c[0:])) +
		uint64(binary.LittleEndian.Uint32(c[4:]))*w1 +
		uint64(binary.LittleEndian.Uint32(c[8:]))*w2 +
		uint64(binary.LittleEndian.Uint32(c[12:]))*w3 +
		uint64(binary.LittleEndian.Uint32(c[16:]))*w4 +
		uint64(binary.LittleEndian.Uint32(c[20:]))*w5
}

// barrett32 returns x mod q for any 32-bit x, in constant time: the
// quotient estimate floor(x * mu / 2^32), mu = floor(2^32 / q), is exact or
// one too small, and one masked subtraction corrects it.
func barrett32(x uint32) uint32 {
	const mu = (1 << 32) / q // 1290167
	quot := uint32((uint64(x) * mu) >> 32)
	r := x - quot*q // in [0, 2q)
	return condSubQ(r)
}

// condSubQ maps r in [0, 2q) to r mod q without a branch.
func condSubQ(r uint32) uint32 {
	t := r - q
	return t + q&-(t>>31)
}

// b0FromBytes is B0 on the first 400 XOF bytes b: out[i] = floor(X / q^i)
// mod q, where X is the little-endian integer of b. X (50 64-bit limbs) is
// divided 52 times by D = q^5 < 2^59 with a constant-time 128-by-64-bit
// division by an invariant normalized divisor (Möller and Granlund,
// "Improved division by invariant integers", Algorithm 4, with its two
// corrections done by masks); each remainder splits into five base-q
// digits with a constant-time division by q. The number of limbs each
// division runs over is a public constant (b0Limbs): the largest 3200-bit
// X needs that many, and so no X needs more.
func b0FromBytes(out *[256]uint16, b []byte) {
	var x [b0NLimbs]uint64
	b = b[:b0Bytes]
	for i := range x {
		x[i] = binary.LittleEndian.Uint64(b[8*i:])
	}
	for step := range b0Steps {
		r := b0DivD(x[:b0Limbs[step]])
		for t := range 5 {
			if i := 5*step + t; i < n {
				var d uint64
				r, d = divQ(r)
				out[i] = uint16(d)
			}
		}
	}
	clear(x[:])
}

const (
	b0NLimbs = b0Bytes / 8 // 50
	b0Steps  = (n + 4) / 5 // 52 divisions by q^5
	b0D      = uint64(q) * q * q * q * q
)

var (
	b0Shift = uint(bits.LeadingZeros64(b0D)) // normalization shift
	b0DN    = b0D << b0Shift                 // normalized divisor
	b0V     = reciprocal(b0DN)
	// b0Limbs[step] is how many low limbs of X can be nonzero before
	// division number step: a public function of step.
	b0Limbs [b0Steps]int
)

func init() {
	var x [b0NLimbs]uint64
	for i := range x {
		x[i] = ^uint64(0)
	}
	nl := b0NLimbs
	for step := range b0Steps {
		b0Limbs[step] = nl
		b0DivD(x[:nl])
		for nl > 1 && x[nl-1] == 0 {
			nl--
		}
	}
}

// reciprocal returns floor((2^128 - 1) / d) - 2^64 for a normalized d (top
// bit set). It runs at package initialization, on a public constant, so it
// may use the hardware division.
func reciprocal(d uint64) uint64 {
	v, _ := bits.Div64(^d, ^uint64(0), d)
	return v
}

// b0DivD divides the little-endian integer x in place by D = q^5 and
// returns the remainder, in constant time for a given len(x).
func b0DivD(x []uint64) uint64 {
	s := b0Shift
	// Long division of x * 2^s by D * 2^s: the quotient is floor(x / D)
	// and the remainder is (x mod D) * 2^s.
	r := x[len(x)-1] >> (64 - s) // the top limb of x << s, below 2^5 < D
	for i := len(x) - 1; i >= 0; i-- {
		u0 := x[i] << s
		if i > 0 {
			u0 |= x[i-1] >> (64 - s)
		}
		x[i], r = div2by1(r, u0, b0DN, b0V)
	}
	return r >> s
}

// div2by1 divides u1 * 2^64 + u0 by the normalized d (u1 < d), given v =
// reciprocal(d), returning the quotient and the remainder. Both
// corrections of the algorithm are masked, so it runs in constant time.
func div2by1(u1, u0, d, v uint64) (quo, rem uint64) {
	q1, q0 := bits.Mul64(v, u1)
	q0, c := bits.Add64(q0, u0, 0)
	q1, _ = bits.Add64(q1, u1+1, c)
	rem = u0 - q1*d
	// if rem > q0 { q1--; rem += d }
	_, gt := bits.Sub64(q0, rem, 0)
	mask := -gt
	q1 += mask
	rem += d & mask
	// if rem >= d { q1++; rem -= d }
	_, lt := bits.Sub64(rem, d, 0)
	ge := 1 - lt
	q1 += ge
	rem -= d & -ge
	return q1, rem
}

// divQ returns floor(r / q) and r mod q for r < 2^63, in constant time.
func divQ(r uint64) (quo, rem uint64) {
	const m = ^uint64(0) / q  // floor((2^64 - 1) / q)
	quo, _ = bits.Mul64(r, m) // exact or one too small
	rem = r - quo*q           // in [0, 2q)
	t := rem - q
	ge := 1 - t>>63
	return quo + ge, rem - q&-ge
}
