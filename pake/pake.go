package pake

import (
	"crypto/rand"
	"crypto/sha3"
	"crypto/subtle"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/pqkem/pqkem/internal/fips203"
)

// Sizes of the low-level inputs and of the session key.
const (
	// PasswordSize is the size of the low-level password pw: 32 bytes,
	// already hashed (see NewCredentials for how a human password becomes
	// pw).
	PasswordSize = 32
	// SessionIDSize is the size of the low-level session identifier sid.
	SessionIDSize = 32
	// SessionKeySize is the size of the session key both parties output.
	SessionKeySize = 32
)

// Protocol is NoIC or Tempo.
type Protocol uint8

const (
	// NoIC[ML-KEM]: the sampler expands the matrix inside the KEM (key
	// generation, encapsulation, and the re-encryption in decapsulation)
	// and the password mask; ρ is masked too. With B0 or C1 the KEM is not
	// FIPS 203 ML-KEM.
	NoIC Protocol = iota + 1
	// Tempo[ML-KEM]: stock FIPS 203 ML-KEM (package mlkem), ρ in the clear;
	// the sampler only makes the password mask.
	Tempo
)

func (p Protocol) String() string {
	switch p {
	case NoIC:
		return "NoIC"
	case Tempo:
		return "Tempo"
	}
	return fmt.Sprintf("Protocol(%d)", uint8(p))
}

// Scheme is one protocol at one ML-KEM level with one sampler, such as
// Tempo-C1-ML-KEM-768 (the default). Schemes are fixed values, safe for
// concurrent use; get them from Default, NewNoIC, NewTempo or
// SchemeByName.
type Scheme struct {
	proto   Protocol
	sampler Sampler
	level   int // 512, 768 or 1024
	k       int
	name    string
	backend backend
	params  *fips203.Params // NoIC: the KEM's parameter set
}

// Name returns the scheme's name, "<protocol>-<sampler>-ML-KEM-<level>",
// for example "Tempo-C1-ML-KEM-768".
func (s *Scheme) Name() string { return s.name }

func (s *Scheme) String() string { return s.name }

// Protocol returns NoIC or Tempo.
func (s *Scheme) Protocol() Protocol { return s.proto }

// Sampler returns the SampleNTT variant the scheme uses.
func (s *Scheme) Sampler() Sampler { return s.sampler }

// Level returns the ML-KEM level: 512, 768 or 1024.
func (s *Scheme) Level() int { return s.level }

// Msg1Size is the size of the initiator's message, 384k + 64 bytes.
func (s *Scheme) Msg1Size() int { return 384*s.k + 64 }

// Msg2Size is the size of the responder's message, 32 bytes of tag and
// the ciphertext.
func (s *Scheme) Msg2Size() int { return 32 + s.backend.ctSize }

var (
	schemesOnce sync.Once
	schemes     []*Scheme
)

func allSchemes() []*Scheme {
	schemesOnce.Do(func() {
		for _, proto := range []Protocol{NoIC, Tempo} {
			for _, level := range []int{512, 768, 1024} {
				for _, smp := range Samplers {
					schemes = append(schemes, newScheme(proto, level, smp))
				}
			}
		}
	})
	return schemes
}

func newScheme(proto Protocol, level int, smp Sampler) *Scheme {
	s := &Scheme{proto: proto, sampler: smp, level: level, k: level / 256}
	s.name = fmt.Sprintf("%v-%v-ML-KEM-%d", proto, smp, level)
	if proto == NoIC {
		s.params = noicParams(level, smp, s.name)
		s.backend = fipsBackend(s.params, func() (initKey, *fipsKey) {
			k := new(NoICDecapsulationKey)
			return k, &k.fipsKey
		})
	} else {
		s.backend = fipsBackend(stockParams(level), func() (initKey, *fipsKey) {
			k := new(tempoKey)
			return k, &k.fipsKey
		})
	}
	return s
}

// Schemes returns every scheme: NoIC then Tempo, each at 512, 768 and 1024,
// each with A0, A1, B0 and C1.
func Schemes() []*Scheme { return append([]*Scheme(nil), allSchemes()...) }

// Default returns Tempo with C1 at ML-KEM-768: stock ML-KEM with a
// constant-time mask, the fastest timing-safe choice.
func Default() *Scheme { return lookup(Tempo, 768, C1) }

