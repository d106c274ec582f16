package frodo

import (
	"bytes"
	"crypto/aes"
	"crypto/rand"
	"crypto/sha3"
	"encoding/binary"
	"slices"
	"testing"

	"github.com/pqkem/pqkem/internal/cpuid"
	"github.com/pqkem/pqkem/internal/keccak"
)

func randomUint16s(n int) []uint16 {
	b := make([]byte, 2*n)
	rand.Read(b)
	out := make([]uint16, n)
	leUint16s(out, b)
	return out
}

// The sampler (AVX2 or not) against the generic one on all 2^16 inputs,
// and the generic one against the table's definition.
func TestSampleExhaustive(t *testing.T) {
	for _, p := range ParameterSets()[:6:6] {
		all := make([]uint16, 1<<16)
		for i := range all {
			all[i] = uint16(i)
		}
		got, want := slices.Clone(all), slices.Clone(all)
		p.sample(got)
		p.sampleGeneric(want)
		if !slices.Equal(got, want) {
			t.Fatalf("%s: sample and sampleGeneric disagree", p.Name())
		}
		for r, e := range want {
			prnd := uint16(r) >> 1
			k := 0
			for k < len(p.cdf)-1 && p.cdf[k] < prnd {
				k++
			}
			if r&1 == 1 {
				k = -k
			}
			if int16(e) != int16(k) {
				t.Fatalf("%s: sample(%#x) = %d, want %d", p.Name(), r, int16(e), k)
			}
		}
	}
}

// packBits is Frodo.Pack bit by bit, as the specification writes it.
func packBits(p *ParameterSet, in []uint16) []byte {
	out := make([]byte, p.packedSize(len(in)))
	for i, v := range in {
		for j := range int(p.logq) {
			bit := v >> (int(p.logq) - 1 - j) & 1
			pos := i*int(p.logq) + j
			out[pos/8] |= byte(bit) << (7 - pos%8)
		}
	}
	return out
}

func TestPackRoundTrip(t *testing.T) {
	for _, p := range ParameterSets() {
		for _, n := range []int{8, 16, 24, nbar * nbar} {
			v := randomUint16s(n)
			packed := make([]byte, p.packedSize(n))
			p.pack(packed, v)
			if !bytes.Equal(packed, packBits(p, v)) {
				t.Fatalf("%s: pack of %d entries differs from the bitwise definition", p.Name(), n)
			}
			got := make([]uint16, n)
			p.unpack(got, packed)
			for i := range v {
				if got[i] != v[i]&p.q1() {
					t.Fatalf("%s: %d entries: entry %d: %#x, want %#x", p.Name(), n, i, got[i], v[i]&p.q1())
				}
			}
		}
		n := p.n * nbar
		v := randomUint16s(n)
		packed := make([]byte, p.packedSize(n))
		p.pack(packed, v)
		got := make([]uint16, n)
		p.unpack(got, packed)
		for i := range v {
			if got[i] != v[i]&p.q1() {
				t.Fatalf("%s: entry %d: %#x, want %#x", p.Name(), i, got[i], v[i]&p.q1())
			}
		}
		again := make([]byte, len(packed))
		p.pack(again, got)
		if !bytes.Equal(again, packed) {
			t.Fatalf("%s: pack(unpack(x)) != x", p.Name())
		}
		if !bytes.Equal(packed, packBits(p, v)) {
			t.Fatalf("%s: pack differs from the bitwise definition", p.Name())
		}
	}
}

func TestEncodeDecode(t *testing.T) {
	for _, p := range ParameterSets() {
		mu := make([]byte, p.lenSec)
		rand.Read(mu)
		var c [nbar * nbar]uint16
		p.encodeKey(&c, mu)
		// Noise below q/2^(B+1) in either direction decodes to the same mu.
		bound := int(1) << (int(p.logq) - p.b - 1)
		for i := range c {
			d := int(randomUint16s(1)[0])%(2*bound-1) - (bound - 1)
			c[i] = uint16(int(c[i])+d) & p.q1()
		}
		got := make([]byte, p.lenSec)
		p.decodeKey(got, &c)
		if !bytes.Equal(got, mu) {
			t.Fatalf("%s: decode(encode(mu) + noise) != mu", p.Name())
		}
	}
}

func TestExpandKey128(t *testing.T) {
	for range 20 {
		key := make([]byte, 16)
		rand.Read(key)
		var rk [176]byte
		expandKey128(&rk, key)
		if !bytes.Equal(rk[:16], key) {
			t.Fatal("round key 0 is not the key")
		}
		// The last round key, through crypto/aes: encrypting with the
		// schedule gives the same as crypto/aes for one block.
		block, _ := aes.NewCipher(key)
		var in, want [16]byte
		rand.Read(in[:])
		block.Encrypt(want[:], in[:])
		if got := encryptGo(&rk, in); got != want {
			t.Fatalf("key %x: schedule gives %x, want %x", key, got, want)
		}
	}
}

