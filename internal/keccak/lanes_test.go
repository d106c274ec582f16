package keccak

import (
	"bytes"
	"crypto/sha3"
	"encoding/binary"
	"math/rand/v2"
	"testing"
)

// laneRun is one sponge driven through Lanes: SHAKE128, SHAKE256 or
// SHA3-256 over in, read for out bytes (32 for SHA3-256).
type laneRun struct {
	rate int
	ds   byte
	in   []byte
	out  []byte // gathered output
	want []byte
	pos  int // input bytes absorbed
	done bool
}

// TestLanes runs random mixes of SHAKE128, SHAKE256 and SHA3-256 jobs of
// random input and output lengths through the four lanes, starting each
// when a lane frees up and letting lanes sit out permutations at random
// (Save and Restore), and compares every result with crypto/sha3.
func TestLanes(t *testing.T) { paths(t, testLanes) }

func testLanes(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	newJob := func() *laneRun {
		in := make([]byte, r.IntN(600))
		for i := range in {
			in[i] = byte(r.Uint32())
		}
		j := &laneRun{in: in}
		if r.IntN(3) == 2 {
			j.rate, j.ds = Rate256, 0x06
			h := sha3.Sum256(in)
			j.want = h[:]
			return j
		}
		h, rate := sha3.NewSHAKE128(), Rate128
		if r.IntN(2) == 1 {
			h, rate = sha3.NewSHAKE256(), Rate256
		}
		j.rate, j.ds = rate, 0x1f
		j.want = make([]byte, 1+r.IntN(700))
		h.Write(in)
		h.Read(j.want)
		return j
	}
	for trial := range 50 {
		var s Lanes
		var lanes [4]*laneRun
		var all []*laneRun
		for range 12 {
			all = append(all, newJob())
		}
		next := 0
		for {
			var sitOut [4]bool
			var saved [4][25]uint64
			active := false
			for l := range lanes {
				if lanes[l] == nil && next < len(all) {
					lanes[l] = all[next]
					next++
					s.Reset(l)
				}
				j := lanes[l]
				if j == nil {
					continue
				}
				active = true
				if r.IntN(5) == 0 {
					sitOut[l] = true
					saved[l] = s.Save(l)
					continue
				}
				if j.pos > len(j.in) {
					continue // squeezing
				}
				switch rest := j.in[j.pos:]; {
				case len(rest) >= j.rate:
					s.XOR(l, rest[:j.rate])
					j.pos += j.rate
				default:
					s.XOR(l, rest)
					s.Pad(l, j.rate, len(rest), j.ds)
					j.pos = len(j.in) + 1
				}
			}
			if !active {
				break
			}
			s.Permute()
			for l, j := range lanes {
				if j == nil {
					continue
				}
				if sitOut[l] {
					s.Restore(l, &saved[l])
					continue
				}
				if j.pos <= len(j.in) {
					continue // still absorbing
				}
				block := make([]byte, j.rate)
				s.Read(l, block)
				j.out = append(j.out, block...)
				if len(j.out) >= len(j.want) {
					j.out = j.out[:len(j.want)]
					j.done = true
					lanes[l] = nil
				}
			}
		}
		for i, j := range all {
			if !j.done || !bytes.Equal(j.out, j.want) {
				t.Fatalf("trial %d, job %d (rate %d, ds %#x, %d bytes in): got %x, want %x",
					trial, i, j.rate, j.ds, len(j.in), j.out, j.want)
			}
		}
	}
}

// spongeCases are the sponges Lanes runs, each with crypto/sha3's first n
// bytes of output (at most the digest for SHA3-256 and SHA3-512).
var spongeCases = []struct {
	rate int
	ds   byte
	sum  func(in []byte, n int) []byte
}{
	{Rate128, 0x1f, sha3.SumSHAKE128},
	{Rate256, 0x1f, sha3.SumSHAKE256},
	{Rate256, 0x06, func(b []byte, n int) []byte { o := sha3.Sum256(b); return o[:min(n, len(o))] }},
	{Rate512, 0x06, func(b []byte, n int) []byte { o := sha3.Sum512(b); return o[:min(n, len(o))] }},
}

