//go:build amd64 && !purego

package fips203

import (
	"bytes"
	"math/rand/v2"
	"testing"

	"github.com/pqkem/pqkem/internal/cpuid"
)

// Whole operations through the AVX2 path and through the generic path
// (cpuid.ForceGeneric) must give the same bytes. These tests flip a
// process-wide switch, so they must not run in parallel with each other.

// opsTranscript runs KeyGen, Encaps (to a fresh parse of the key) and
// Decaps of a valid and of a corrupted ciphertext for one seed, and
// returns everything they produced.
func opsTranscript(t *testing.T, p *Params, seed *[96]byte) []byte {
	t.Helper()
	var out []byte
	var dk DecapsulationKey
	KeyGenInternal(&dk, p, (*[32]byte)(seed[:32]), (*[32]byte)(seed[32:64]))
	ekBytes := dk.EncapsulationKey().Bytes(nil)
	out = append(out, ekBytes...)
	dkBytes := dk.ExpandedBytes(nil)
	out = append(out, dkBytes...)

	var ek EncapsulationKey
	if err := NewEncapsulationKey(&ek, p, ekBytes); err != nil {
		t.Fatal(err)
	}
	var K [SharedKeySize]byte
	c := ek.EncapsulateInternal(&K, nil, (*[MessageSize]byte)(seed[64:96]))
	out = append(out, c...)
	out = append(out, K[:]...)

	var dk2 DecapsulationKey
	if err := NewDecapsulationKeyExpanded(&dk2, p, dkBytes); err != nil {
		t.Fatal(err)
	}
	var K2 [SharedKeySize]byte
	if err := dk2.Decapsulate(&K2, c); err != nil {
		t.Fatal(err)
	}
	if K2 != K {
		t.Fatalf("%s: decapsulated key differs", p.name)
	}
	c[(int(seed[0])<<8|int(seed[1]))%len(c)] ^= 1 << (seed[2] % 8)
	if err := dk.Decapsulate(&K2, c); err != nil {
		t.Fatal(err)
	}
	return append(out, K2[:]...)
}

func TestOpsAsmVsGeneric(t *testing.T) {
	if !cpuid.HasAVX2() {
		t.Skip("no AVX2 assembly in this build")
	}
	iterations := 300
	if testing.Short() {
		iterations = 30
	}
	r := rand.New(rand.NewPCG(21, 22))
	for _, p := range []*Params{MLKEM512, MLKEM768, MLKEM1024} {
		for range iterations {
			var seed [96]byte
			for i := range seed {
				seed[i] = byte(r.Uint32())
			}
			restore := cpuLevels.Force(cpuid.LevelGeneric)
			generic := opsTranscript(t, p, &seed)
			restore()
			if !avx2() {
				t.Fatal("assembly path not restored")
			}
			asm := opsTranscript(t, p, &seed)
			if !bytes.Equal(asm, generic) {
				t.Fatalf("%s: AVX2 and generic transcripts differ for seed %x", p.name, seed)
			}
		}
	}
}

// Fuzz targets: each assembly routine against its Go twin. The inputs are
// reduced into each routine's documented domain.

func ringFromBytes(data []byte, bound int) ringElement {
	var f ringElement
	for i := range f {
		var v uint16
		if 2*i+1 < len(data) {
			v = uint16(data[2*i]) | uint16(data[2*i+1])<<8
		}
		f[i] = fieldElement(int(v) % bound)
	}
	return f
}

func FuzzNTTAsm(f *testing.F) {
	f.Add(make([]byte, 512))
	f.Add(bytes.Repeat([]byte{0xff}, 512))
	f.Fuzz(func(t *testing.T, data []byte) {
		requireAVX2(t)
		checkNTT(t, ringFromBytes(data, q))
	})
}

func FuzzInverseNTTAsm(f *testing.F) {
	f.Add(make([]byte, 512), false)
	f.Add(bytes.Repeat([]byte{0xff}, 512), true)
	f.Fuzz(func(t *testing.T, data []byte, lazy bool) {
		requireAVX2(t)
		bound := q
		if lazy {
			bound = 2 * q
		}
		checkInverseNTT(t, ringFromBytes(data, bound))
	})
}