// encryptGo is a plain AES-128 encryption with the expanded key, for
// checking expandKey128 without the assembly.
func encryptGo(rk *[176]byte, in [16]byte) [16]byte {
	s := sbox()
	st := in
	xor := func(r int) {
		for i := range 16 {
			st[i] ^= rk[16*r+i]
		}
	}
	xtime := func(b byte) byte { return b<<1 ^ (b>>7)*0x1b }
	xor(0)
	for r := 1; r <= 10; r++ {
		for i := range st {
			st[i] = s[st[i]]
		}
		// ShiftRows: byte (row, col) at 4*col + row.
		var t [16]byte
		for c := range 4 {
			for row := range 4 {
				t[4*c+row] = st[4*((c+row)%4)+row]
			}
		}
		st = t
		if r != 10 {
			for c := range 4 {
				a := st[4*c : 4*c+4]
				all := a[0] ^ a[1] ^ a[2] ^ a[3]
				a0 := a[0]
				a[0] ^= all ^ xtime(a[0]^a[1])
				a[1] ^= all ^ xtime(a[1]^a[2])
				a[2] ^= all ^ xtime(a[2]^a[3])
				a[3] ^= all ^ xtime(a[3]^a0)
			}
		}
		xor(r)
	}
	return st
}

// The assembly kernels, through the dispatch at the AVX2 level, against
// their Go twins.
func TestKernels(t *testing.T) {
	cpuLevels.SkipUnless(t, cpuid.LevelAVX2)
	defer cpuLevels.Force(cpuid.LevelAVX2)()
	for _, n := range []int{640, 976, 1344} {
		st := randomUint16s(nbar * n)
		row := randomUint16s(n)
		out1 := randomUint16s(nbar)
		out2 := slices.Clone(out1)
		dot8(out1, row, st, n)
		dot8Generic(out2, row, st, n)
		if !slices.Equal(out1, out2) {
			t.Fatalf("n = %d: dot8 and dot8Generic disagree", n)
		}

		var r rowBuf
		for k := range 4 {
			copy(r.row(k), randomUint16s(maxN))
		}
		sp := randomUint16s(nbar * n)
		bp1 := randomUint16s(nbar * n)
		bp2 := slices.Clone(bp1)
		for _, i := range []int{0, 4, n - 4} {
			axpy4x8(bp1, sp, r.rows[:], maxN, i, n)
			axpy4x8Generic(bp2, sp, r.rows[:], maxN, i, n)
		}
		if !slices.Equal(bp1, bp2) {
			t.Fatalf("n = %d: axpy4x8 and axpy4x8Generic disagree", n)
		}
		// Rows n words apart, as in an expanded A.
		rows := randomUint16s(4 * n)
		for _, i := range []int{0, 4, n - 4} {
			axpy4x8(bp1, sp, rows, n, i, n)
			axpy4x8Generic(bp2, sp, rows, n, i, n)
		}
		if !slices.Equal(bp1, bp2) {
			t.Fatalf("n = %d: axpy4x8 and axpy4x8Generic disagree on rows %d words apart", n, n)
		}
	}
}

// dot8x2 (with AVX-512 VNNI at the avx512 level where the CPU has it, two
// dot8 calls otherwise) against its Go twin at every level: random entries,
// and the extremes, where VPDPWSSD's signed doubleword sums overflow (two
// products of -2^15 by -2^15 make 2^31) and only their low 16 bits count.
func TestDot8x2(t *testing.T) {
	cpuLevels.ForEach(t, func(t *testing.T) {
		t.Logf("AVX-512 VNNI: %v", hasVNNI)
		for _, n := range []int{16, 640, 976, 1344} {
			for _, fill := range []int{-1, 0x8000, 0xffff, 0x7fff} {
				stride := n + 16*(n%3)
				rows, st, out1 := randomUint16s(stride+n), randomUint16s(nbar*n), randomUint16s(2*nbar)
				if fill >= 0 {
					for i := range rows {
						rows[i] = uint16(fill)
					}
					for i := range st {
						st[i] = uint16(fill)
					}
				}
				out2 := slices.Clone(out1)
				dot8x2(out1, rows, stride, st, n)
				dot8x2Generic(out2, rows, stride, st, n)
				if !slices.Equal(out1, out2) {
					t.Fatalf("n = %d, fill %#x: dot8x2 and dot8x2Generic disagree:\n%v\n%v", n, fill, out1, out2)
				}
			}
		}
	})
}

