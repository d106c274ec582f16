// Package pake implements two password-authenticated key exchanges built on
// ML-KEM, NoIC[ML-KEM] and Tempo[ML-KEM] (Arriaga, Barbosa, Jarecki, "Tempo:
// ML-KEM to PAKE Compiler Resilient to Timing Attacks", ePrint 2025/1399),
// exactly interoperable with the authors' artifact, together with the
// SampleNTT variants that make them safe against timing attacks, and a key
// confirmation so that both parties know the passwords matched.
//
// Two parties who share only a password exchange three messages:
//
//	initiator                                     responder
//	st, msg1 := Start(pw, sid)          msg1 ->
//	                                              r, msg2 := Respond(pw, sid, msg1)
//	                                    <- msg2
//	key, msg3 := st.Finish(msg2)        msg3 ->
//	                                              key := r.Finish(msg3)
//
// [Initiator.Finish] checks the responder's tag in msg2: if it verifies,
// the responder had the same password, and the initiator gets the session
// key and msg3, its own proof that it has the key. [Responder.Finish]
// checks msg3 and only then releases the same key. On either side a
// mismatch is [ErrPasswordMismatch] and releases nothing, and the
// responder never aborts before msg3 (msg1 and msg2 are the artifact's
// protocol, whose responder has implicit authentication only; msg3 makes
// it explicit). Each side gets one password guess per session: an
// attacker learns nothing that lets it test passwords offline.
//
// # Schemes
//
// A [Scheme] is a protocol, an ML-KEM level (512, 768, 1024) and a
// [Sampler]:
//
//   - [Tempo] (the default, with C1 at ML-KEM-768) uses stock FIPS 203
//     ML-KEM: internal/fips203, the implementation package mlkem wraps,
//     with the standard parameter sets, for the initiator's key
//     generation, the responder's encapsulation and the initiator's
//     decapsulation. ρ travels in the clear, so the variable-time matrix
//     expansion of ML-KEM reveals nothing about the password; only the k
//     polynomials of the password mask use the constant-time sampler (on
//     SHAKE128). Its other hashes are SHA3-256 (the mask seed, the nonce
//     mask) and SHA3-512 (the session key and the responder's tag).
//   - [NoIC] masks ρ with the password too, so the sampler also expands
//     the matrix inside the KEM: key generation, encapsulation and
//     decapsulation's re-encryption, all through internal/fips203's
//     matrix-sampler parameter. With B0 or C1 the KEM is not FIPS 203.
//
// The samplers A1, B0 and C1 are constant time ([Samplers]). The paper's A0,
// FIPS 203 SampleNTT itself, is variable time and UNSAFE for real
// passwords: no function of this package takes it or gives it out; it is
// there for comparisons and benchmarks only, in package
// [github.com/pqkem/pqkem/pake/paketest].
//
// # Two layers
//
// The low-level layer ([Scheme.Start], [Scheme.Respond]) takes the
// artifact's 32-byte pw and sid; the known-answer tests run through it,
// with fixed randomness, in package
// [github.com/pqkem/pqkem/pake/paketest]. The high-level layer
// ([NewCredentials]) derives pw from a human password with Argon2id and
// sid from the parties' identities; its derivation is documented there.
//
// # Wire format
//
// k = 2, 3, 4 for ML-KEM-512, 768, 1024; q = 3329.
//
//	msg1 = Z ‖ T′ ‖ ρ′   (NoIC) or  Z ‖ T′ ‖ ρ   (Tempo), 384k + 64 bytes
//	msg2 = tag ‖ ct, 32 + |ct| bytes
//	msg3 = SHA3-256(lp("pqkem pake v1 initiator confirmation") ‖ lp(scheme name) ‖ key ‖ tag), 32 bytes
//
// with nonce random, (s, r) = SHA3-512(pw ‖ sid ‖ nonce) for NoIC or s =
// SHA3-256(pw ‖ sid ‖ nonce) for Tempo, T′ = T + MaskVec(s) coefficient-wise
// mod q (polynomial i from the sampler on s ‖ i ‖ 0xFF), ρ′ = ρ ⊕ r, Z =
// nonce ⊕ SHA3-256(pw ‖ sid ‖ T′ ‖ ρ′) (NoIC) or SHA3-256(pw ‖ sid ‖ T′)
// (Tempo), key ‖ tag = SHA3-512(K ‖ sid ‖ ek ‖ msg1[:384k+32] ‖ ct), and
// lp(x) the 4-byte big-endian length of x followed by x. msg1 and msg2 are
// the artifact's; msg3 is this package's.
//
// # Over a connection
//
// [Client] and [Server] run the whole exchange on a [net.Conn], as the
// command pqkem pake does, within one deadline for all of it, and return
// the session key. Every message is a frame: a 4-byte big-endian length n,
// 1 ≤ n ≤ 65536, then n bytes. In order:
//
//	client -> server   hello: "pqkem pake v1", 0x00, the scheme's name (at most 78 bytes)
//	client -> server   msg1
//	server -> client   msg2
//	client -> server   msg3, or the one byte 0x00 if msg2's tag failed
//	server -> client   the verdict: 0x01 if msg3 verified, else 0x00
//
// Each side reads a frame's length before anything else, and refuses one
// longer than the message it expects there. A server whose scheme differs
// from the hello's sends nothing. Each msg2 lets the client test one
// password: a server that answers many connections with one password
// limits the msg2s it sends across them with an [AttemptLimit].
package pake
