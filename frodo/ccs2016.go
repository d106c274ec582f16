package frodo

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"sync/atomic"

	"github.com/pqkem/pqkem/internal/derand"
	"github.com/pqkem/pqkem/internal/secret"
)

// The key exchange of Bos, Costello, Ducas, Mironov, Naehrig, Nikolaenko,
// Raghunathan and Stebila, "Frodo: Take off the ring! Practical,
// quantum-secure key exchange from LWE" (ACM CCS 2016), byte for byte as
// the authors' lwe-frodo code computes it.
//
// It lives in package frodo, not beside it, because it is the same matrix
// arithmetic: A is generated with the same AES-128 block format as
// FrodoKEM's AES sets, and B = A S + E, B' = S' A + E', S' B and B' S are
// computed by the same row generator and the same AVX2 kernels, which stay
// unexported.
//
// It is not FrodoKEM: there is no Fujisaki-Okamoto transform and no hashing
// of the key; Bob's key comes from rounding, and a 64-bit hint lets Alice
// reconcile hers. It is passively secure only: a state must serve one
// exchange, and nothing checks that both parties got the same key.

// KeyExchangeSet is one of the two parameter sets of the CCS 2016 key
// exchange, [CCS2016Recommended] or [CCS2016Paranoid].
type KeyExchangeSet struct {
	name string
	p    *ParameterSet // n, q = 2^15, AES-128 for A, the CDF table
	d3   bool          // D3's 12-bit samples, or D4's 16-bit samples
}

// Sizes common to both sets of the CCS 2016 key exchange.
const (
	CCS2016KeySize  = 32                          // the shared key: 64 reconciled 4-bit values
	ccsHintSize     = 8                           // C: one bit per coefficient of V
	ccsSamplerKey   = 32                          // an AES-256 key expanded into one matrix's noise
	ccsAliceRandom  = seedASize + 2*ccsSamplerKey // Alice0's randomness: seedA, the keys of S and E
	ccsBobRandom    = 3 * ccsSamplerKey
	ccsBbar         = 11 // B̄ = log2 q - B
	ccsExtractedBit = 4  // B
)

var (
	ccsRecommended = &KeyExchangeSet{name: "Frodo-CCS2016-Recommended", d3: true,
		p: newSet("Frodo-CCS2016-Recommended", 752, 15, ccsExtractedBit, 32, false,
			[]uint16{602, 1521, 1927, 2031, 2046, 2047}, true)}
	ccsParanoid = &KeyExchangeSet{name: "Frodo-CCS2016-Paranoid",
		p: newSet("Frodo-CCS2016-Paranoid", 864, 15, ccsExtractedBit, 32, false,
			[]uint16{9651, 24351, 30841, 32500, 32745, 32766, 32767}, true)}
)

// CCS2016Recommended returns the "Recommended" set: n = 752, q = 2^15,
// noise D3.
func CCS2016Recommended() *KeyExchangeSet { return ccsRecommended }

// CCS2016Paranoid returns the "Paranoid" set: n = 864, q = 2^15, noise D4.
func CCS2016Paranoid() *KeyExchangeSet { return ccsParanoid }

// Name is "Frodo-CCS2016-Recommended" or "Frodo-CCS2016-Paranoid".
func (s *KeyExchangeSet) Name() string { return s.name }

// AliceMessageSize is the size of Alice's message: seedA || pack(B).
func (s *KeyExchangeSet) AliceMessageSize() int { return seedASize + s.p.packedSize(s.p.n*nbar) }

// BobMessageSize is the size of Bob's message: pack(B') || C.
func (s *KeyExchangeSet) BobMessageSize() int { return s.p.packedSize(s.p.n*nbar) + ccsHintSize }

// AliceState is Alice's secret S between her message and Bob's reply. It
// serves one exchange: [AliceState.Alice1] erases it.
type AliceState struct {
	set  *KeyExchangeSet
	st   []uint16 // S^T, n̄ x n
	used atomic.Bool
}