// Rows of every AES parameter set (and the CCS 2016 sets), on each AES row
// generator this CPU runs, forced, against crypto/aes (aesRows4Generic),
// and entry (i, 8) against its definition.
func TestAESRows(t *testing.T) {
	for _, p := range []*ParameterSet{FrodoKEM640AES(), FrodoKEM976AES(), FrodoKEM1344AES(), ccsRecommended.p, ccsParanoid.p} {
		seed := make([]byte, 16)
		rand.Read(seed)
		block, _ := aes.NewCipher(seed)
		for impl := aesFastest(cpuid.Max()); impl >= aesGo; impl-- {
			var a matrixA
			restore := forceAES(impl)
			a.init(p, seed)
			restore()
			var r, want rowBuf
			for _, i := range []int{0, 4, p.n - 4} {
				a.rows4(i, &r)
				aesRows4Generic(block, i, p.n, &want)
				for k := range 4 {
					if !slices.Equal(r.row(k)[:p.n], want.row(k)[:p.n]) {
						t.Fatalf("n = %d, %s: row %d differs from crypto/aes's", p.n, aesImplNames[impl], i+k)
					}
					// Entry (i+k, 8) by definition.
					var in, out [16]byte
					binary.LittleEndian.PutUint16(in[0:], uint16(i+k))
					binary.LittleEndian.PutUint16(in[2:], 8)
					block.Encrypt(out[:], in[:])
					if r.row(k)[8] != binary.LittleEndian.Uint16(out[:]) {
						t.Fatalf("n = %d, %s: A[%d][8] is not AES128(seedA, i || 8 || 0)", p.n, aesImplNames[impl], i+k)
					}
				}
			}
		}
	}
}

// readUint16s (in place on little-endian assembly builds) against the
// buffered conversion, for lengths around the buffer's 256 words.
func TestReadUint16s(t *testing.T) {
	for _, n := range []int{0, 1, 255, 256, 257, 1000, 10240} {
		var a, b keccak.SHAKE
		a.Init128()
		b.Init128()
		a.Write([]byte("seed"))
		b.Write([]byte("seed"))
		out1, out2 := make([]uint16, n), make([]uint16, n)
		readUint16s(&a, out1)
		readUint16sGeneric(&b, out2)
		if !slices.Equal(out1, out2) {
			t.Fatalf("n = %d: readUint16s and readUint16sGeneric disagree", n)
		}
		var next1, next2 [2]byte
		a.Read(next1[:])
		b.Read(next2[:])
		if next1 != next2 {
			t.Fatalf("n = %d: the streams are not at the same place after", n)
		}
	}
}

// The rows of A made ahead while the error samples are squeezed
// (rideRows): at each level, for every SHAKE set, an encryption's rows
// made ahead are rows of A as gen4 makes them, and there are as many as
// the SHAKE's free lanes had room for: none where the SHAKE does not run
// in lanes (internal/keccak without its AVX-512 permutation), and none for
// a key whose A is kept whole.
func TestRideRows(t *testing.T) {
	cpuLevels.ForEach(t, func(t *testing.T) {
		for _, p := range ParameterSets() {
			if p.aes {
				continue
			}
			dk, err := p.GenerateKey()
			if err != nil {
				t.Fatal(err)
			}
			for _, pre := range []bool{false, true} {
				key := dk
				if pre {
					if key, err = p.NewDecapsulationKey(dk.Bytes()); err != nil {
						t.Fatal(err)
					}
					key.Precompute()
				}
				ek := key.EncapsulationKey()
				w := getWork()
				var h keccak.SHAKE
				p.initHash(&h)
				ct := make([]byte, p.CiphertextSize())
				var k [maxLenSec]byte
				mu := make([]byte, p.lenSec+p.lenSalt)
				ek.encrypt(w, &h, ct, k[:p.lenSec], mu[:p.lenSec], mu[p.lenSec:], nil)
				got := w.r.npre
				// The samples take ceil(2 * (2 n n̄ + n̄²) / rate) blocks,
				// which three lanes share; rows are whole blocks.
				rate := keccak.Rate128
				if p.shake256 {
					rate = keccak.Rate256
				}
				blocks := (2*(2*p.n*nbar+nbar*nbar) + rate - 1) / rate
				rowBlocks := (2*p.n + keccak.Rate128 - 1) / keccak.Rate128
				want := min(blocks/rowBlocks*3, preRows) &^ 3
				// Whether a SHAKE runs in lanes is internal/keccak's
				// level, not this package's: ask a SHAKE.
				var probe keccak.SHAKE
				probe.Init128()
				if !probe.Ride(new(keccak.Rows), nil) || pre {
					want = 0
				}
				if got != want {
					t.Errorf("%s (A kept: %v): %d rows made ahead, want %d", p.Name(), pre, got, want)
				}
				var r rowBuf
				for i := 0; i < got; i += 4 {
					ek.a.gen4(i, &r)
					for m := range 4 {
						if !slices.Equal(w.r.pre[(i+m)*maxN:][:p.n], r.row(m)[:p.n]) {
							t.Fatalf("%s: row %d made ahead is not row %d of A", p.Name(), i+m, i+m)
						}
					}
				}
				putWork(w)
			}
		}
	})
}

