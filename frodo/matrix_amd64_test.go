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

// aesRowRoutines are the assembly row generators this CPU can run.
func aesRowRoutines(t testing.TB) []struct {
	name string
	f    func(rk *[176]byte, out *uint16, i uint64, nblocks uint64)
} {
	if !haveAESNI {
		t.Skip("no AES-NI")
	}
	r := []struct {
		name string
		f    func(rk *[176]byte, out *uint16, i uint64, nblocks uint64)
	}{{"AES-NI", aesRowAsm}}
	if haveVAES {
		r = append(r, struct {
			name string
			f    func(rk *[176]byte, out *uint16, i uint64, nblocks uint64)
		}{"VAES", aesRowVAES})
	} else {
		t.Log("no VAES: only the AES-NI routine is compared")
	}
	return r
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

// A whole row of every AES parameter set on each routine, through rows4.
func TestAESRowsVAES(t *testing.T) {
	if !haveVAES {
		t.Skip("no VAES")
	}
	for _, p := range []*ParameterSet{FrodoKEM640AES(), FrodoKEM976AES(), FrodoKEM1344AES(), ccsRecommended.p, ccsParanoid.p} {
		t.Run(fmt.Sprint(p.n), func(t *testing.T) {
			seed := make([]byte, 16)
			rand.Read(seed)
			var v, ni matrixA
			v.init(p, seed)
			restore := forceAESNI(true)
			ni.init(p, seed)
			restore()
			if v.ecb == nil || !v.ecb.vaes || ni.ecb == nil || ni.ecb.vaes {
				t.Fatal("the paths were not the ones asked for")
			}
			var r1, r2 rowBuf
			for _, i := range []int{0, 4, p.n - 4} {
				v.rows4(i, &r1)
				ni.rows4(i, &r2)
				if r1.rows != r2.rows {
					t.Fatalf("rows %d..%d differ between VAES and AES-NI", i, i+3)
				}
			}
		})
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
// path) with the AES-NI row generator, where the default is VAES: Alice's
// and Bob's messages and Bob's key.
func TestCCS2016VectorsAESNI(t *testing.T) {
	if !haveVAES {
		t.Skip("no VAES: frodotest's TestCCS2016Vectors ran the AES-NI path")
	}
	defer forceAESNI(true)()
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