// Alice0 is Alice's first step (the server's key generation in the
// authors' code): it returns her message for Bob and her state.
func (s *KeyExchangeSet) Alice0() (msg []byte, state *AliceState) {
	var r [ccsAliceRandom]byte
	rand.Read(r[:])
	secret.Do(func() { msg, state = s.alice0(r[:]) })
	clear(r[:])
	return msg, state
}

// alice0FromSeed is [KeyExchangeSet.Alice0] with random as its
// randomness: the 80 bytes the authors' code draws (seedA, then the
// sampler keys of S and E), as the known-answer vectors give them. It is
// not in the package's API, so that no state can be made twice from the
// same bytes: package frodotest reaches it through internal/derand.
func (s *KeyExchangeSet) alice0FromSeed(random []byte) (msg []byte, state *AliceState, err error) {
	if len(random) != ccsAliceRandom {
		return nil, nil, fmt.Errorf("frodo: invalid %s randomness length %d, want %d", s.name, len(random), ccsAliceRandom)
	}
	msg, state = s.alice0(random)
	return msg, state, nil
}

func (s *KeyExchangeSet) alice0(random []byte) ([]byte, *AliceState) {
	p := s.p
	n := p.n
	msg := make([]byte, s.AliceMessageSize())
	seedA := random[:seedASize]
	copy(msg, seedA)

	w := getWork()
	defer putWork(w)
	sm := w.sp[:n*nbar] // S, n x n̄
	b := w.bp[:n*nbar]  // E, then B
	s.sampleMatrix(sm, random[seedASize:seedASize+ccsSamplerKey])
	s.sampleMatrix(b, random[seedASize+ccsSamplerKey:ccsAliceRandom])
	st := p.transpose(sm) // S^T
	clear(sm)

	// B = A S + E
	var a matrixA
	a.init(p, seedA)
	p.mulAddASPlusE(b, st, &a, &w.r)
	p.pack(msg[seedASize:], b) // pack keeps the low 15 bits
	return msg, &AliceState{set: s, st: st}
}

// Bob is Bob's step (the client's key generation and key computation): given
// Alice's message it returns his message for Alice and the shared key. The
// only error is a message of the wrong length: every 15-bit field is an
// element of Z_q, so there is nothing else to reject.
func (s *KeyExchangeSet) Bob(aliceMsg []byte) (msg, key []byte, err error) {
	if len(aliceMsg) != s.AliceMessageSize() {
		return nil, nil, fmt.Errorf("frodo: invalid %s message from Alice of length %d, want %d", s.name, len(aliceMsg), s.AliceMessageSize())
	}
	var r [ccsBobRandom]byte
	rand.Read(r[:])
	secret.Do(func() { msg, key = s.bob(aliceMsg, r[:]) })
	clear(r[:])
	return msg, key, nil
}

func (s *KeyExchangeSet) bob(aliceMsg, random []byte) (msg, key []byte) {
	p := s.p
	n := p.n
	c1 := p.packedSize(n * nbar)
	msg = make([]byte, c1+ccsHintSize)

	w := getWork()
	defer putWork(w)
	sp, bp := w.sp[:nbar*n], w.bp[:nbar*n]
	var epp [nbar * nbar]uint16
	s.sampleMatrix(sp, random[:ccsSamplerKey])
	s.sampleMatrix(bp, random[ccsSamplerKey:2*ccsSamplerKey])

	// B' = S' A + E'
	var a matrixA
	a.init(p, aliceMsg[:seedASize])
	p.mulAddSAPlusE(bp, sp, &a, &w.r)
	p.pack(msg[:c1], bp)

	// E'' is drawn after B' is computed, as in the authors' code (the
	// order only matters for the derandomized runs).
	s.sampleMatrix(epp[:], random[2*ccsSamplerKey:ccsBobRandom])

	// V = S' B + E''
	bt := w.t[:nbar*n]   // B^T
	col := w.bp[:n*nbar] // B, row by row; B' is packed
	p.unpack(col, aliceMsg[seedASize:])
	p.transposeTo(bt, col)
	v := epp
	for k := range nbar {
		dot8(v[k*nbar:k*nbar+nbar], sp[k*n:k*n+n], bt, n)
	}
	for i := range v {
		v[i] &= p.q1()
	}
	key = make([]byte, CCS2016KeySize)
	ccsHint((*[ccsHintSize]byte)(msg[c1:]), &v)
	ccsRound(key, &v)
	clear(sp)
	clear(epp[:])
	clear(v[:])
	return msg, key
}

