package noise

import (
	"fmt"
	"math/bits"
	"strconv"
)

// A Pattern is a KEM-based Noise handshake pattern: one of the twelve
// interactive patterns of PQNoise (Angel, Dowling, Hülsing, Schwabe,
// Weber, "Post Quantum Noise", ACM CCS 2022), as katzenpost/nyquist and
// Clatter define them, or one of Clatter's twelve hybrid patterns, which
// add X25519 to them ([HybridNN] to [HybridIX]), either with PSK
// modifiers ([Pattern.WithPSK]). The first letter says what the
// responder learns of the initiator's static key (N: none, K: known
// beforehand, X: sent during the handshake, I: sent in the first
// message), the second what the initiator learns of the responder's (N:
// none, K: known beforehand, X: sent).
//
// A Pattern is a small value: the base pattern, a hybrid flag and the
// set of PSK positions, so patterns compare with ==.
type Pattern uint16

// The twelve PQ patterns. Messages alternate, the initiator sending first;
// lines above "..." are pre-messages (keys known before the handshake).
const (
	PQNN Pattern = iota + 1 // -> e; <- ekem
	PQNK                    // <- s ... -> skem, e; <- ekem
	PQNX                    // -> e; <- ekem, s; -> skem
	PQXN                    // -> e; <- ekem; -> s; <- skem
	PQXK                    // <- s ... -> skem, e; <- ekem; -> s; <- skem
	PQXX                    // -> e; <- ekem, s; -> skem, s; <- skem
	PQKN                    // -> s ... -> e; <- ekem, skem
	PQKK                    // -> s, <- s ... -> skem, e; <- ekem, skem
	PQKX                    // -> s ... -> e; <- ekem, skem, s; -> skem
	PQIN                    // -> e, s; <- ekem, skem
	PQIK                    // <- s ... -> skem, e, s; <- ekem, skem
	PQIX                    // -> e, s; <- ekem, skem, s; -> skem
)

// The twelve hybrid patterns of Clatter 2.2: each message is the KEM
// tokens of the PQ pattern's message followed by the tokens of the
// classical Noise pattern's, with X25519. Every e and s then carries an
// X25519 key and a KEM key, and the static keys are hybrid keys
// ([HybridDecapsulationKey], [HybridEncapsulationKey]).
const (
	HybridNN Pattern = hybridFlag + iota + 1 // -> e; <- ekem, e, ee
	HybridNK                                 // <- s ... -> skem, e, es; <- ekem, e, ee
	HybridNX                                 // -> e; <- ekem, e, ee, s, es; -> skem
	HybridXN                                 // -> e; <- ekem, e, ee; -> s, se; <- skem
	HybridXK                                 // <- s ... -> skem, e, es; <- ekem, e, ee; -> s, se; <- skem
	HybridXX                                 // -> e; <- ekem, e, ee, s, es; -> skem, s, se; <- skem
	HybridKN                                 // -> s ... -> e; <- ekem, skem, e, ee, se
	HybridKK                                 // -> s, <- s ... -> skem, e, es, ss; <- ekem, skem, e, ee, se
	HybridKX                                 // -> s ... -> e; <- ekem, skem, e, ee, se, s, es; -> skem
	HybridIN                                 // -> e, s; <- ekem, skem, e, ee, se
	HybridIK                                 // <- s ... -> skem, e, es, s, ss; <- ekem, skem, e, ee, se
	HybridIX                                 // -> e, s; <- ekem, skem, e, ee, se, s, es; -> skem
)

const (
	baseMask   = 0x0f
	hybridFlag = 0x10
	pskShift   = 8
	pskMask    = 0x1f << pskShift // psk0 to psk4
)

// MaxPSKs is the most psk tokens a pattern may have, as in Clatter (whose
// PSK queue holds four).
const MaxPSKs = 4

// Patterns returns the twelve PQ patterns in the order of their constants.
func Patterns() []Pattern {
	return []Pattern{PQNN, PQNK, PQNX, PQXN, PQXK, PQXX, PQKN, PQKK, PQKX, PQIN, PQIK, PQIX}
}

