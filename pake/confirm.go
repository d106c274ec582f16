package pake

import "crypto/sha3"

// Key confirmation: the responder's tag in msg2 (the artifact's), and the
// initiator's msg3.

// keyAndTag is G(K || sid || ek || msg1[0:384k+32] || ct), split into the
// session key (first half) and the responder's tag (second half).
func (s *Scheme) keyAndTag(K *[32]byte, sid, ek, msg1Pre, ct []byte) (key, tag [32]byte) {
	h := sha3.New512()
	h.Write(K[:])
	h.Write(sid)
	h.Write(ek)
	h.Write(msg1Pre)
	h.Write(ct)
	var g [64]byte
	h.Sum(g[:0])
	copy(key[:], g[:32])
	copy(tag[:], g[32:])
	clear(g[:])
	return key, tag
}

// confirmLabel starts the input of the initiator's confirmation.
const confirmLabel = "pqkem pake v1 initiator confirmation"

// confirmation is msg3, the initiator's proof that it has the session
// key:
//
//	msg3 = SHA3-256(lp(confirmLabel) ‖ lp(scheme name) ‖ key ‖ tag)
//
// with lp as in NewCredentials and tag = msg2[:32]. The key is a hash of
// the transcript (sid, ek, msg1 up to ρ′ or ρ, which ek fixes, and the
// ciphertext, see keyAndTag) and the tag covers the rest of msg2, so a
// msg3 from another session, or for other messages, does not verify. The
// label keeps it apart from every other hash of the key (the responder's
// tag is the other half of G's output, not a function of the key), and
// SHA3 has no length extension, so prefixing the key makes a MAC. It
// reveals nothing of the key but a hash of it.
func (s *Scheme) confirmation(key, tag *[32]byte) (c [Msg3Size]byte) {
	h := sha3.New256()
	h.Write(s.confirmContext)
	h.Write(key[:])
	h.Write(tag[:])
	h.Sum(c[:0])
	return c
}