// TestLanesStart checks that Start is Reset, XOR and Pad for a short input,
// and that Read of a partial word takes the right bytes.
func TestLanesStart(t *testing.T) { paths(t, testLanesStart) }

func testLanesStart(t *testing.T) {
	seed := []byte("thirty-four bytes of a seed input!")
	var s Lanes
	for l := range 4 {
		s.Start(l, Rate128, 0x1f, seed[:30+l])
	}
	s.Permute()
	for l := range 4 {
		want := make([]byte, 37)
		h := sha3.NewSHAKE128()
		h.Write(seed[:30+l])
		h.Read(want)
		got := make([]byte, 37)
		s.Read(l, got)
		if !bytes.Equal(got, want) {
			t.Errorf("lane %d: got %x, want %x", l, got, want)
		}
	}

	// Every input length below the rate, for SHAKE128, SHAKE256, SHA3-256
	// and SHA3-512, on a lane that held something else: Start must
	// overwrite the whole lane.
	r := rand.New(rand.NewPCG(5, 6))
	in := make([]byte, Rate128)
	for i := range in {
		in[i] = byte(r.Uint32())
	}
	for _, c := range spongeCases {
		for l := 0; l < c.rate; l++ {
			for i := range s.a {
				for j := range s.a[i] {
					s.a[i][j] = r.Uint64()
				}
			}
			j := l % 4
			s.Start(j, c.rate, c.ds, in[:l])
			s.Permute()
			got := make([]byte, 32)
			s.Read(j, got)
			if want := c.sum(in[:l], 32); !bytes.Equal(got, want) {
				t.Fatalf("rate %d ds %#x, %d bytes: got %x, want %x", c.rate, c.ds, l, got, want)
			}
		}
	}
}

// TestLanesStartSeed checks StartSeed against crypto/sha3 for every suffix
// length, every rate and domain byte, on lanes that held something else,
// and that suffix bits above its n bytes are ignored.
func TestLanesStartSeed(t *testing.T) { paths(t, testLanesStartSeed) }

func testLanesStartSeed(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for _, c := range spongeCases {
		for n := range 8 {
			var s Lanes
			for i := range s.a {
				for j := range s.a[i] {
					s.a[i][j] = r.Uint64()
				}
			}
			var seeds [4][32]byte
			var suffixes [4]uint64
			for j := range 4 {
				for i := range seeds[j] {
					seeds[j][i] = byte(r.Uint32())
				}
				suffixes[j] = r.Uint64() // the bytes above n must not count
				s.StartSeed(j, c.rate, c.ds, &seeds[j], suffixes[j], n)
			}
			s.Permute()
			for j := range 4 {
				in := append(seeds[j][:], binary.LittleEndian.AppendUint64(nil, suffixes[j])[:n]...)
				want := c.sum(in, c.rate)
				got := make([]byte, len(want))
				s.Read(j, got)
				if !bytes.Equal(got, want) {
					t.Fatalf("rate %d ds %#x, lane %d, suffix of %d bytes: got %x, want %x", c.rate, c.ds, j, n, got, want)
				}
			}
		}
	}
}

// TestLanesReadAll compares ReadAll with four Reads on random states.
func TestLanesReadAll(t *testing.T) { paths(t, testLanesReadAll) }

func testLanesReadAll(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for range 100 {
		var s Lanes
		for i := range s.a {
			for j := range s.a[i] {
				s.a[i][j] = r.Uint64()
			}
		}
		var got [4][Rate128]byte
		s.ReadAll(&got)
		for j := range 4 {
			want := make([]byte, Rate128)
			s.Read(j, want)
			if !bytes.Equal(got[j][:], want) {
				t.Fatalf("lane %d: ReadAll %x, Read %x", j, got[j], want)
			}
		}
	}
}
