package keccak

import (
	"bytes"
	"crypto/sha3"
	"fmt"
	"math/rand/v2"
	"testing"
)

// TestRows rides rows of several lengths on a SHAKE128 and a SHAKE256,
// with and without a second instance, and checks the SHAKE's stream, the
// second instance's hash and every row Done reports against crypto/sha3,
// and that Done counts exactly the rows that were squeezed whole.
func TestRows(t *testing.T) {
	paths(t, func(t *testing.T) {
		r := rand.New(rand.NewPCG(7, 8))
		for trial := range 120 {
			rate := []int{Rate128, Rate256}[trial%2]
			second := trial%4 >= 2
			rowLen := []int{1, 167, 168, 169, 1280, 1952, 2688}[r.IntN(7)]
			maxRows := r.IntN(40)
			streamLen := r.IntN(8000)
			t.Run(fmt.Sprintf("rate=%d/second=%v/row=%d/max=%d/out=%d", rate, second, rowLen, maxRows, streamLen), func(t *testing.T) {
				testRows(t, r, rate, second, rowLen, maxRows, streamLen)
			})
		}
	})
}

func testRows(t *testing.T, r *rand.Rand, rate int, second bool, rowLen, maxRows, streamLen int) {
	seed := make([]byte, 16+r.IntN(100))
	for i := range seed {
		seed[i] = byte(r.Uint32())
	}
	side := make([]byte, r.IntN(5000))
	for i := range side {
		side[i] = byte(r.Uint32())
	}
	out := make([][]byte, maxRows)
	for i := range out {
		out[i] = bytes.Repeat([]byte{0xa5}, rowLen)
	}
	src := &testRowSource{seed: seed[:16], out: out}
	var rows Rows

	var h SHAKE
	want := sha3.NewSHAKE128()
	if rate == Rate256 {
		h.Init256()
		want = sha3.NewSHAKE256()
	} else {
		h.Init128()
	}
	if second {
		h.StartSecond(side)
	}
	riding := h.Ride(&rows, src)
	if riding != h.lanes {
		t.Fatalf("Ride = %v, want %v (the SHAKE runs in lanes: %v)", riding, h.lanes, h.lanes)
	}
	h.Write(seed)
	want.Write(seed)
	got, exp := make([]byte, streamLen), make([]byte, streamLen)
	for o := got; len(o) > 0; {
		c := min(len(o), 1+r.IntN(600))
		h.Read(o[:c])
		o = o[c:]
	}
	done := h.StopRide()
	want.Read(exp)
	if !bytes.Equal(got, exp) {
		t.Fatal("the stream differs from crypto/sha3's")
	}
	if second {
		var sum, ref [64]byte
		h.SumSecond([]byte("rest"), sum[:])
		w := newRef(rate, side)
		w.Write([]byte("rest"))
		w.Read(ref[:])
		if sum != ref {
			t.Fatal("the second instance differs from crypto/sha3")
		}
	}
	if !riding {
		if done != 0 {
			t.Fatalf("StopRide = %d without a ride", done)
		}
		return
	}
	// The rows start together and have one length, so a lane squeezes a
	// row in ceil(rowLen/Rate128) permutations, and the stream took
	// ceil(streamLen/rate) permutations after the ride began (the seed is
	// shorter than a block).
	lanes := 3
	if second {
		lanes = 2
	}
	perms := (streamLen + rate - 1) / rate
	per := (rowLen + Rate128 - 1) / Rate128
	if wantDone := min(maxRows, perms/per*lanes); done != wantDone {
		t.Fatalf("Done = %d after %d permutations, want %d", done, perms, wantDone)
	}
	for i := range done {
		exp := make([]byte, rowLen)
		ref := sha3.NewSHAKE128()
		ref.Write(src.RowIn(i, nil))
		ref.Read(exp)
		if !bytes.Equal(out[i], exp) {
			t.Fatalf("row %d of %d differs from crypto/sha3's", i, done)
		}
	}
}

// testRowSource's row i is SHAKE128(LE16(i) || seed), as FrodoKEM's rows
// of A, into out[i].
type testRowSource struct {
	seed []byte
	out  [][]byte
}

func (s *testRowSource) RowIn(i int, buf []byte) []byte {
	return append(append(buf, byte(i), byte(i>>8)), s.seed...)
}

func (s *testRowSource) RowOut(i int) []byte {
	if i >= len(s.out) {
		return nil
	}
	return s.out[i]
}

// FuzzRows is TestRows with the lengths from the fuzzer.
func FuzzRows(f *testing.F) {
	f.Add(uint8(0), uint16(1952), uint8(40), uint16(5000), uint64(1))
	f.Add(uint8(3), uint16(169), uint8(7), uint16(300), uint64(2))
	f.Fuzz(func(t *testing.T, mode uint8, rowLen uint16, maxRows uint8, streamLen uint16, seed uint64) {
		rate := []int{Rate128, Rate256}[mode%2]
		r := rand.New(rand.NewPCG(seed, 9))
		testRows(t, r, rate, mode&2 != 0, 1+int(rowLen%3000), int(maxRows%64), int(streamLen%10000))
	})
}
