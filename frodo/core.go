package frodo

import (
	"sync"

	"github.com/pqkem/pqkem/internal/ctcompare"
	"github.com/pqkem/pqkem/internal/keccak"
)

// Domain separators of the seedSE expansions.
const (
	domainKeyGen = 0x5f
	domainEncaps = 0x96
)

// maxCiphertextSize is the largest ciphertext, of FrodoKEM-1344.
const maxCiphertextSize = 1344*nbar*2 + nbar*nbar*2 + maxSalt

// initHash sets h to the set's SHAKE: SHAKE128 for 640, SHAKE256 for 976 and
// 1344. It is internal/keccak's single SHAKE, which runs in a lane of the
// AVX-512 four-way permutation where the CPU has it (faster than
// crypto/sha3 for the long streams of the error samples and the hashes of
// keys and ciphertexts), and is crypto/sha3's otherwise.
// (A value the caller declares, which stays on its stack.)
func (p *ParameterSet) initHash(h *keccak.SHAKE) {
	if p.shake256 {
		h.Init256()
	} else {
		h.Init128()
	}
}

// readSamples fills out with error samples from h: 16-bit little-endian
// words, each through the CDF sampler.
func (p *ParameterSet) readSamples(h *keccak.SHAKE, out []uint16) {
	readUint16s(h, out)
	p.sample(out)
}

// readUint16sGeneric fills out with little-endian 16-bit words read from h,
// through a buffer.
func readUint16sGeneric(h *keccak.SHAKE, out []uint16) {
	var buf [512]byte
	for len(out) > 0 {
		m := min(len(out), len(buf)/2)
		h.Read(buf[:2*m])
		leUint16s(out[:m], buf[:])
		out = out[m:]
	}
}

// work is the scratch space of one operation: the n̄ x n matrices (S' and
// B', or E and B, and a transposed one for the CCS 2016 exchange), four
// rows of A, and the re-encrypted ciphertext of decapsulation. At up to
// 100 KB it is too large for a goroutine's stack, which would grow to hold
// it, copying itself at every doubling (on the fresh goroutine a server
// starts for each connection, that cost more than an allocation), so the
// operations take it from workPool. What is secret in it is cleared before
// it goes back; the rest (rows of A, B, B') is public.
type work struct {
	sp, bp, t [nbar * maxN]uint16
	r         rowBuf
	ct2       [maxCiphertextSize]byte
}

var workPool = sync.Pool{New: func() any { return new(work) }}

func getWork() *work {
	w := workPool.Get().(*work)
	w.r.npre = 0
	w.r.ahead, w.r.aheadOf = 0, nil
	return w
}
func putWork(w *work) { workPool.Put(w) }

// keyGen is FrodoKEM.KeyGen with the randomness seed = s || seedSE || z.
// It fills in dk, including its encapsulation key.
func (p *ParameterSet) keyGen(dk *DecapsulationKey, seed []byte) {
	s := seed[:p.lenSec]
	seedSE := seed[p.lenSec : p.lenSec+p.lenSE]
	z := seed[p.lenSec+p.lenSE:]
	n := p.n

	pk := make([]byte, p.EncapsulationKeySize())

	// seedA = SHAKE(z)
	var h keccak.SHAKE
	p.initHash(&h)
	h.Write(z)
	h.Read(pk[:seedASize])

	// S^T and E from SHAKE(0x5F || seedSE), with the first rows of A
	// made in the SHAKE's free lanes.
	a := &dk.ek.a
	a.init(p, pk[:seedASize])
	st := make([]uint16, nbar*n) // kept in the key
	w := getWork()
	defer putWork(w)
	b := w.bp[:n*nbar] // E, then B
	h.Reset()
	a.rideRows(&h, &w.r)
	h.Write([]byte{domainKeyGen})
	h.Write(seedSE)
	p.readSamples(&h, st)
	p.readSamples(&h, b)
	w.r.endRide(&h)

	// B = A S + E
	p.mulAddASPlusE(b, st, a, &w.r)
	q1 := p.q1()
	for i := range b {
		b[i] &= q1
	}
	p.pack(pk[seedASize:], b)

	// pkh = SHAKE(pk); sk = s || pk || S^T || pkh is made from its parts
	// when asked for (DecapsulationKey.ExpandedBytes).
	h.Reset()
	h.Write(pk)
	h.Read(dk.ek.pkh[:p.lenSec])

	copy(dk.s[:], s)
	dk.st = st
	dk.ek.p, dk.ek.pk, dk.ek.bt = p, pk, p.transpose(b)
}

