//go:build amd64 && !purego

package frodo

import (
	"bytes"
	"crypto/aes"
	"crypto/rand"
	"encoding/binary"
	"fmt"
	"testing"

	"github.com/pqkem/pqkem/internal/vectors"
)

// aesRowRoutine is an assembly row generator.
type aesRowRoutine struct {
	name string
	f    func(rk *[176]byte, out *uint16, i uint64, nblocks uint64)
}

// aesRowRoutines are the assembly row generators this CPU can run.
func aesRowRoutines(t testing.TB) []aesRowRoutine {
	if !haveAESNI {
		t.Skip("no AES-NI")
	}
	all := [...]aesRowRoutine{
		aesNI:      {aesImplNames[aesNI], aesRowAsm},
		aesVAES:    {aesImplNames[aesVAES], aesRowVAES},
		aesVAES512: {aesImplNames[aesVAES512], aesRowVAES512},
	}
	if aesBest < aesVAES512 {
		t.Logf("only %s and slower on this CPU", aesImplNames[aesBest])
	}
	return all[:aesBest+1]
}

// checkAESRow runs each routine on one row and compares it with
// crypto/aes, block by block, and checks that nothing past the row's
// nblocks blocks was written.
func checkAESRow(t testing.TB, key []byte, i uint16, nblocks int) {
	block, err := aes.NewCipher(key)
	if err != nil {
		t.Fatal(err)
	}
	var rk [176]byte
	expandKey128(&rk, key)
	want := make([]uint16, 8*nblocks)
	var in, out [16]byte
	binary.LittleEndian.PutUint16(in[0:], i)
	for b := range nblocks {
		binary.LittleEndian.PutUint16(in[2:], uint16(8*b))
		block.Encrypt(out[:], in[:])
		leUint16s(want[8*b:8*b+8], out[:])
	}
	const guard = 8 * 17 // more than one VAES batch past the end
	for _, r := range aesRowRoutines(t) {
		got := make([]uint16, 8*nblocks+guard)
		for k := range got {
			got[k] = 0xa5a5
		}
		r.f(&rk, &got[0], uint64(i), uint64(nblocks))
		for k, w := range want {
			if got[k] != w {
				t.Fatalf("%s, key %x, row %d, %d blocks: word %d = %#04x, want %#04x (crypto/aes)", r.name, key, i, nblocks, k, got[k], w)
			}
		}
		for k := 8 * nblocks; k < len(got); k++ {
			if got[k] != 0xa5a5 {
				t.Fatalf("%s, row %d, %d blocks: wrote word %d, past the row", r.name, i, nblocks, k)
			}
		}
	}
}

// The AES-NI and VAES row routines against crypto/aes: random keys, the
// edge row indices, every block count up to three VAES batches and
// FrodoKEM's row lengths (n/8 for n = 640, 752, 864, 976, 1344).
func TestAESRowRoutines(t *testing.T) {
	counts := []int{80, 94, 108, 122, 168}
	for nb := range 3*16 + 2 {
		counts = append(counts, nb)
	}
	for range 3 {
		key := make([]byte, 16)
		rand.Read(key)
		var ri [2]byte
		rand.Read(ri[:])
		for _, i := range []uint16{0, 1, 255, 256, 65535, binary.LittleEndian.Uint16(ri[:])} {
			for _, nb := range counts {
				checkAESRow(t, key, i, nb)
			}
		}
	}
}

// Rows of every AES parameter set through rows4, on each implementation
// against the default.
func TestAESRowsImpls(t *testing.T) {
	if !haveAESNI || aesBest == aesNI {
		t.Skip("only AES-NI on this CPU")
	}
	for _, p := range []*ParameterSet{FrodoKEM640AES(), FrodoKEM976AES(), FrodoKEM1344AES(), ccsRecommended.p, ccsParanoid.p} {
		seed := make([]byte, 16)
		rand.Read(seed)
		var best matrixA
		best.init(p, seed)
		if best.ecb == nil || best.ecb.impl != aesBest {
			t.Fatal("the default is not the fastest implementation")
		}
		for impl := aesNI; impl < aesBest; impl++ {
			var a matrixA
			restore := forceAES(impl)
			a.init(p, seed)
			restore()
			if a.ecb == nil || a.ecb.impl != impl {
				t.Fatalf("forcing %s did not take", aesImplNames[impl])
			}
			var r1, r2 rowBuf
			for _, i := range []int{0, 4, p.n - 4} {
				best.rows4(i, &r1)
				a.rows4(i, &r2)
				if r1.rows != r2.rows {
					t.Fatalf("n = %d: rows %d..%d differ between %s and %s", p.n, i, i+3, aesImplNames[aesBest], aesImplNames[impl])
				}
			}
		}
	}
}