// HybridPatterns returns the twelve hybrid patterns in the order of their
// constants.
func HybridPatterns() []Pattern {
	return []Pattern{HybridNN, HybridNK, HybridNX, HybridXN, HybridXK, HybridXX, HybridKN, HybridKK, HybridKX, HybridIN, HybridIK, HybridIX}
}

// WithPSK returns the pattern with psk tokens at the given positions
// added (Noise section 9: psk0 first in the first message, pskN last in
// message N, counting from 1), such as PQXX.WithPSK(3), "pqXXpsk3". The
// result is valid only if every position is at most the number of
// messages and there are at most [MaxPSKs]; a protocol is refused if the
// placement breaks Clatter's PSK rule ([ErrPSKInvalid]).
func (p Pattern) WithPSK(positions ...int) Pattern {
	for _, n := range positions {
		if n < 0 || n > 4 {
			return Pattern(0xffff) // no valid pattern
		}
		p |= 1 << (pskShift + n)
	}
	return p
}

// PSKPositions returns the positions of the pattern's psk tokens, in
// ascending order: the order in which the handshake uses the PSKs.
func (p Pattern) PSKPositions() []int {
	var ps []int
	for n := range 5 {
		if p&(1<<(pskShift+n)) != 0 {
			ps = append(ps, n)
		}
	}
	return ps
}

// PSKs returns the number of psk tokens of the pattern, the number of
// PSKs a handshake of it needs.
func (p Pattern) PSKs() int { return bits.OnesCount16(uint16(p & pskMask)) }

// Hybrid reports whether the pattern is a hybrid (X25519 and KEM) one.
func (p Pattern) Hybrid() bool { return p&hybridFlag != 0 }

// Base returns the pattern without its PSK modifiers and, for a hybrid
// pattern, the PQ pattern it extends: PQXX for HybridXXpsk3.
func (p Pattern) Base() Pattern { return p & baseMask }

type token uint8

const (
	tokenE    token = iota + 1 // the sender's ephemeral public key (the initiator's only, in PQ patterns)
	tokenS                     // the sender's static public key
	tokenEKEM                  // an encapsulation to the initiator's ephemeral key
	tokenSKEM                  // an encapsulation to the receiver's static key
	tokenPSK                   // a pre-shared key mixed in
	tokenEE                    // X25519 of the two ephemeral keys
	tokenES                    // X25519 of the initiator's ephemeral and the responder's static key
	tokenSE                    // X25519 of the initiator's static and the responder's ephemeral key
	tokenSS                    // X25519 of the two static keys
)

func (t token) String() string {
	return [...]string{"?", "e", "s", "ekem", "skem", "psk", "ee", "es", "se", "ss"}[t]
}

// patternSpec is a pattern's pre-messages and messages, token by token.
type patternSpec struct {
	name     string
	preInit  bool // -> s: the initiator's static key is a pre-message
	preResp  bool // <- s: the responder's static key is a pre-message
	messages [][]token
	psk      bool  // the pattern has a psk token: every e is also MixKey'd
	pskErr   error // the placement breaks Clatter's PSK rule
}

var (
	e, s, ekem, skem     = tokenE, tokenS, tokenEKEM, tokenSKEM
	ee, es, se, ss       = tokenEE, tokenES, tokenSE, tokenSS
	baseNames            = [...]string{"", "NN", "NK", "NX", "XN", "XK", "XX", "KN", "KK", "KX", "IN", "IK", "IX"}
	pqSpecs, hybridSpecs [13]patternSpec
)