// NewNoIC returns NoIC[ML-KEM-level] with the sampler smp (level is 512,
// 768 or 1024).
func NewNoIC(level int, smp Sampler) (*Scheme, error) { return find(NoIC, level, smp) }

// NewTempo returns Tempo[ML-KEM-level] with the sampler smp for the mask.
func NewTempo(level int, smp Sampler) (*Scheme, error) { return find(Tempo, level, smp) }

func find(proto Protocol, level int, smp Sampler) (*Scheme, error) {
	if level != 512 && level != 768 && level != 1024 {
		return nil, fmt.Errorf("pake: invalid ML-KEM level %d, want 512, 768 or 1024", level)
	}
	if !smp.valid() {
		return nil, fmt.Errorf("pake: invalid sampler %v, want A0, A1, B0 or C1", smp)
	}
	return lookup(proto, level, smp), nil
}

func lookup(proto Protocol, level int, smp Sampler) *Scheme {
	for _, s := range allSchemes() {
		if s.proto == proto && s.level == level && s.sampler == smp {
			return s
		}
	}
	panic("pake: no such scheme")
}

// SchemeByName returns the scheme with the given name, such as
// "NoIC-C1-ML-KEM-1024" (case-insensitive; C0 is taken as C1).
func SchemeByName(name string) (*Scheme, error) {
	c0 := strings.Replace(name, "-C0-", "-C1-", 1)
	c0 = strings.Replace(c0, "-c0-", "-C1-", 1)
	for _, s := range allSchemes() {
		if strings.EqualFold(s.name, name) || strings.EqualFold(s.name, c0) {
			return s, nil
		}
	}
	return nil, fmt.Errorf("pake: unknown scheme %q, want <NoIC|Tempo>-<A0|A1|B0|C1>-ML-KEM-<512|768|1024>", name)
}

// ErrPasswordMismatch is what Finish returns when the responder's tag does
// not verify: the passwords (or session identifiers) differ, or msg2 was
// corrupted or forged. No key is released.
var ErrPasswordMismatch = errors.New("pake: key confirmation failed: password mismatch, or a corrupted or forged message")

// Initiator is the initiator's state between Start and Finish. It holds
// the ephemeral ML-KEM (or NoIC KEM) decapsulation key. Finish may be
// called once; the state is then spent.
type Initiator struct {
	s       *Scheme
	dk      initKey
	ek      []byte
	msg1Pre []byte // msg1[0 : 384k+32]
	sid     [SessionIDSize]byte
	spent   bool
	mu      sync.Mutex
}

// Scheme returns the scheme the state belongs to.
func (in *Initiator) Scheme() *Scheme { return in.s }

// Start runs the initiator's first step (initStart) with the 32-byte
// password pw and session identifier sid: it generates an ephemeral key
// pair, masks its encapsulation key with the password, and returns the
// state and msg1 (Msg1Size bytes) to send to the responder.
//
// pw must be uniformly random or the output of a password hash (see
// NewCredentials), never a raw human password.
func (s *Scheme) Start(pw, sid []byte) (*Initiator, []byte, error) {
	return s.start(pw, sid, nil, nil)
}

// start is Start with optional fixed randomness (seed = d || z, then the
// nonce), in the artifact's order, for the known-answer tests.
func (s *Scheme) start(pw, sid []byte, seed *[64]byte, nonce *[32]byte) (*Initiator, []byte, error) {
	if err := checkInputs(pw, sid); err != nil {
		return nil, nil, err
	}
	var rnd [64]byte
	if seed == nil {
		rand.Read(rnd[:])
		seed = &rnd
	}
	var nc [32]byte
	if nonce == nil {
		rand.Read(nc[:])
		nonce = &nc
	}
	ms := s.maskSeeds(pw, sid, nonce)
	tLen := 384 * s.k
	msg1 := make([]byte, s.Msg1Size())
	dk, ek, err := s.startKey(seed, &ms, msg1)
	if err == nil {
		nm := s.nonceMask(pw, sid, msg1)
		subtle.XORBytes(msg1[:32], nonce[:], nm[:])
	}
	clear(rnd[:])
	clear(nc[:])
	ms.clear()
	if err != nil {
		return nil, nil, err
	}
	in := &Initiator{s: s, dk: dk, ek: ek, msg1Pre: append([]byte(nil), msg1[:tLen+32]...)}
	copy(in.sid[:], sid)
	return in, msg1, nil
}

