// Package pake implements two password-authenticated key exchanges built on
// ML-KEM, NoIC[ML-KEM] and Tempo[ML-KEM] (Arriaga, Barbosa, Jarecki, "Tempo:
// ML-KEM to PAKE Compiler Resilient to Timing Attacks", ePrint 2025/1399),
// exactly interoperable with the authors' artifact, together with the
// SampleNTT variants that make them safe against timing attacks.
//
// Two parties who share only a password run one round trip: the initiator
// sends msg1 (Start), the responder answers msg2 and has the session key
// (Respond), and the initiator checks msg2's tag and gets the same key
// (Finish) or ErrPasswordMismatch. The responder never aborts; it learns
// that the passwords matched only from a later message under the key.
//
// # Schemes
//
// A Scheme is a protocol, an ML-KEM level (512, 768, 1024) and a sampler:
//
//   - Tempo (the default, with C1 at ML-KEM-768): stock FIPS 203 ML-KEM
//     (internal/fips203, the implementation package mlkem wraps, with the
//     standard parameter sets); ρ travels
//     in the clear, so the variable-time matrix expansion reveals nothing
//     about the password, and only the k mask polynomials use the
//     constant-time sampler.
//   - NoIC: the sampler expands the matrix inside the KEM too (key
//     generation, encapsulation, decapsulation's re-encryption, all through
//     internal/fips203.WithSampler) because ρ is masked by the password.
//     With B0 or C1 the KEM is not FIPS 203; its keys are their own type
//     (NoICDecapsulationKey).
//
// Samplers: A0 is FIPS 203 SampleNTT and is variable time: UNSAFE for real
// passwords, there for comparison and benchmarks only. A1 computes A0's
// output in constant time; B0 and C1 are different constant-time maps.
// See Sampler.
//
// # Two layers
//
// The low-level layer (Scheme.Start, Scheme.Respond) takes the artifact's
// 32-byte pw and sid; the known-answer tests run through it. The
// high-level layer (NewCredentials) derives pw from a human password with
// Argon2id and sid from the parties' identities; its derivation is
// documented there.
//
// # Wire format
//
// k = 2, 3, 4 for ML-KEM-512, 768, 1024; q = 3329.
//
//	msg1 = Z ‖ T′ ‖ ρ′   (NoIC) or  Z ‖ T′ ‖ ρ   (Tempo), 384k + 64 bytes
//	msg2 = tag ‖ ct, 32 + |ct| bytes
//
// with nonce random, (s, r) = SHA3-512(pw ‖ sid ‖ nonce) for NoIC or s =
// SHA3-256(pw ‖ sid ‖ nonce) for Tempo, T′ = T + MaskVec(s) coefficient-wise
// mod q (polynomial i from the sampler on s ‖ i ‖ 0xFF), ρ′ = ρ ⊕ r, Z =
// nonce ⊕ SHA3-256(pw ‖ sid ‖ T′ ‖ ρ′) (NoIC) or SHA3-256(pw ‖ sid ‖ T′)
// (Tempo), and key ‖ tag = SHA3-512(K ‖ sid ‖ ek ‖ msg1[:384k+32] ‖ ct).
package pake
