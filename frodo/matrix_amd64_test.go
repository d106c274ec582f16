//go:build amd64 && !purego

package frodo

import (
	"crypto/aes"
	"crypto/rand"
	"encoding/binary"
	"fmt"
	"testing"

	"github.com/pqkem/pqkem/internal/cpuid"
)

// aesRowRoutine is an assembly row generator.
type aesRowRoutine struct {
	name string
	f    func(rk *[176]byte, out *uint16, i uint64, nblocks uint64)
}

// aesRowRoutines are the assembly row generators this CPU can run, at the
// highest level this process runs.
func aesRowRoutines(t testing.TB) []aesRowRoutine {
	best := aesFastest(cpuid.Max())
	if best < aesNI {
		t.Skip("the AES row routines need AES-NI and SSE4.1, which this CPU lacks")
	}
	all := [...]aesRowRoutine{
		aesNI:      {aesImplNames[aesNI], aesRowAsm},
		aesVAES:    {aesImplNames[aesVAES], aesRowVAES},
		aesVAES512: {aesImplNames[aesVAES512], aesRowVAES512},
	}
	if best < aesVAES512 {
		t.Logf("%s and slower only: VAES on ymm needs VAES and the AVX2 level, on zmm AVX-512 VAES, BMI2 and the AVX-512 level (this process runs up to %v)",
			aesImplNames[best], cpuid.Max())
	}
	return all[aesNI : best+1]
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

// The AES row generator a key gets: the fastest of the level it is made
// at (aesByLevel), or a slower one forceAES asked for; cpuid.ForceGeneric
// (pqkem-bench) gives the generic level's.
func TestAESChoice(t *testing.T) {
	var a matrixA
	for l := cpuid.Max(); l >= cpuid.LevelGeneric; l-- {
		restore := cpuLevels.Force(l)
		want := aesFastest(l)
		a.init(FrodoKEM640AES(), make([]byte, 16))
		if a.aes.impl != want {
			t.Errorf("level %v: %s, want %s", l, aesImplNames[a.aes.impl], aesImplNames[want])
		}
		if l > cpuid.LevelGeneric && want < aesFastest(l-1) {
			t.Errorf("level %v has %s, slower than the level below", l, aesImplNames[want])
		}
		for impl := want; impl >= aesGo; impl-- {
			undo := forceAES(impl)
			a.init(FrodoKEM640AES(), make([]byte, 16))
			undo()
			if a.aes.impl != impl {
				t.Errorf("level %v, forcing %s: %s", l, aesImplNames[impl], aesImplNames[a.aes.impl])
			}
			if (a.aes.block != nil) != (impl == aesGo) {
				t.Errorf("level %v, %s: crypto/aes's cipher %v", l, aesImplNames[impl], a.aes.block)
			}
		}
		restore()
	}
	defer cpuid.ForceGeneric(true)()
	a.init(FrodoKEM640AES(), make([]byte, 16))
	if want := aesFastest(cpuid.LevelGeneric); a.aes.impl != want {
		t.Errorf("cpuid.ForceGeneric: %s, want %s", aesImplNames[a.aes.impl], aesImplNames[want])
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
		if hasVNNI {
			b.Run(fmt.Sprintf("dot8x2VNNI/%d", n), func(b *testing.B) {
				for b.Loop() {
					for i := 0; i < n; i += 2 {
						dot8x2VNNI(&out[i*nbar], &r.row(i % 4)[0], maxN, &st[0], uint64(n))
					}
				}
			})
		}
		b.Run(fmt.Sprintf("axpy4x8/%d", n), func(b *testing.B) {
			for b.Loop() {
				for i := 0; i < n; i += 4 {
					axpy4x8AVX2(&out[0], &st[i], &r.rows[0], uint64(n), maxN)
				}
			}
		})
	}
}
