package keccak

import "crypto/sha3"

// Sum512 returns SHA3-512(in) (FIPS 202), the hash G of ML-KEM (FIPS 203,
// equation 4.5), which hashes 33 or 64 bytes: one block.
//
// With the AVX-512 four-way permutation, a one-block input runs in one
// lane of it (the other three permute zeros): on a CPU that has it, one
// four-way permutation takes less time than crypto/sha3's one-state
// permutation and sponge (about 290 ns against 400 ns for G on an AMD
// Zen 4). Otherwise, and for longer inputs, Sum512 is crypto/sha3's.
func Sum512(in []byte) [64]byte {
	// The length of in is public: G's inputs have fixed lengths.
	if !SingleInLane() || len(in) >= Rate512 {
		return sha3.Sum512(in)
	}
	return sum512Lane(in)
}

// sum512Lane is Sum512 in lane 0 of the four-way permutation, for inputs
// of less than a block.
func sum512Lane(in []byte) [64]byte {
	var s Lanes
	s.Start(0, Rate512, 0x06, in)
	s.Permute()
	var out [64]byte
	s.Read(0, out[:])
	return out
}
