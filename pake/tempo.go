package pake

import (
	"fmt"

	"github.com/pqkem/pqkem/internal/fips203"
	"github.com/pqkem/pqkem/internal/keccak"
)

// Tempo's KEM is stock FIPS 203 ML-KEM: internal/fips203, the
// implementation package mlkem wraps, with the standard parameter sets, as
// NoIC-A0 runs it. (Through it rather than package mlkem's wrappers so that
// the initiator's mask streams and nonce mask can run in the Keccak lanes
// that key generation leaves idle, see fips203.Extra.)

// tempoKey is the initiator's ephemeral ML-KEM key.
type tempoKey struct{ fipsKey }

// maxMaskStreams is the most mask polynomials whose SHAKE128 output key
// generation takes into its schedule. At ML-KEM-512 (two polynomials) key
// generation runs in the two lanes they leave, and then the nonce mask
// H(pw || sid || T'), absorbing T' as the mask reaches it (three of its
// seven blocks before the mask is complete); at ML-KEM-768 the one lane
// left makes key generation a 42-permutation chain, which measured no
// faster than the 14 + 37 permutations of the two apart.
//
// (The responder could likewise absorb the first two blocks of H(ek)
// while its mask is squeezed, but the schedule's bookkeeping for 41
// permutations cost more than the two it saved over squeezing the mask
// alone and then parsing the key: measured 1 to 3 µs slower.)
const maxMaskStreams = 2

func tempoBackend(level int, smp Sampler) backend {
	p := stockParams(level)
	b := fipsBackend(p, func() (initKey, *fipsKey) {
		k := new(tempoKey)
		return k, &k.fipsKey
	})
	k := level / 256
	if smp.XOFBytes() == 0 || k > maxMaskStreams {
		return b
	}
	tLen := 384 * k
	b.newKeyMask = func(seed, pw, sid []byte, maskSeed *[32]byte, tPrime []byte) (initKey, []byte, [32]byte, error) {
		if len(seed) != fips203.SeedSize {
			return nil, nil, [32]byte{}, fmt.Errorf("mlkem: invalid %s seed length %d, want %d", p.Name(), len(seed), fips203.SeedSize)
		}
		// Key generation encodes T into ekBuf row by row while the mask
		// streams run; Update masks what both have reached into nmIn,
		// after pw || sid, and the nonce mask H(pw || sid || T') absorbs it
		// a block at a time.
		var ms maskStreams
		streams := ms.init(smp, k, maskSeed)
		var ekBuf [384*maxMaskStreams + 32]byte
		var nmIn [64 + 384*maxMaskStreams]byte
		copy(nmIn[:], pw)
		copy(nmIn[32:], sid)
		h := fips203.Hash{In: nmIn[:64]}
		x := fips203.Extra{Streams: streams[:k], Hash: &h, EKBuf: ekBuf[:0]}
		x.Update = func(steps, ekLen int) {
			ms.advance(steps)
			d := ms.apply(nmIn[64:64+tLen], ekBuf[:tLen], min(ekLen, tLen))
			h.In, h.Final = nmIn[:64+d], d == tLen
		}
		dk := new(tempoKey)
		fips203.KeyGenInternalWithExtra(&dk.dk, p, (*[32]byte)(seed[:32]), (*[32]byte)(seed[32:]), &x)
		copy(tPrime, nmIn[64:64+tLen])
		ek := append([]byte(nil), ekBuf[:tLen+32]...) // T || rho, as key generation encoded it
		ms.clear()
		clear(streams[:])
		clear(nmIn[:])
		clear(ekBuf[:])
		return dk, ek, h.Sum, nil
	}
	return b
}

// maskStreams computes the mask vector from its SHAKE128 streams as they
// are squeezed in the lanes key generation leaves (see fips203.Extra), and
// masks T as far as the mask and T are known, so that the nonce mask can
// take it block by block. How far it gets after each permutation depends
// on the permutation count, the sampler and when key generation finishes
// a row (a function of the public rho) only.
type maskStreams struct {
	smp Sampler
	k   int
	// out holds stream i's output at i*maskStreamBuf: C1's 37 blocks pass
	// through it one at a time, A1's and B0's few are kept whole.
	out    [maxMaskStreams * maskStreamBuf]byte
	mask   [maxMaskStreams][256]uint16
	blocks int // C1: the blocks of each stream reduced so far
	coeffs int // the coefficients of each mask polynomial known
	done   int // the bytes of T masked so far, a prefix
}

// maskStreamBuf is a stream's buffer: A1's 840 bytes, or one C1 block and
// the 8 bytes after it that c1Blocks reads.
const maskStreamBuf = max(a1Bytes, b0Bytes, c1BlockBuf)

// init sets m up for k polynomials of smp from the mask seed and returns
// their streams, which squeeze into m. (Returned, not kept in m: a slice
// of m stored in m would move m to the heap.)
func (m *maskStreams) init(smp Sampler, k int, seed *[32]byte) (streams [maxMaskStreams]fips203.Stream) {
	m.smp, m.k = smp, k
	for i := range k {
		streams[i].Seed = maskXOFInput(seed, i)
		if smp == C1 {
			streams[i].Out = m.out[i*maskStreamBuf:][:keccak.Rate128]
			streams[i].Blocks = blocks128(c1Bytes)
		} else {
			streams[i].Out = m.out[i*maskStreamBuf:][:smp.XOFBytes()]
		}
	}
	return streams
}

// advance takes the blocks squeezed in the first steps permutations: C1
// reduces each block as it comes (seven coefficients per polynomial), the
// other samplers wait for all of theirs.
func (m *maskStreams) advance(steps int) {
	nb := blocks128(m.smp.XOFBytes())
	if m.smp != C1 {
		if steps >= nb && m.coeffs < n {
			for i := range m.k {
				m.smp.fromBytes(&m.mask[i], m.out[i*maskStreamBuf:][:m.smp.XOFBytes()])
			}
			m.coeffs = n
		}
		return
	}
	if steps > nb {
		return
	}
	// The buffers hold block steps-1: the schedule calls after every
	// permutation, so it is the one after the last reduced.
	j := m.blocks
	if j != steps-1 {
		panic("pake: a block of the mask streams was skipped")
	}
	var out [maxMaskStreams]*[256]uint16
	for i := range out {
		out[i] = &m.mask[i]
	}
	c1BlockTo(out[:m.k], j, m.out[:], maskStreamBuf)
	m.blocks++
	m.coeffs = min(c1PerBlock*m.blocks, n)
}

// apply sets dst to src masked as far as the mask and src are known, src's
// first known bytes being whole rows of T, and returns how far dst is
// done: a prefix, whole coefficient pairs.
func (m *maskStreams) apply(dst, src []byte, known int) int {
	to := 0
	for i := range m.k {
		row := min(max(known-384*i, 0), 3*(m.coeffs/2))
		to = 384*i + row
		if row < 384 {
			break
		}
	}
	if to > m.done {
		copy(dst[m.done:to], src[m.done:to])
		maskRange(dst, m.mask[:m.k], false, m.done, to)
		m.done = to
	}
	return m.done
}

func (m *maskStreams) clear() {
	clear(m.out[:])
	clear(m.mask[:])
}