// startKey generates the initiator's key from seed (d || z), returns it
// and its encoding ek, and writes msg1[32:] = T' || rho' (NoIC) or
// T' || rho (Tempo), ek masked with the mask seeds.
func (s *Scheme) startKey(seed *[64]byte, ms *maskSeedsT, msg1 []byte) (initKey, []byte, error) {
	var pre *presampled
	if s.presamples() {
		// K-PKE.KeyGen takes rho from G(d || k).
		var gIn [33]byte
		copy(gIn[:], seed[:32])
		gIn[32] = byte(s.k)
		g := sha3.Sum512(gIn[:])
		pre = s.presample((*[32]byte)(g[:32]), &ms.s)
		clear(g[:])
	}
	defer pre.clear()
	dk, err := s.backend.newKey(seed[:], pre)
	if err != nil {
		return nil, nil, err
	}
	tLen := 384 * s.k
	ek := dk.encapsulationKey()
	copy(msg1[32:], ek) // T || rho
	var maskBuf [4][256]uint16
	mask := maskBuf[:s.k]
	if pre != nil {
		mask = pre.mask
	} else {
		maskVecTo(&maskBuf, s.sampler, &ms.s, s.k)
	}
	maskT(msg1[32:32+tLen], mask, false)
	clear(mask)
	if s.proto == NoIC {
		subtle.XORBytes(msg1[32+tLen:], msg1[32+tLen:], ms.r[:])
	}
	return dk, ek, nil
}

// Respond runs the responder's step (resp) with the 32-byte password pw
// and session identifier sid on msg1: it recovers the initiator's
// encapsulation key, encapsulates to it, and returns msg2 (Msg2Size
// bytes) and the 32-byte session key.
//
// The responder never aborts: any msg1 of the right length decodes to some
// valid encapsulation key, and with a wrong password the key it outputs is
// one nobody else knows. Authentication toward the responder is implicit;
// use a key-confirmation message from the initiator (as pqkem pake does) if
// the responder must know. Only wrong input lengths are errors.
//
// The 12-bit fields of msg1 are not checked against q (an honest msg1 has
// none at or above q); they are reduced, as the artifact does, so that
// there is no abort path.
func (s *Scheme) Respond(pw, sid, msg1 []byte) (msg2, key []byte, err error) {
	return s.respond(pw, sid, msg1, nil)
}

func (s *Scheme) respond(pw, sid, msg1 []byte, m *[32]byte) (msg2, key []byte, err error) {
	if err := checkInputs(pw, sid); err != nil {
		return nil, nil, err
	}
	if len(msg1) != s.Msg1Size() {
		return nil, nil, fmt.Errorf("pake: invalid %s msg1 length %d, want %d", s.name, len(msg1), s.Msg1Size())
	}
	ek, pre := s.recoverKey(pw, sid, msg1)
	K, ct, err := s.backend.encapsulate(ek, m, pre)
	pre.clear()
	if err != nil {
		// Unreachable: a recovered key is always canonical.
		return nil, nil, err
	}
	key, tag := s.keyAndTag(K, sid, ek, msg1[:384*s.k+32], ct)
	clear(K)
	msg2 = make([]byte, 0, s.Msg2Size())
	msg2 = append(append(msg2, tag[:]...), ct...)
	return msg2, key, nil
}