// encrypt is the common part of encapsulation and of the re-encryption in
// decapsulation: from mu and salt it computes (seedSE || k) = SHAKE(pkh ||
// mu || salt), writes the ciphertext to ct and k to k. h is a fresh SHAKE
// of the set (initHash). If hashIn is not nil, h's second instance starts
// hashing it while h squeezes the error samples: decapsulation's ss =
// SHAKE(ct || k̄) over the received ciphertext, which it finishes with
// h.SumSecond.
func (ek *EncapsulationKey) encrypt(w *work, h *keccak.SHAKE, ct, k, mu, salt, hashIn []byte) {
	p := ek.p
	n := p.n

	// seedSE || k = SHAKE(pkh || mu || salt)
	var g2 [maxSeedSE + maxLenSec]byte
	h.Write(ek.pkh[:p.lenSec])
	h.Write(mu)
	h.Write(salt)
	h.Read(g2[:p.lenSE+p.lenSec])
	copy(k, g2[p.lenSE:p.lenSE+p.lenSec])

	// S', E' and E'' from SHAKE(0x96 || seedSE), with the first rows of A
	// made in the SHAKE's free lanes.
	sp, bp := w.sp[:nbar*n], w.bp[:nbar*n]
	var epp [nbar * nbar]uint16
	h.Reset()
	if hashIn != nil {
		h.StartSecond(hashIn)
	}
	ek.a.rideRows(h, &w.r)
	h.Write([]byte{domainEncaps})
	h.Write(g2[:p.lenSE])
	p.readSamples(h, sp)
	p.readSamples(h, bp)
	p.readSamples(h, epp[:])
	w.r.endRide(h)
	clear(g2[:])

	// B' = S' A + E'
	p.mulAddSAPlusE(bp, sp, &ek.a, &w.r)
	q1 := p.q1()
	for i := range bp {
		bp[i] &= q1
	}
	c1Size := p.packedSize(n * nbar)
	p.pack(ct[:c1Size], bp)

	// C = S' B + E'' + Encode(mu)
	var c [nbar * nbar]uint16
	p.encodeKey(&c, mu)
	for k := range nbar {
		// Row k of S' B is <S'[k], B^T[l]> for l < n̄.
		row := c[k*nbar : k*nbar+nbar]
		dot8(row, sp[k*n:k*n+n], ek.bt, n)
		for l := range row {
			row[l] = (row[l] + epp[k*nbar+l]) & q1
		}
	}
	p.pack(ct[c1Size:c1Size+p.packedSize(nbar*nbar)], c[:])
	copy(ct[c1Size+p.packedSize(nbar*nbar):], salt)
	clear(sp)
	clear(epp[:])
	clear(c[:])
}

// transpose returns B^T (n̄ x n) for B (n x n̄).
func (p *ParameterSet) transpose(b []uint16) []uint16 {
	bt := make([]uint16, nbar*p.n)
	p.transposeTo(bt, b)
	return bt
}

// transposeTo sets bt (n̄ x n) to B^T for B (n x n̄).
func (p *ParameterSet) transposeTo(bt, b []uint16) {
	n := p.n
	bt = bt[:nbar*n]
	b = b[:n*nbar]
	// The n̄ = 8 rows of B^T, as slices of length n, so that the loop
	// needs no bounds checks.
	t0, t1, t2, t3 := bt[0*n:1*n], bt[1*n:2*n], bt[2*n:3*n], bt[3*n:4*n]
	t4, t5, t6, t7 := bt[4*n:5*n], bt[5*n:6*n], bt[6*n:7*n], bt[7*n:8*n]
	for i := range t0 {
		r := b[i*nbar : i*nbar+nbar]
		t0[i], t1[i], t2[i], t3[i] = r[0], r[1], r[2], r[3]
		t4[i], t5[i], t6[i], t7[i] = r[4], r[5], r[6], r[7]
	}
}

// encapsulate is FrodoKEM.Encaps with the randomness mu || salt.
func (ek *EncapsulationKey) encapsulate(random []byte) (sharedKey, ciphertext []byte) {
	p := ek.p
	mu, salt := random[:p.lenSec], random[p.lenSec:]
	ct := make([]byte, p.CiphertextSize())
	var k [maxLenSec]byte
	w := getWork()
	var h keccak.SHAKE
	p.initHash(&h)
	ek.encrypt(w, &h, ct, k[:p.lenSec], mu, salt, nil)
	putWork(w)
	ss := make([]byte, p.lenSec)
	h.Reset()
	h.Write(ct)
	h.Write(k[:p.lenSec])
	h.Read(ss)
	clear(k[:])
	return ss, ct
}

// decapsulate is FrodoKEM.Decaps. ct has the right length.
func (dk *DecapsulationKey) decapsulate(ct []byte) []byte {
	ek := &dk.ek
	p := ek.p
	n := p.n
	c1Size := p.packedSize(n * nbar)
	c2Size := p.packedSize(nbar * nbar)
	salt := ct[c1Size+c2Size:]

	w := getWork()
	defer putWork(w)

	// M = C - B' S
	var m [nbar * nbar]uint16
	p.unpack(m[:], ct[c1Size:c1Size+c2Size])
	row := w.sp[:maxN] // B' row by row, before encrypt uses w.sp for S'
	var bs [nbar]uint16
	rowBytes := c1Size / nbar
	for i := range nbar {
		p.unpack(row[:n], ct[i*rowBytes:(i+1)*rowBytes])
		bs = [nbar]uint16{}
		dot8(bs[:], row[:n], dk.st, n)
		for j := range nbar {
			m[i*nbar+j] -= bs[j]
		}
	}
	var mu [maxLenSec]byte
	p.decodeKey(mu[:p.lenSec], &m)

	// Re-encrypt, and compare in constant time. The hash of ct for ss =
	// SHAKE(ct || k̄) runs beside the error samples (encrypt's hashIn).
	ct2 := w.ct2[:len(ct)]
	var kp [maxLenSec]byte
	var h keccak.SHAKE
	p.initHash(&h)
	ek.encrypt(w, &h, ct2, kp[:p.lenSec], mu[:p.lenSec], salt, ct)
	equal := ctcompare.Equal(ct, ct2) // 1 if equal, 0 otherwise
	clear(ct2)                        // a function of mu, which is secret if ct is not valid
	// mask is 0xff if the ciphertexts differ, 0 if they are equal.
	mask := byte(equal) - 1
	s := dk.s[:p.lenSec]
	for i := range p.lenSec {
		kp[i] ^= mask & (kp[i] ^ s[i])
	}

	ss := make([]byte, p.lenSec)
	h.SumSecond(kp[:p.lenSec], ss)
	clear(kp[:])
	clear(mu[:])
	clear(m[:])
	return ss
}