// errStateUsed is the error of a second [AliceState.Alice1].
var errStateUsed = errors.New("frodo: CCS 2016 key exchange state already used")

// Alice1 is Alice's second step: given Bob's message it returns the shared
// key, which equals Bob's unless the exchange failed (probability about
// 2^-38.9 for Recommended, 2^-33.8 for Paranoid; nothing detects it). The
// errors are a message of the wrong length and a state used before: the
// state is erased by its first use, whatever Bob's message.
func (a *AliceState) Alice1(bobMsg []byte) (key []byte, err error) {
	s := a.set
	if len(bobMsg) != s.BobMessageSize() {
		return nil, fmt.Errorf("frodo: invalid %s message from Bob of length %d, want %d", s.name, len(bobMsg), s.BobMessageSize())
	}
	if a.used.Swap(true) {
		return nil, errStateUsed
	}
	secret.Do(func() { key = a.alice1(bobMsg) })
	clear(a.st)
	a.st = nil
	return key, nil
}

func (a *AliceState) alice1(bobMsg []byte) []byte {
	var w [nbar * nbar]uint16
	a.bPrimeS(&w, bobMsg)
	key := make([]byte, CCS2016KeySize)
	ccsRec(key, &w, (*[ccsHintSize]byte)(bobMsg[len(bobMsg)-ccsHintSize:]))
	clear(w[:])
	return key
}

// bPrimeS sets w to W = B' S mod q, B' unpacked row by row from Bob's
// message.
func (a *AliceState) bPrimeS(w *[nbar * nbar]uint16, bobMsg []byte) {
	p := a.set.p
	n := p.n
	var row [maxN]uint16
	rowBytes := p.packedSize(n*nbar) / nbar
	for i := range nbar {
		p.unpack(row[:n], bobMsg[i*rowBytes:(i+1)*rowBytes])
		dot8(w[i*nbar:i*nbar+nbar], row[:n], a.st, n)
	}
	for i := range w {
		w[i] &= p.q1()
	}
}

// sampleMatrix fills out with noise from the AES-256-CTR stream of key
// (zero IV): D3 takes two samples from each 3 bytes, the 11-bit magnitude
// index u and a sign from each 12-bit little-endian half; D4 takes the
// 16-bit little-endian word, sign in bit 0 and u in the others. Either way
// the pair (u, sign) becomes the word u<<1 | sign and goes through the
// constant-time inverse-CDF sampler of FrodoKEM, which scans the whole
// table; len(out) is even.
func (s *KeyExchangeSet) sampleMatrix(out []uint16, key []byte) {
	block, err := aes.NewCipher(key)
	if err != nil {
		panic("frodo: " + err.Error())
	}
	ctr := cipher.NewCTR(block, make([]byte, aes.BlockSize))
	var buf [768]byte // a multiple of 3 and of 2
	rest := out
	for len(rest) > 0 {
		if s.d3 {
			m := min(len(rest), 2*len(buf)/3) // an even number of samples
			b := buf[:3*m/2]
			clear(b)
			ctr.XORKeyStream(b, b)
			ccsD3Words(rest[:m], b)
			rest = rest[m:]
		} else {
			m := min(len(rest), len(buf)/2)
			b := buf[:2*m]
			clear(b)
			ctr.XORKeyStream(b, b)
			leUint16s(rest[:m], b)
			rest = rest[m:]
		}
	}
	clear(buf[:])
	s.p.sample(out)
}