// recoverKey unmasks the initiator's encapsulation key from msg1. For
// NoIC with a constant-time sampler it also returns the matrix of the
// recovered key, sampled in one batch with the mask (see presample).
func (s *Scheme) recoverKey(pw, sid, msg1 []byte) ([]byte, *presampled) {
	tLen := 384 * s.k
	nm := s.nonceMask(pw, sid, msg1)
	var nonce [32]byte
	subtle.XORBytes(nonce[:], msg1[:32], nm[:])
	ms := s.maskSeeds(pw, sid, &nonce)
	clear(nonce[:])
	ek := make([]byte, tLen+32)
	copy(ek, msg1[32:])
	if s.proto == NoIC {
		subtle.XORBytes(ek[tLen:], ek[tLen:], ms.r[:])
	}
	var pre *presampled
	var maskBuf [4][256]uint16
	var mask [][256]uint16
	if s.presamples() {
		pre = s.presample((*[32]byte)(ek[tLen:]), &ms.s)
		mask = pre.mask
	} else {
		maskVecTo(&maskBuf, s.sampler, &ms.s, s.k)
		mask = maskBuf[:s.k]
	}
	maskT(ek[:tLen], mask, true)
	clear(mask)
	ms.clear()
	return ek, pre
}

// presampled is the matrix for one rho and the mask vector, sampled in one
// batch, with a parameter set that takes the matrix from it.
type presampled struct {
	rho    [32]byte
	a      [16][256]uint16
	mask   [][256]uint16
	params *fips203.Params
}

// presamples reports whether the scheme samples matrix and mask together:
// NoIC with a constant-time sampler. The four-way Keccak then runs full
// more often (k = 3: 9 + 3 polynomials in 3 batches instead of 4).
func (s *Scheme) presamples() bool { return s.proto == NoIC && s.sampler != A0 }

// presample samples the k x k matrix for rho and the k mask polynomials for
// the mask seed in one batch.
func (s *Scheme) presample(rho, maskSeed *[32]byte) *presampled {
	k := s.k
	pre := &presampled{rho: *rho, mask: make([][256]uint16, k)}
	out := make([]*[256]uint16, 0, k*k+k)
	seeds := make([][34]byte, 0, k*k+k)
	for i := range k {
		for j := range k {
			var sd [34]byte
			copy(sd[:], rho[:])
			sd[32], sd[33] = byte(i), byte(j)
			seeds = append(seeds, sd)
			out = append(out, &pre.a[i*k+j])
		}
	}
	for i := range k {
		seeds = append(seeds, maskXOFInput(maskSeed, i))
		out = append(out, &pre.mask[i])
	}
	s.sampler.sampleBatch(out, seeds)
	clear(seeds)
	base, smp := s.params, s.sampler
	pre.params = fips203.WithSampler(base, base.Name(), func(out []*[256]uint16, seeds [][34]byte) {
		ok := len(out) == k*k
		for e := range out {
			ok = ok && subtle.ConstantTimeCompare(seeds[e][:32], pre.rho[:]) == 1 &&
				seeds[e][32] == byte(e/k) && seeds[e][33] == byte(e%k)
		}
		if !ok { // not the matrix it was made for: sample it
			smp.sampleBatch(out, seeds)
			return
		}
		for e := range out {
			*out[e] = pre.a[e]
		}
	})
	return pre
}

func (pre *presampled) clear() {
	if pre != nil {
		pre.a = [16][256]uint16{}
		pre.rho = [32]byte{}
		clear(pre.mask)
	}
}

// Finish runs the initiator's last step (initEnd) on msg2: it decapsulates,
// recomputes the tag, compares it with msg2's in constant time, and returns
// the 32-byte session key if they match, ErrPasswordMismatch otherwise. It
// may be called once: a second call is an error, whatever the first
// returned. A msg2 of the wrong length is an error and also spends the
// state.
func (in *Initiator) Finish(msg2 []byte) (key []byte, err error) {
	in.mu.Lock()
	defer in.mu.Unlock()
	if in.spent {
		return nil, errors.New("pake: Finish called twice: the initiator state is spent")
	}
	if in.dk == nil {
		return nil, errors.New("pake: uninitialized initiator state")
	}
	in.spent = true
	dk := in.dk
	in.dk = nil
	s := in.s
	if len(msg2) != s.Msg2Size() {
		return nil, fmt.Errorf("pake: invalid %s msg2 length %d, want %d", s.name, len(msg2), s.Msg2Size())
	}
	ct := msg2[32:]
	K, err := dk.decapsulate(ct)
	if err != nil {
		return nil, err
	}
	k, tag := s.keyAndTag(K, in.sid[:], in.ek, in.msg1Pre, ct)
	clear(K)
	if subtle.ConstantTimeCompare(tag[:], msg2[:32]) != 1 {
		clear(k)
		return nil, ErrPasswordMismatch
	}
	return k, nil
}