func init() {
	// The PQ patterns follow nyquist's pattern/pq_interactive.go and
	// Clatter's handshakepattern.rs, which define the same token
	// sequences; the hybrid ones follow Clatter 2.2 (spec section 12.6).
	pqSpecs = [13]patternSpec{
		PQNN: {"", false, false, [][]token{{e}, {ekem}}, false, nil},
		PQNK: {"", false, true, [][]token{{skem, e}, {ekem}}, false, nil},
		PQNX: {"", false, false, [][]token{{e}, {ekem, s}, {skem}}, false, nil},
		PQXN: {"", false, false, [][]token{{e}, {ekem}, {s}, {skem}}, false, nil},
		PQXK: {"", false, true, [][]token{{skem, e}, {ekem}, {s}, {skem}}, false, nil},
		PQXX: {"", false, false, [][]token{{e}, {ekem, s}, {skem, s}, {skem}}, false, nil},
		PQKN: {"", true, false, [][]token{{e}, {ekem, skem}}, false, nil},
		PQKK: {"", true, true, [][]token{{skem, e}, {ekem, skem}}, false, nil},
		PQKX: {"", true, false, [][]token{{e}, {ekem, skem, s}, {skem}}, false, nil},
		PQIN: {"", false, false, [][]token{{e, s}, {ekem, skem}}, false, nil},
		PQIK: {"", false, true, [][]token{{skem, e, s}, {ekem, skem}}, false, nil},
		PQIX: {"", false, false, [][]token{{e, s}, {ekem, skem, s}, {skem}}, false, nil},
	}
	hybridSpecs = [13]patternSpec{
		PQNN: {"", false, false, [][]token{{e}, {ekem, e, ee}}, false, nil},
		PQNK: {"", false, true, [][]token{{skem, e, es}, {ekem, e, ee}}, false, nil},
		PQNX: {"", false, false, [][]token{{e}, {ekem, e, ee, s, es}, {skem}}, false, nil},
		PQXN: {"", false, false, [][]token{{e}, {ekem, e, ee}, {s, se}, {skem}}, false, nil},
		PQXK: {"", false, true, [][]token{{skem, e, es}, {ekem, e, ee}, {s, se}, {skem}}, false, nil},
		PQXX: {"", false, false, [][]token{{e}, {ekem, e, ee, s, es}, {skem, s, se}, {skem}}, false, nil},
		PQKN: {"", true, false, [][]token{{e}, {ekem, skem, e, ee, se}}, false, nil},
		PQKK: {"", true, true, [][]token{{skem, e, es, ss}, {ekem, skem, e, ee, se}}, false, nil},
		PQKX: {"", true, false, [][]token{{e}, {ekem, skem, e, ee, se, s, es}, {skem}}, false, nil},
		PQIN: {"", false, false, [][]token{{e, s}, {ekem, skem, e, ee, se}}, false, nil},
		PQIK: {"", false, true, [][]token{{skem, e, es, s, ss}, {ekem, skem, e, ee, se}}, false, nil},
		PQIX: {"", false, false, [][]token{{e, s}, {ekem, skem, e, ee, se, s, es}, {skem}}, false, nil},
	}
	for b := PQNN; b <= PQIX; b++ {
		pqSpecs[b].name = "pq" + baseNames[b]
		hybridSpecs[b].name = "hybrid" + baseNames[b]
	}
	specs = make(map[Pattern]*patternSpec)
	byName = make(map[string]Pattern)
	for b := PQNN; b <= PQIX; b++ {
		for _, hy := range []Pattern{0, hybridFlag} {
			base := &pqSpecs[b]
			if hy != 0 {
				base = &hybridSpecs[b]
			}
			for mask := Pattern(0); mask < 32; mask++ {
				p := b | hy | mask<<pskShift
				sp := withPSK(base, p)
				if sp == nil {
					continue
				}
				specs[p] = sp
				byName[sp.name] = p
			}
		}
	}
}

// specs holds every valid pattern's spec, and byName every valid
// pattern by its name; both are filled by init and read only after.
var (
	specs  map[Pattern]*patternSpec
	byName map[string]Pattern
)

// withPSK returns base with the psk tokens of p inserted, or nil if p's
// psk positions do not fit base.
func withPSK(base *patternSpec, p Pattern) *patternSpec {
	pos := p.PSKPositions()
	if len(pos) == 0 {
		return base
	}
	if len(pos) > MaxPSKs || pos[len(pos)-1] > len(base.messages) {
		return nil
	}
	sp := &patternSpec{name: base.name, preInit: base.preInit, preResp: base.preResp, psk: true}
	for i, msg := range base.messages {
		var m []token
		if i == 0 && pos[0] == 0 {
			m = append(m, tokenPSK)
		}
		m = append(m, msg...)
		for _, n := range pos {
			if n == i+1 {
				m = append(m, tokenPSK)
			}
		}
		sp.messages = append(sp.messages, m)
	}
	for i, n := range pos {
		if i > 0 {
			sp.name += "+"
		}
		sp.name += "psk" + strconv.Itoa(n)
	}
	sp.pskErr = pskRule(sp)
	return sp
}

