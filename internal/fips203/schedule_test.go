package fips203

import (
	"bytes"
	"crypto/sha3"
	"math/rand/v2"
	"testing"

	"github.com/pqkem/pqkem/internal/keccak"
)

// forKeyGenCases calls f for every level, zero to three streams (see
// randStreams) and three random seeds d and z, on both paths.
func forKeyGenCases(t *testing.T, seed uint64, f func(t *testing.T, p *Params, d, z *[32]byte, streams []Stream)) {
	r := rand.New(rand.NewPCG(seed, seed+1))
	bothPaths(t, func(t *testing.T) {
		for _, p := range []*Params{MLKEM512, MLKEM768, MLKEM1024} {
			for n := 0; n <= maxStreams; n++ {
				for trial := range 3 {
					var d, z [32]byte
					for i := range d {
						d[i], z[i] = byte(r.Uint32()), byte(r.Uint32())
					}
					f(t, p, &d, &z, randStreams(r, n, trial))
				}
			}
		}
	})
}

// TestKeyGenWithStreams checks KeyGenInternalWithStreams on both paths: the
// key is the one KeyGenInternal makes (expanded bytes and H(ek)), and every
// stream's output is SHAKE128 of its seed, for zero to three streams of
// the lengths the PAKE samplers use (37 blocks for C1, 840 and 400 bytes
// for A1 and B0), odd ones and ones taken a block at a time (the last
// block is left in Out), at every level; four streams panic.
func TestKeyGenWithStreams(t *testing.T) {
	forKeyGenCases(t, 7, func(t *testing.T, p *Params, d, z *[32]byte, streams []Stream) {
		var got, want DecapsulationKey
		KeyGenInternalWithStreams(&got, p, d, z, streams)
		KeyGenInternal(&want, p, d, z)
		if !bytes.Equal(got.ExpandedBytes(nil), want.ExpandedBytes(nil)) || got.ek.h != want.ek.h {
			t.Fatalf("%s, %d streams: the key differs from KeyGenInternal's", p.name, len(streams))
		}
		for _, s := range streams {
			checkStreams(t, []Stream{s}, streamBlocks(s))
		}
	})
	defer func() {
		if recover() == nil {
			t.Error("four streams did not panic")
		}
	}()
	var dk DecapsulationKey
	var d, z [32]byte
	KeyGenInternalWithStreams(&dk, MLKEM512, &d, &z, make([]Stream, 4))
}

// refStream returns the first n bytes of SHAKE128(seed).
func refStream(seed []byte, n int) []byte {
	h := sha3.NewSHAKE128()
	h.Write(seed)
	out := make([]byte, n)
	h.Read(out)
	return out
}

// randStreams returns n streams with random seeds and outputs of the
// lengths the PAKE samplers use and odd ones.
func randStreams(r *rand.Rand, n, trial int) []Stream {
	lengths := []int{37 * 168, 840, 400, 1, 168, 169, 3 * 168}
	streams := make([]Stream, n)
	for i := range streams {
		for j := range streams[i].Seed {
			streams[i].Seed[j] = byte(r.Uint32())
		}
		streams[i].Out = make([]byte, lengths[(trial+i)%len(lengths)])
		if (trial+i)%3 == 2 { // a ring stream, one block at a time
			streams[i].Blocks = len(streams[i].Out)/168 + 1
			streams[i].Out = make([]byte, 168)
		}
	}
	return streams
}

// streamBlocks is the number of permutations stream s runs for.
func streamBlocks(s Stream) int {
	if s.Blocks > 0 {
		return s.Blocks
	}
	return (len(s.Out) + 167) / 168
}

// checkStreams fails unless every stream holds SHAKE128 of its seed up to
// min(steps*168, len(Out)) bytes.
func checkStreams(t *testing.T, streams []Stream, steps int) {
	t.Helper()
	for i, s := range streams {
		if s.Blocks > 0 {
			if steps <= s.Blocks && !bytes.Equal(s.Out, refStream(s.Seed[:], 168*steps)[168*(steps-1):]) {
				t.Fatalf("after %d permutations, stream %d (one block at a time) holds the wrong block", steps, i)
			}
			continue
		}
		m := min(steps*168, len(s.Out))
		if !bytes.Equal(s.Out[:m], refStream(s.Seed[:], len(s.Out))[:m]) {
			t.Fatalf("after %d permutations, stream %d (%d bytes) differs from SHAKE128 in its first %d bytes", steps, i, len(s.Out), m)
		}
	}
}

// TestKeyGenWithExtra checks KeyGenInternalWithExtra on both paths: the
// key is KeyGenInternal's and EKBuf holds its encoding; at every Update
// the streams hold what it says and EKBuf the ekLen bytes it says; and the
// caller's hash, whose input grows with ek (the blocks arrive between
// sit-outs) and then takes the streams' output, is SHA3-256 of it.
func TestKeyGenWithExtra(t *testing.T) {
	forKeyGenCases(t, 9, func(t *testing.T, p *Params, d, z *[32]byte, streams []Stream) {
		n := len(streams)
		var want DecapsulationKey
		KeyGenInternal(&want, p, d, z)
		ekWant := want.EncapsulationKey().Bytes(nil)

		need := 0
		for _, s := range streams {
			need = max(need, streamBlocks(s))
		}
		var h Hash
		ekBuf := make([]byte, 0, p.EncapsulationKeySize())
		calls, last := 0, 0
		x := &Extra{Streams: streams, Hash: &h, EKBuf: ekBuf}
		x.Update = func(steps, ekLen int) {
			calls++
			if steps <= last && keccak.Accelerated() {
				t.Fatalf("Update steps %d after %d", steps, last)
			}
			last = steps
			checkStreams(t, streams, steps)
			if !bytes.Equal(ekBuf[:ekLen], ekWant[:ekLen]) {
				t.Fatalf("EKBuf's first %d bytes differ from ek", ekLen)
			}
			if h.Final {
				return
			}
			// Half the key at a time, then the streams.
			h.In = append(h.In, ekWant[len(h.In):max(len(h.In), ekLen/2)]...)
			if ekLen == len(ekWant) && steps >= need {
				h.In = append(h.In[:0], ekWant...)
				for _, s := range streams {
					h.In = append(h.In, s.Out...) // the last block of a ring stream
				}
				h.Final = true
			}
		}
		var got DecapsulationKey
		KeyGenInternalWithExtra(&got, p, d, z, x)
		if !bytes.Equal(got.ExpandedBytes(nil), want.ExpandedBytes(nil)) || got.ek.h != want.ek.h {
			t.Fatalf("%s, %d streams: the key differs from KeyGenInternal's", p.name, n)
		}
		if !bytes.Equal(ekBuf[:len(ekWant)], ekWant) {
			t.Fatalf("%s: EKBuf is not ek", p.name)
		}
		if h.Sum != sha3.Sum256(h.In) || !h.Final {
			t.Fatalf("%s, %d streams: the caller's hash is not SHA3-256 of its input", p.name, n)
		}
		if calls == 0 {
			t.Fatal("Update was never called")
		}
		checkStreams(t, streams, need)
	})
}