func checkInputs(pw, sid []byte) error {
	if len(pw) != PasswordSize {
		return fmt.Errorf("pake: invalid password length %d, want %d (hash a human password with NewCredentials)", len(pw), PasswordSize)
	}
	if len(sid) != SessionIDSize {
		return fmt.Errorf("pake: invalid session identifier length %d, want %d", len(sid), SessionIDSize)
	}
	return nil
}

// maskSeedsT holds the mask seed s and, for NoIC, the ρ mask r.
type maskSeedsT struct{ s, r [32]byte }

func (m *maskSeedsT) clear() { *m = maskSeedsT{} }

// maskSeeds is NoIC's G(pw || sid || nonce) split into s and r, or Tempo's
// s = H(pw || sid || nonce).
func (s *Scheme) maskSeeds(pw, sid []byte, nonce *[32]byte) maskSeedsT {
	var in [96]byte
	copy(in[:], pw)
	copy(in[32:], sid)
	copy(in[64:], nonce[:])
	var ms maskSeedsT
	if s.proto == NoIC {
		g := sha3.Sum512(in[:])
		copy(ms.s[:], g[:32])
		copy(ms.r[:], g[32:])
		clear(g[:])
	} else {
		ms.s = sha3.Sum256(in[:])
	}
	clear(in[:])
	return ms
}

// nonceMask is H(pw || sid || X) with X = msg1[32:] (T' || ρ') for NoIC,
// X = msg1[32 : 32+384k] (T') for Tempo.
func (s *Scheme) nonceMask(pw, sid, msg1 []byte) [32]byte {
	x := msg1[32:]
	if s.proto == Tempo {
		x = msg1[32 : 32+384*s.k]
	}
	h := sha3.New256()
	h.Write(pw)
	h.Write(sid)
	h.Write(x)
	var out [32]byte
	h.Sum(out[:0])
	return out
}

// keyAndTag is G(K || sid || ek || msg1[0:384k+32] || ct), split into the
// session key (first half) and the tag (second half).
func (s *Scheme) keyAndTag(K, sid, ek, msg1Pre, ct []byte) (key []byte, tag [32]byte) {
	h := sha3.New512()
	h.Write(K)
	h.Write(sid)
	h.Write(ek)
	h.Write(msg1Pre)
	h.Write(ct)
	var g [64]byte
	h.Sum(g[:0])
	key = append([]byte(nil), g[:32]...)
	copy(tag[:], g[32:])
	clear(g[:])
	return key, tag
}

// maskVec returns the k mask polynomials: polynomial i is the sampler's
// output for seed || i || 0xFF. (The protocol uses maskVecTo, into a
// buffer on its stack; the tests use this.)
func maskVec(smp Sampler, seed *[32]byte, k int) [][256]uint16 {
	out := new([4][256]uint16)
	maskVecTo(out, smp, seed, k)
	return out[:k]
}

// maskXOFInput is the sampler's 34-byte input for mask polynomial i:
// seed || i || 0xFF.
func maskXOFInput(seed *[32]byte, i int) (in [34]byte) {
	copy(in[:], seed[:])
	in[32], in[33] = byte(i), 0xff
	return in
}

// maskVecTo is maskVec into mask[:k], with no allocation.
func maskVecTo(mask *[4][256]uint16, smp Sampler, seed *[32]byte, k int) {
	var ptrs [4]*[256]uint16
	var seeds [4][34]byte
	for i := range k {
		ptrs[i] = &mask[i]
		seeds[i] = maskXOFInput(seed, i)
	}
	smp.sampleBatch(ptrs[:k], seeds[:k])
	clear(seeds[:])
}

// maskT adds (or, with sub, subtracts) the mask to the 12-bit fields of t,
// modulo q, in place, in constant time. Fields at or above q are reduced:
// the output is always canonical.
func maskT(t []byte, mask [][256]uint16, sub bool) {
	for i := range mask {
		p := t[384*i : 384*(i+1)]
		for j := 0; j < n; j += 2 {
			b := p[3*j/2 : 3*j/2+3]
			x0 := uint32(b[0]) | uint32(b[1]&0x0f)<<8
			x1 := uint32(b[1])>>4 | uint32(b[2])<<4
			m0, m1 := uint32(mask[i][j]), uint32(mask[i][j+1])
			if sub { // public: which side runs
				m0, m1 = q-m0, q-m1 // in [1, q]
			}
			y0 := barrett32(x0 + m0)
			y1 := barrett32(x1 + m1)
			b[0] = byte(y0)
			b[1] = byte(y0>>8) | byte(y1<<4)
			b[2] = byte(y1 >> 4)
		}
	}
}

