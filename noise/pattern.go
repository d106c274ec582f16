package noise

import "fmt"

// A Pattern is one of the twelve interactive KEM handshake patterns of
// PQNoise (Angel, Dowling, Hülsing, Schwabe, Weber, "Post Quantum Noise",
// ACM CCS 2022), as katzenpost/nyquist and Clatter define them. The first
// letter says what the responder learns of the initiator's static key
// (N: none, K: known beforehand, X: sent during the handshake, I: sent in
// the first message), the second what the initiator learns of the
// responder's (N: none, K: known beforehand, X: sent).
type Pattern uint8

// The twelve patterns. Messages alternate, the initiator sending first;
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

// Patterns returns the twelve patterns in the order of their constants.
func Patterns() []Pattern {
	return []Pattern{PQNN, PQNK, PQNX, PQXN, PQXK, PQXX, PQKN, PQKK, PQKX, PQIN, PQIK, PQIX}
}

type token uint8

const (
	tokenE    token = iota + 1 // the initiator's ephemeral public key
	tokenS                     // the sender's static public key
	tokenEKEM                  // an encapsulation to the initiator's ephemeral key
	tokenSKEM                  // an encapsulation to the receiver's static key
)

func (t token) String() string {
	return [...]string{"?", "e", "s", "ekem", "skem"}[t]
}

// patternSpec is a pattern's pre-messages and messages, token by token.
type patternSpec struct {
	name     string
	preInit  bool // -> s: the initiator's static key is a pre-message
	preResp  bool // <- s: the responder's static key is a pre-message
	messages [][]token
}

var (
	e, s, ekem, skem = tokenE, tokenS, tokenEKEM, tokenSKEM
)

// patternSpecs follows nyquist's pattern/pq_interactive.go and Clatter's
// handshakepattern.rs, which define the same token sequences.
var patternSpecs = [...]patternSpec{
	PQNN: {"pqNN", false, false, [][]token{{e}, {ekem}}},
	PQNK: {"pqNK", false, true, [][]token{{skem, e}, {ekem}}},
	PQNX: {"pqNX", false, false, [][]token{{e}, {ekem, s}, {skem}}},
	PQXN: {"pqXN", false, false, [][]token{{e}, {ekem}, {s}, {skem}}},
	PQXK: {"pqXK", false, true, [][]token{{skem, e}, {ekem}, {s}, {skem}}},
	PQXX: {"pqXX", false, false, [][]token{{e}, {ekem, s}, {skem, s}, {skem}}},
	PQKN: {"pqKN", true, false, [][]token{{e}, {ekem, skem}}},
	PQKK: {"pqKK", true, true, [][]token{{skem, e}, {ekem, skem}}},
	PQKX: {"pqKX", true, false, [][]token{{e}, {ekem, skem, s}, {skem}}},
	PQIN: {"pqIN", false, false, [][]token{{e, s}, {ekem, skem}}},
	PQIK: {"pqIK", false, true, [][]token{{skem, e, s}, {ekem, skem}}},
	PQIX: {"pqIX", false, false, [][]token{{e, s}, {ekem, skem, s}, {skem}}},
}

func (p Pattern) valid() bool { return p >= PQNN && p <= PQIX }

func (p Pattern) spec() *patternSpec { return &patternSpecs[p] }

// String returns the pattern's Noise name, such as "pqXX".
func (p Pattern) String() string {
	if !p.valid() {
		return fmt.Sprintf("Pattern(%d)", uint8(p))
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