func FuzzInnerProductAsm(f *testing.F) {
	f.Add(make([]byte, 2560), uint8(3), false)
	f.Add(bytes.Repeat([]byte{0xff}, 2560), uint8(4), true)
	f.Fuzz(func(t *testing.T, data []byte, kk uint8, withE bool) {
		requireAVX2(t)
		data = append(data, make([]byte, 2560)...)
		k := 1 + int(kk)%maxK
		var a, b [maxK]nttElement
		var bc [maxK]nttCache
		for j := range maxK {
			a[j] = nttElement(ringFromBytes(data[512*j:], q))
			b[j] = nttElement(ringFromBytes(data[256+512*j:], q))
			checkCache(t, b[j])
			bc[j].computeGeneric(&b[j])
		}
		var e *nttElement
		if withE {
			ee := nttElement(ringFromBytes(data[2048:], q))
			e = &ee
		}
		var want, got nttElement
		restore := cpuLevels.Force(cpuid.LevelGeneric)
		innerProduct(&want, a[:], 1, b[:], bc[:], k, e)
		restore()
		innerProduct(&got, a[:], 1, b[:], bc[:], k, e)
		if got != want {
			t.Fatalf("k = %d: innerProduct differs\ngot  %v\nwant %v", k, got, want)
		}
		// Key generation writes Âŝ + ê over ê: f may be e, at every level.
		if e != nil {
			for _, l := range []cpuid.Level{cpuid.LevelGeneric, cpuid.LevelAVX2} {
				f := *e
				restore := cpuLevels.Force(l)
				innerProduct(&f, a[:], 1, b[:], bc[:], k, &f)
				restore()
				if f != want {
					t.Fatalf("k = %d, level %v: innerProduct with f = e differs", k, l)
				}
			}
		}
	})
}

func FuzzCompressEncodeAsm(f *testing.F) {
	f.Add(make([]byte, 512), uint8(0))
	f.Add(bytes.Repeat([]byte{0xff}, 512), uint8(4))
	f.Fuzz(func(t *testing.T, data []byte, which uint8) {
		requireAVX2(t)
		d := compressionWidths[int(which)%len(compressionWidths)]
		checkCompressEncode(t, ringFromBytes(data, q), d)
	})
}

func FuzzDecodeDecompressAsm(f *testing.F) {
	f.Add(make([]byte, 352), uint8(0))
	f.Add(bytes.Repeat([]byte{0xff}, 352), uint8(4))
	f.Fuzz(func(t *testing.T, data []byte, which uint8) {
		requireAVX2(t)
		d := compressionWidths[int(which)%len(compressionWidths)]
		b := append(data, make([]byte, 352)...)[:32*int(d)]
		checkDecodeDecompress(t, b, d)
	})
}

func FuzzDecode12Asm(f *testing.F) {
	f.Add(make([]byte, encodingSize12))
	f.Add(bytes.Repeat([]byte{0xff}, encodingSize12))
	f.Fuzz(func(t *testing.T, data []byte) {
		requireAVX2(t)
		b := append(data, make([]byte, encodingSize12)...)[:encodingSize12]
		var g nttElement
		restore := cpuLevels.Force(cpuid.LevelGeneric)
		valid := byteDecode12Secret(&g, b)
		restore()
		var h nttElement
		if got := decode12AVX2((*[n]uint16)(&h), (*[encodingSize12]byte)(b)); got != valid || g != h {
			t.Fatalf("decode12AVX2 = %d, %v; want %d, %v", got, h, valid, g)
		}
		if valid == 1 {
			checkEncodeDecode12(t, g)
		}
	})
}

func FuzzSamplePolyCBDAsm(f *testing.F) {
	f.Add(make([]byte, 192), false)
	f.Add(bytes.Repeat([]byte{0xff}, 192), true)
	f.Fuzz(func(t *testing.T, data []byte, three bool) {
		requireAVX2(t)
		eta := 2
		if three {
			eta = 3
		}
		b := append(data, make([]byte, 192)...)[:64*eta]
		checkCBD(t, b, eta)
	})
}