// FuzzDot8x2 compares dot8x2 (the VNNI kernel where the CPU has it) with
// its Go twin on entries from the fuzzer, n a multiple of 16.
func FuzzDot8x2(f *testing.F) {
	f.Add(uint8(0), []byte{0xff, 0x7f, 0x00, 0x80})
	f.Add(uint8(3), []byte{1, 2, 3})
	f.Fuzz(func(t *testing.T, k uint8, data []byte) {
		n := 16 * (1 + int(k%8))
		stride := n + 16*int(k/8%3)
		words := make([]uint16, stride+n+nbar*n+2*nbar)
		for i := range words {
			if len(data) > 1 {
				words[i] = uint16(data[(2*i)%len(data)]) | uint16(data[(2*i+1)%len(data)])<<8
			}
		}
		rows, st := words[:stride+n], words[stride+n:stride+n+nbar*n]
		out1 := slices.Clone(words[stride+n+nbar*n:])
		out2 := slices.Clone(out1)
		dot8x2(out1, rows, stride, st, n)
		dot8x2Generic(out2, rows, stride, st, n)
		if !slices.Equal(out1, out2) {
			t.Fatalf("n = %d: dot8x2 and dot8x2Generic disagree", n)
		}
	})
}

// shakeRowRef is row i of A for a SHAKE set by its definition: the first
// 2n bytes of SHAKE128(LE16(i) || seedA), little-endian words.
func shakeRowRef(n, i int, seedA []byte) []uint16 {
	h := sha3.NewSHAKE128()
	h.Write(binary.LittleEndian.AppendUint16(nil, uint16(i)))
	h.Write(seedA)
	b := make([]byte, 2*n)
	h.Read(b)
	row := make([]uint16, n)
	for j := range row {
		row[j] = binary.LittleEndian.Uint16(b[2*j:])
	}
	return row
}

// TestSHAKERows reads every row of A through rows4, as the products do, at
// each level (eight rows at a time where wideRows says so, else four),
// against the definition: from row 0, and after rows made ahead up to a
// multiple of 4 that is not one of 8 (rows4 then makes eight from there).
// A look-ahead left by another matrix is not used.
func TestSHAKERows(t *testing.T) {
	cpuLevels.ForEach(t, func(t *testing.T) {
		for _, p := range []*ParameterSet{FrodoKEM640SHAKE(), FrodoKEM976SHAKE(), FrodoKEM1344SHAKE()} {
			seed := make([]byte, seedASize)
			rand.Read(seed)
			var a, other matrixA
			a.init(p, seed)
			other.init(p, make([]byte, seedASize))
			for _, npre := range []int{0, 12} {
				r := new(rowBuf)
				if npre > 0 {
					r.pre = new([preRows * maxN]uint16)
					for i := range npre {
						copy(r.pre[i*maxN:], shakeRowRef(p.n, i, seed))
					}
					r.npre = npre
				}
				for i := 0; i < p.n; i += 4 {
					rows, stride := a.rows4(i, r)
					for m := range 4 {
						if want := shakeRowRef(p.n, i+m, seed); !slices.Equal(rows[m*stride:][:p.n], want) {
							t.Fatalf("%s, %d rows made ahead, wide %v: row %d is not SHAKE128(LE16(i) || seedA)", p.Name(), npre, wideRows(), i+m)
						}
					}
				}
				if r.ahead != 0 {
					t.Errorf("%s: rows left ahead after the last row", p.Name())
				}
			}
			// other's rows 0..7, its second four left ahead for a call
			// of rows4(4) that a must not take.
			r := new(rowBuf)
			other.rows4(0, r)
			rows, stride := a.rows4(4, r)
			for m := range 4 {
				if want := shakeRowRef(p.n, 4+m, seed); !slices.Equal(rows[m*stride:][:p.n], want) {
					t.Fatalf("%s, after another matrix's rows: row %d is not SHAKE128(LE16(i) || seedA)", p.Name(), 4+m)
				}
			}
		}
	})
}