// ccsD3Words sets out[2p], out[2p+1] to the words u<<1 | sign of the two
// 12-bit samples of the 3-byte group b[3p:3p+3], read as a 24-bit
// little-endian x: u is bits 0-10 and the sign bit 11 of the first, u is
// bits 12-22 and the sign bit 23 of the second (the bit fields of the
// authors' code as gcc lays them out). len(b) = 3 len(out) / 2.
func ccsD3Words(out []uint16, b []byte) {
	// Two groups at a time from one 64-bit load, while 8 bytes are left.
	for len(out) >= 4 && len(b) >= 8 {
		x := binary.LittleEndian.Uint64(b)
		out[0] = uint16(x&0x7ff)<<1 | uint16(x>>11&1)
		out[1] = uint16(x>>12&0x7ff)<<1 | uint16(x>>23&1)
		out[2] = uint16(x>>24&0x7ff)<<1 | uint16(x>>35&1)
		out[3] = uint16(x>>36&0x7ff)<<1 | uint16(x>>47&1)
		out, b = out[4:], b[6:]
	}
	for len(out) >= 2 && len(b) >= 3 {
		x := uint32(b[0]) | uint32(b[1])<<8 | uint32(b[2])<<16
		out[0] = uint16(x&0x7ff)<<1 | uint16(x>>11&1)
		out[1] = uint16(x>>12&0x7ff)<<1 | uint16(x>>23&1)
		out, b = out[2:], b[3:]
	}
}

// ccsHint writes Bob's cross-rounding hint C: bit t (LSB first) is bit
// B̄-1 of V_t.
func ccsHint(c *[ccsHintSize]byte, v *[nbar * nbar]uint16) {
	*c = [ccsHintSize]byte{}
	for t, x := range v {
		c[t/8] |= byte(x>>(ccsBbar-1)&1) << (t % 8)
	}
}

// ccsRound writes Bob's key: V_t rounded to its top B bits, packed two
// 4-bit values per byte, the first in the high nibble.
func ccsRound(key []byte, v *[nbar * nbar]uint16) {
	for i := range CCS2016KeySize {
		hi := (v[2*i] + 1<<(ccsBbar-1)) >> ccsBbar & 0xf
		lo := (v[2*i+1] + 1<<(ccsBbar-1)) >> ccsBbar & 0xf
		key[i] = byte(hi<<4 | lo)
	}
}

// ccsRec writes Alice's key, the paper's rec(W_t, c_t): where W_t mod 2^11
// is within 512 of 1024 the hint decides the rounding (add 512 for c_t = 0,
// 1536 for c_t = 1), elsewhere W_t is rounded (add 1024). The choice is
// made with masks, not branches.
func ccsRec(key []byte, w *[nbar * nbar]uint16, c *[ccsHintSize]byte) {
	var d [nbar * nbar]uint16
	for t, x := range w {
		r := x & (1<<ccsBbar - 1)
		h := uint16(c[t/8] >> (t % 8) & 1)
		// near is 1 if 512 <= r < 1536: r - 512 < 1024 as unsigned 16-bit,
		// whose bits 10..15 are then all zero.
		y := r - 512
		near := ((y >> 10) - 1) >> 15 // 1 iff y>>10 == 0
		add := 1024 + near*(h*1024-512)
		d[t] = (x + add) >> ccsBbar & 0xf
	}
	for i := range CCS2016KeySize {
		key[i] = byte(d[2*i]<<4 | d[2*i+1])
	}
	clear(d[:])
}

// Derandomized Alice0 and Bob are package frodotest's, through
// internal/derand, for the known-answer vectors; each checks the length of
// its randomness.
func init() {
	derand.Register("frodo.CCS2016Alice0", (*KeyExchangeSet).alice0FromSeed)
	derand.Register("frodo.CCS2016Bob", func(s *KeyExchangeSet, aliceMsg, random []byte) ([]byte, []byte, error) {
		if len(random) != ccsBobRandom {
			return nil, nil, fmt.Errorf("frodo: invalid randomness length %d, want %d", len(random), ccsBobRandom)
		}
		if len(aliceMsg) != s.AliceMessageSize() {
			return nil, nil, fmt.Errorf("frodo: invalid %s message from Alice of length %d, want %d", s.name, len(aliceMsg), s.AliceMessageSize())
		}
		msg, key := s.bob(aliceMsg, random)
		return msg, key, nil
	})
}
