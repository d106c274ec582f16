// Package noise runs KEM-based Noise handshakes ("PQNoise": Angel,
// Dowling, Hülsing, Schwabe, Weber, "Post Quantum Noise", ACM CCS 2022)
// over any key encapsulation mechanism of package
// [github.com/pqkem/pqkem/kem]: a post-quantum encrypted, authenticated
// channel between two parties, with the KEM of their choice (ML-KEM for
// speed, FrodoKEM for conservative assumptions, a hybrid for both), and
// static keys that package [github.com/pqkem/pqkem/keyfile] reads.
//
// It speaks the protocol of katzenpost/nyquist and Clatter byte for
// byte: the twelve interactive patterns [PQNN] to [PQIX], the ciphers
// [ChaChaPoly] and [AESGCM], the hashes [SHA256], [SHA512], [BLAKE2s] and
// [BLAKE2b], with protocol names such as
// "Noise_pqXX_MLKEM768_ChaChaPoly_SHA256" ([Protocol], [ParseProtocol]);
// and Clatter 2.2's extensions: PSK modifiers ("pqXXpsk3"), an ephemeral
// KEM that differs from the static one ("MLKEM768+MLKEM1024") and the
// hybrid X25519 and KEM patterns [HybridNN] to [HybridIX]
// ("Noise_hybridXX_25519+MLKEM768_AESGCM_SHA256"); see "Clatter's
// extensions" below.
// Everything that is not specific to KEMs is the Noise Protocol
// Framework, revision 34: the prologue, the 65,535-byte limit on every
// message ([MaxMessageSize]), Split, rekeying.
//
// There are two layers. [Conn] is shaped like crypto/tls: [Dial] and
// [Listen] (or [Client] and [Server] over any net.Conn), a handshake on
// first use or by [Conn.Handshake], then Read and Write, each Noise
// message framed with a 2-byte big-endian length. A Config with only keys
// runs pqNK with the keys' KEM, AESGCM and SHA256, the defaults of
// `pqkem serve` and `pqkem connect` (see [Config.Protocol]):
//
//	l, err := noise.Listen("tcp", ":9443", &noise.Config{StaticKey: serverKey})
//	...
//	c, err := noise.Dial("tcp", "server:9443", &noise.Config{PeerStaticKey: serverPublicKey})
//
// (see the runnable example below). [HandshakeState] runs a handshake
// message by message, for applications that carry Noise over a transport
// of their own, and [CipherState] encrypts the transport messages.
//
// # Patterns
//
// In every PQ pattern only the initiator (the client) has an ephemeral
// key pair (in the hybrid ones the responder has one too); the responder
// answers it with an encapsulation (ekem), and a static key is
// authenticated by an encapsulation to it (skem). The first
// letter of a pattern says how the responder learns the initiator's
// static key (N: there is none, K: known beforehand, X: sent in the
// handshake, I: sent in the first message), the second how the initiator
// learns the responder's. pqNK is the usual choice for a client that
// knows its server's key, like a pinned certificate; pqIK or pqKK
// authenticate both sides. [Pattern.NeedsStaticKey] and
// [Pattern.NeedsPeerStaticKey] say which keys a party must have.
//
// # KEMs
//
// Every scheme of package kem has a Noise name ([KEMName]): ML-KEM as
// nyquist and Clatter write it, X-Wing as katzenpost/hpqc does, and the
// others by their kem names (which have no underscore). Only the ML-KEM
// names are shared with other Noise implementations; for the other schemes
// both sides must be this package, or agree on the scheme's encoding.
// DHKEM-X25519-HKDF-SHA256 (RFC 9180's DHKEM) is classical, not
// post-quantum: it is there as the baseline to compare with.
// Every scheme fits every pattern with an empty payload; the largest
// message (bytes, with an empty payload) leaves the rest of 65,535 bytes
// for its payload:
//
//	| kem name                  | Noise name                |  pk   |  ct   | largest message      |
//	|---------------------------|---------------------------|-------|-------|----------------------|
//	| ML-KEM-512                | MLKEM512                  |   800 |   768 |  2400 (pqIK, 0)      |
//	| ML-KEM-768                | MLKEM768                  |  1184 |  1088 |  3488 (pqIK, 0)      |
//	| ML-KEM-1024               | MLKEM1024                 |  1568 |  1568 |  4752 (pqKX/pqIX, 1) |
//	| X-Wing                    | XWING                     |  1216 |  1120 |  3584 (pqIK, 0)      |
//	| MLKEM768-P256             | MLKEM768-P256             |  1249 |  1153 |  3683 (pqIK, 0)      |
//	| MLKEM1024-P384            | MLKEM1024-P384            |  1665 |  1665 |  5043 (pqKX/pqIX, 1) |
//	| X25519MLKEM768            | X25519MLKEM768            |  1216 |  1120 |  3584 (pqIK, 0)      |
//	| SecP256r1MLKEM768         | SecP256r1MLKEM768         |  1249 |  1153 |  3683 (pqIK, 0)      |
//	| SecP384r1MLKEM1024        | SecP384r1MLKEM1024        |  1665 |  1665 |  5043 (pqKX/pqIX, 1) |
//	| FrodoKEM-640-AES          | FrodoKEM-640-AES          |  9616 |  9752 | 29168 (pqKX/pqIX, 1) |
//	| FrodoKEM-640-SHAKE        | FrodoKEM-640-SHAKE        |  9616 |  9752 | 29168 (pqKX/pqIX, 1) |
//	| FrodoKEM-976-AES          | FrodoKEM-976-AES          | 15632 | 15792 | 47264 (pqKX/pqIX, 1) |
//	| FrodoKEM-976-SHAKE        | FrodoKEM-976-SHAKE        | 15632 | 15792 | 47264 (pqKX/pqIX, 1) |
//	| FrodoKEM-1344-AES         | FrodoKEM-1344-AES         | 21520 | 21696 | 64960 (pqKX/pqIX, 1) |
//	| FrodoKEM-1344-SHAKE       | FrodoKEM-1344-SHAKE       | 21520 | 21696 | 64960 (pqKX/pqIX, 1) |
//	| eFrodoKEM-640-AES         | eFrodoKEM-640-AES         |  9616 |  9720 |  9736 (pqNN only)    |
//	| eFrodoKEM-640-SHAKE       | eFrodoKEM-640-SHAKE       |  9616 |  9720 |  9736 (pqNN only)    |
//	| eFrodoKEM-976-AES         | eFrodoKEM-976-AES         | 15632 | 15744 | 15760 (pqNN only)    |
//	| eFrodoKEM-976-SHAKE       | eFrodoKEM-976-SHAKE       | 15632 | 15744 | 15760 (pqNN only)    |
//	| eFrodoKEM-1344-AES        | eFrodoKEM-1344-AES        | 21520 | 21632 | 21648 (pqNN only)    |
//	| eFrodoKEM-1344-SHAKE      | eFrodoKEM-1344-SHAKE      | 21520 | 21632 | 21648 (pqNN only)    |
//	| Frodo-CCS2016-Recommended | Frodo-CCS2016-Recommended | 11296 | 11288 | 11304 (pqNN only)    |
//	| Frodo-CCS2016-Paranoid    | Frodo-CCS2016-Paranoid    | 12976 | 12968 | 12984 (pqNN only)    |
//	| DHKEM-X25519-HKDF-SHA256  | DHKEM-X25519-HKDF-SHA256  |    32 |    32 |   144 (pqKX/pqIX, 1) |
//
// So FrodoKEM-1344 in pqKX or pqIX leaves 575 bytes for the second
// message's payload, and in pqIK 767 for the first's; [Protocol.MessageSizes]
// gives every size, and a payload that does not fit is refused with
// [ErrMessageTooLarge]. [Conn] sends empty handshake payloads, and
// refuses a handshake message of another size than the protocol's with a
// [*MessageSizeError] (a peer running another pattern or KEM). A scheme
// whose messages cannot fit (none of package kem's in the PQ patterns) is
// refused by [NewHandshakeState]. The table is for the PQ patterns with one
// KEM: with a split pair, sizes follow [Protocol.MessageSizes], and a hybrid
// pattern adds 32 bytes to every e and s, and the responder's ephemeral KEM
// key, so the largest FrodoKEM sets do not fit some hybrid patterns.
//
// A KEM whose keys are not safe as long-term keys ([kem.EphemeralOnly]:
// the eFrodoKEM sets, which allow fewer than 2^8 ciphertexts per key, the
// passively secure CCS 2016 Frodo key exchange, whose keys serve one
// exchange, and any such scheme registered from elsewhere) is refused in
// every pattern with a static key, so it runs only pqNN (the largest
// message there is the responder's ekem ciphertext and tag). In pqNN the
// CCS 2016 key exchange is the paper's own protocol: the initiator's
// ephemeral key is Alice's message, the responder's ciphertext Bob's.
//
// # Clatter's extensions
//
// PSK modifiers add pre-shared 32-byte keys ([Pattern.WithPSK],
// [HandshakeConfig.PSKs], [Config.PSKs]): psk0 is mixed in first in the
// first message, pskN last in message N; in a PSK pattern every e is also
// mixed into the key, so everything after it is encrypted. A handshake
// with another PSK fails with [ErrAuthentication]. Clatter 2.2's rule is
// kept: a party may not send its static key or an skem after a psk until
// it has sent randomness of its own (an e, ekem or skem), so the psk0
// forms of pqNK, pqKK, pqXK and pqIK (and their hybrid forms) are refused
// with [ErrPSKInvalid] (CVE-2026-24785 in Clatter 2.1).
//
// [Protocol.EphemeralKEM] sets a KEM for the ephemeral key (e, ekem) other
// than the static keys' [Protocol.KEM] (s, skem): for example a FrodoKEM
// static key, for conservative authentication, with an ML-KEM-768
// ephemeral key, fast forward secrecy. Any pair of schemes may be used;
// an ephemeral-only KEM only as the ephemeral one. The name gives the
// ephemeral KEM first, as Clatter writes it.
//
// The hybrid patterns add X25519 (RFC 7748) to the KEM patterns, as
// Clatter 2.2 has them: every e and s carries an X25519 key before the
// KEM key, and the DH tokens ee, es, se and ss mix X25519 results into the
// key beside the KEM secrets, so a session stays secret if either X25519
// or the KEM holds. Their static keys are pairs, [HybridDecapsulationKey]
// and [HybridEncapsulationKey], kem keys of [HybridScheme] that go where
// any static key goes. The responder's e carries a KEM ephemeral key that
// no pattern uses, as in Clatter.
//
// # Security notes
//
// A payload is encrypted only once the handshake has a key: the first
// message of pqNN, pqNX, pqXN, pqXX, pqKN, pqKX, pqIN and pqIX is sent in
// clear (with, in pqIN and pqIX, the initiator's static key), and no
// payload before the end of the handshake is authenticated to a peer
// whose static key has not been checked. [Conn] checks peer keys with
// [Config.PeerStaticKey] and [Config.VerifyPeerStaticKey] as soon as it
// receives them.
//
// A [Conn]'s end of stream is authenticated (see "Framing" below): an
// attacker who cuts the connection makes Read fail with [ErrTruncated],
// never return io.EOF. A server's handshake completes only once the
// client has proven that it completed its own (a replayed first message
// gets no further). A [Conn]'s handshake is bounded by
// [Config.HandshakeTimeout] (ten seconds by default); after it, Read and
// Write are bounded by the deadlines the application sets, as with
// net.Conn and crypto/tls. A connection holds at most one 65,537-byte
// frame of its peer's input.
//
// # Framing
//
// On a stream, [Conn] sends every Noise message, handshake or transport,
// as a 2-byte big-endian length and the message (Noise section 3 suggests
// it). Handshake messages carry empty payloads. After the handshake:
//
//   - In the patterns whose last handshake message is the responder's
//     (those with an even number of messages: pqNN, pqNK, pqKN, pqKK,
//     pqIN, pqIK, ...), the initiator sends a confirmation: a transport
//     message with an empty payload, in the same write as its first data
//     or end marker, or before it first reads, or two milliseconds after
//     the handshake, whichever comes first. The responder's handshake
//     ends when it has read and authenticated the initiator's first
//     transport message, the confirmation or, from an implementation
//     that sends none, data. A server of a protocol in which the server
//     speaks first therefore needs a client that confirms.
//   - Data travels in transport messages of 1 to [MaxPlaintextSize]
//     bytes of payload: a Write never sends an empty one.
//   - Each side ends its stream with the end marker, a transport message
//     with an empty payload ([Conn.CloseWrite], [Conn.Close]). Read
//     returns io.EOF after it, and ignores anything that follows it; a
//     connection that ends without it (at a message boundary or inside a
//     message) is [ErrTruncated].
//
// Both are ordinary transport messages, so a Noise implementation that
// does not know them reads them as empty payloads; but without an end
// marker from it, its streams end truncated for a [Conn].
//
// # Errors
//
// Errors say what failed and keep the explanations here. [ErrAuthentication]
// from a handshake message means that the peers disagree on a static
// key, the prologue or a PSK, or that the message was altered; from a
// transport message, that it was altered, replayed, reordered or
// truncated, or came from a peer with other keys. A [*MessageSizeError]
// means that the peer runs another pattern or another KEM (or pair of
// KEMs), or is not a Noise peer at all. A [Conn] whose peer closes the
// connection during the handshake returns an error wrapping
// io.ErrUnexpectedEOF: the peer refused this side's static key
// ([ErrPeerKeyRefused] on its side) or its handshake, or runs another
// cipher or hash, which it cannot tell from an altered message.
//
// Secrets are never logged or put in error strings. Shared secrets, the
// chaining key and the handshake's keys are wiped when they are no longer
// needed; the AEAD states of the standard library and x/crypto, and the
// keys of package kem, cannot be wiped, and are left to the garbage
// collector.
//
// Deterministic handshakes, for known-answer tests, are available only
// from package [github.com/pqkem/pqkem/noise/noisetest].
package noise