// initKey is the initiator's ephemeral decapsulation key.
type initKey interface {
	encapsulationKey() []byte
	decapsulate(ct []byte) ([]byte, error)
	// expandedBytes is the FIPS 203 decapsulation key encoding (for the
	// known-answer tests).
	expandedBytes() []byte
}

// backend is the KEM inside a scheme.
type backend struct {
	ctSize int
	// newKey makes the initiator's key from d || z; pre, if not nil, has
	// its matrix (NoIC only).
	newKey func(seed []byte, pre *presampled) (initKey, error)
	// encapsulate encapsulates to the encoded key ek, with m as FIPS 203's
	// randomness, or fresh randomness if m is nil; pre, if not nil, has
	// the key's matrix (NoIC only).
	encapsulate func(ek []byte, m *[32]byte, pre *presampled) (K, ct []byte, err error)
}

// NoICDecapsulationKey is a decapsulation key of the KEM inside NoIC: ML-KEM
// with the scheme's sampler for the matrix. With B0 or C1 it is not an
// ML-KEM key, and it is a type of its own so that it cannot be used as
// one (or an ML-KEM key as one of these).
type NoICDecapsulationKey struct{ fipsKey }

// fipsKey is a decapsulation key of internal/fips203 as an initKey.
type fipsKey struct {
	dk fips203.DecapsulationKey
}

func (k *fipsKey) encapsulationKey() []byte { return k.dk.EncapsulationKey().Bytes(nil) }

func (k *fipsKey) expandedBytes() []byte { return k.dk.ExpandedBytes(nil) }

func (k *fipsKey) decapsulate(ct []byte) ([]byte, error) {
	var K [32]byte
	if err := k.dk.Decapsulate(&K, ct); err != nil {
		return nil, err
	}
	return K[:], nil
}

// noicParams returns the fips203 parameter set of NoIC with smp at level:
// the stock one for A0 (FIPS 203 SampleNTT, which A0 is), else a copy with
// the sampler plugged in.
func noicParams(level int, smp Sampler, name string) *fips203.Params {
	base := stockParams(level)
	if smp == A0 {
		return base
	}
	return fips203.WithSampler(base, name, smp.sampleBatch)
}

// stockParams returns the FIPS 203 parameter set ML-KEM-level.
func stockParams(level int) *fips203.Params {
	return map[int]*fips203.Params{512: fips203.MLKEM512, 768: fips203.MLKEM768, 1024: fips203.MLKEM1024}[level]
}

// fipsBackend is the KEM of p from internal/fips203, its keys made by
// newKey (NoIC's or Tempo's own type, and the fipsKey inside it).
func fipsBackend(p *fips203.Params, newKey func() (initKey, *fipsKey)) backend {
	return backend{
		ctSize: p.CiphertextSize(),
		newKey: func(seed []byte, pre *presampled) (initKey, error) {
			k, fk := newKey()
			p := p
			if pre != nil {
				p = pre.params
			}
			if err := fips203.NewDecapsulationKeyFromSeed(&fk.dk, p, seed); err != nil {
				return nil, err
			}
			return k, nil
		},
		encapsulate: func(ekb []byte, m *[32]byte, pre *presampled) (K, ct []byte, err error) {
			var ek fips203.EncapsulationKey
			p := p
			if pre != nil {
				p = pre.params
			}
			if err := fips203.NewEncapsulationKey(&ek, p, ekb); err != nil {
				return nil, nil, err
			}
			var mm [32]byte
			if m == nil {
				rand.Read(mm[:])
				m = &mm
			}
			var k [32]byte
			ct = ek.EncapsulateInternal(&k, make([]byte, 0, p.CiphertextSize()), m)
			clear(mm[:])
			return k[:], ct, nil
		},
	}
}
