// Package vzeroupper works around a missing VZEROUPPER in
// golang.org/x/crypto's ChaCha20-Poly1305 on amd64.
//
// The AVX2 code of chacha20Poly1305Open (golang.org/x/crypto v0.59.0,
// chacha20poly1305/chacha20poly1305_amd64.s) decrypts the first 64 bytes
// of a message longer than 320 bytes, then 512 bytes a round in
// openAVX2MainLoop. When nothing is left after the last round, that is
// when the plaintext length n satisfies n > 320 and n%512 == 64 (576,
// 1088, 1600, ...; an ML-KEM-768 ciphertext is 1088 bytes),
// openAVX2MainLoopDone jumps ("TESTQ BX, BX; JE openSSEFinalize") straight
// to the scalar Poly1305 finalization, which returns without the
// VZEROUPPER that every other exit (openAVX2TailDone, openAVX2ShortDone)
// executes. The YMM upper halves stay dirty, and on Intel CPUs the next
// legacy SSE code (SHA-256 with SHA-NI, for example) pays a
// state-transition or false-dependency penalty: SHA-256
// of one byte took 7.7 µs after opening 1,088 bytes, 0.2 µs after 1,024.
// Go's vendored copy for crypto/tls has the same path. AMD Zen CPUs do not
// pay the penalty.
//
// [AfterOpen] executes VZEROUPPER exactly on that path. Drop this package
// when x/crypto adds the VZEROUPPER.
package vzeroupper

// AfterOpen clears the AVX upper state after a ChaCha20-Poly1305 Open of
// golang.org/x/crypto/chacha20poly1305 of an (n+16)-byte message (an
// n-byte plaintext), authentic or not, if that Open took the path that
// leaves it dirty. (After a failed Open, x/crypto zeroes the output with
// the runtime's memclr, whose AVX loop cleans the state for some lengths
// but not all.) It is a no-op elsewhere, under the purego build tag,
// and on other architectures.
func AfterOpen(n int) {
	if useAVX2 && dirtyAfterOpen(n) {
		vzeroupper()
	}
}

// dirtyAfterOpen reports whether x/crypto's AVX2 Open of an n-byte
// plaintext returns through openAVX2MainLoopDone's jump to
// openSSEFinalize: n is over 320 (shorter ones take openAVX2192 or
// openAVX2320), and after the first 64 bytes the 512-byte main loop
// leaves nothing.
func dirtyAfterOpen(n int) bool { return n > 320 && n%512 == 64 }