// pskRule applies Clatter 2.2's PSK validity rule (spec section 12.4)
// to the whole pattern: a party that has processed a psk token (writing
// or reading it) may not write an s or an skem until it has written an
// e, an ekem or an skem of its own (its own randomness). Clatter makes
// the same checks when each token is written (so does WriteMessage);
// making them on the pattern refuses it before anything is sent. It is
// what refuses pqNKpsk0, pqKKpsk0, pqXKpsk0, pqIKpsk0 and their hybrid
// forms (CVE-2026-24785): there the first skem ciphertext would be
// encrypted under a key derived from the PSK alone.
func pskRule(sp *patternSpec) error {
	var applied, own [2]bool // by party: 0 initiator, 1 responder
	for i, msg := range sp.messages {
		w := i % 2
		for _, t := range msg {
			switch t {
			case tokenPSK:
				applied = [2]bool{true, true}
			case tokenE, tokenEKEM:
				own[w] = true
			case tokenS, tokenSKEM:
				if applied[w] && !own[w] {
					return fmt.Errorf("%w: in %s, message %d's %v follows a psk with no randomness of the %s's before it",
						ErrPSKInvalid, sp.name, i, t, roleName(w == 0))
				}
				if t == tokenSKEM {
					own[w] = true
				}
			}
		}
	}
	return nil
}

func roleName(initiator bool) string {
	if initiator {
		return "initiator"
	}
	return "responder"
}

// parsePattern returns the pattern named name, such as "pqXXpsk3".
func parsePattern(name string) (Pattern, bool) {
	p, ok := byName[name]
	return p, ok
}

func (p Pattern) valid() bool { return specs[p] != nil }

func (p Pattern) spec() *patternSpec { return specs[p] }

// String returns the pattern's Noise name, such as "pqXX", "pqXXpsk3",
// "hybridIKpsk1+psk2".
func (p Pattern) String() string {
	if !p.valid() {
		return fmt.Sprintf("Pattern(%d)", uint16(p))
	}
	return p.spec().name
}

// Messages returns the number of handshake messages of the pattern.
func (p Pattern) Messages() int {
	if !p.valid() {
		return 0
	}
	return len(p.spec().messages)
}

// NeedsStaticKey reports whether the initiator (or, with initiator false,
// the responder) needs a static key pair of its own in the pattern: it
// sends one (s), receives an encapsulation to one (skem), or has its
// static key known beforehand.
func (p Pattern) NeedsStaticKey(initiator bool) bool {
	if !p.valid() {
		return false
	}
	sp := p.spec()
	if (initiator && sp.preInit) || (!initiator && sp.preResp) {
		return true
	}
	for i, msg := range sp.messages {
		mine := (i%2 == 0) == initiator
		for _, t := range msg {
			if (t == tokenS && mine) || (t == tokenSKEM && !mine) {
				return true
			}
		}
	}
	return false
}

// NeedsRemoteStaticKey reports whether the initiator (or, with initiator
// false, the responder) must be given the peer's static public key before
// the handshake: the peer's static key is a pre-message of the pattern.
func (p Pattern) NeedsRemoteStaticKey(initiator bool) bool {
	if !p.valid() {
		return false
	}
	sp := p.spec()
	return (initiator && sp.preResp) || (!initiator && sp.preInit)
}

// ReceivesStaticKey reports whether the initiator (or, with initiator
// false, the responder) receives the peer's static public key during the
// handshake (the peer sends an s token).
func (p Pattern) ReceivesStaticKey(initiator bool) bool {
	if !p.valid() {
		return false
	}
	for i, msg := range p.spec().messages {
		if (i%2 == 0) == initiator {
			continue
		}
		for _, t := range msg {
			if t == tokenS {
				return true
			}
		}
	}
	return false
}

// hasStaticKeys reports whether any party of the pattern has a static key.
func (p Pattern) hasStaticKeys() bool {
	return p.NeedsStaticKey(true) || p.NeedsStaticKey(false)
}