func FuzzAESRow(f *testing.F) {
	f.Add(make([]byte, 16), uint16(0), uint8(0))
	f.Add(make([]byte, 16), uint16(65535), uint8(168))
	f.Fuzz(func(t *testing.T, key []byte, i uint16, nblocks uint8) {
		if len(key) != 16 {
			return
		}
		checkAESRow(t, key, i, int(nblocks))
	})
}

// The CCS 2016 vectors (frodotest's TestCCS2016Vectors on the default
// path) on each slower AES implementation: Alice's and Bob's messages
// and Bob's key.
func TestCCS2016VectorsAESImpls(t *testing.T) {
	if !haveAESNI || aesBest == aesNI {
		t.Skip("only AES-NI: frodotest's TestCCS2016Vectors ran it")
	}
	for impl := aesNI; impl < aesBest; impl++ {
		t.Run(aesImplNames[impl], func(t *testing.T) {
			defer forceAES(impl)()
			testCCS2016Vectors(t)
		})
	}
}

func testCCS2016Vectors(t *testing.T) {
	for _, tc := range []struct {
		file string
		set  *KeyExchangeSet
	}{
		{"frodo-ccs2016/recommended.json", ccsRecommended},
		{"frodo-ccs2016/paranoid.json", ccsParanoid},
	} {
		var v struct {
			Cases []struct {
				Index    int    `json:"index"`
				AliceRNG string `json:"alice_rng"`
				BobRNG   string `json:"bob_rng"`
				MsgAlice string `json:"msg_alice"`
				MsgBob   string `json:"msg_bob"`
				KeyBob   string `json:"key_bob"`
			} `json:"cases"`
		}
		vectors.ReadJSONLax(t, tc.file, &v) // the other fields are frodotest's
		if len(v.Cases) == 0 {
			t.Fatalf("%s: no cases", tc.file)
		}
		for _, c := range v.Cases {
			msgA, _ := tc.set.alice0(vectors.Hex(t, c.AliceRNG))
			msgB, keyB := tc.set.bob(msgA, vectors.Hex(t, c.BobRNG))
			if !bytes.Equal(msgA, vectors.Hex(t, c.MsgAlice)) || !bytes.Equal(msgB, vectors.Hex(t, c.MsgBob)) || !bytes.Equal(keyB, vectors.Hex(t, c.KeyBob)) {
				t.Fatalf("%s case %d: differs from the vector", tc.set.Name(), c.Index)
			}
		}
	}
}

// BenchmarkAESRow is one row of A on each assembly routine, for each n.
func BenchmarkAESRow(b *testing.B) {
	var rk [176]byte
	expandKey128(&rk, make([]byte, 16))
	var out [maxN]uint16
	for _, r := range aesRowRoutines(b) {
		for _, n := range []int{640, 976, 1344} {
			b.Run(fmt.Sprintf("%s/%d", r.name, n), func(b *testing.B) {
				b.SetBytes(int64(2 * n))
				for b.Loop() {
					r.f(&rk, &out[0], 1, uint64(n/8))
				}
			})
		}
	}
}

// BenchmarkMatrixKernels is the two products' kernels over a whole n x n
// matrix, without generating it: dot8AVX2 (A S, key generation) and
// axpy4x8AVX2 (S' A, encapsulation and decapsulation).
func BenchmarkMatrixKernels(b *testing.B) {
	for _, n := range []int{640, 976, 1344} {
		var r rowBuf
		for k := range 4 {
			copy(r.row(k), randomUint16s(maxN))
		}
		st := randomUint16s(nbar * n)
		out := make([]uint16, nbar*n)
		b.Run(fmt.Sprintf("dot8/%d", n), func(b *testing.B) {
			for b.Loop() {
				for i := 0; i < n; i++ {
					dot8AVX2(&out[i*nbar], &r.row(i % 4)[0], &st[0], uint64(n))
				}
			}
		})
		b.Run(fmt.Sprintf("axpy4x8/%d", n), func(b *testing.B) {
			for b.Loop() {
				for i := 0; i < n; i += 4 {
					axpy4x8AVX2(&out[0], &st[i], &r.rows[0], uint64(n), maxN)
				}
			}
		})
	}
}
