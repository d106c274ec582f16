package pake

import (
	"crypto/rand"
	"crypto/sha3"
	"encoding/binary"
	"math/big"
	"math/bits"
	mrand "math/rand/v2"
	"strings"
	"testing"

	"github.com/pqkem/pqkem/internal/cpuid"
	"github.com/pqkem/pqkem/internal/cpuid/cpuidtest"
	"github.com/pqkem/pqkem/internal/vectors"
)

const sampleNTTFile = "tempo/samplentt.json"

type sampleNTTVector struct {
	Seed34 string `json:"seed34"`
	A0     []int  `json:"A0"`
	A0XOF  int    `json:"A0_xof_bytes_consumed"`
	B0     []int  `json:"B0"`
	B0XOF  int    `json:"B0_xof_bytes_consumed"`
	C1     []int  `json:"C1"`
	C1XOF  int    `json:"C1_xof_bytes_consumed"`
}

// allSamplers are the four samplers, a0VariableTime first.
var allSamplers = []Sampler{a0VariableTime, A1, B0, C1}

// cpuLevels are the levels this package tells apart: avx512 (batches of
// eight on the eight-way Keccak, where internal/keccak runs it), avx2 (the
// AVX2 samplers, the four-way Keccak with AVX-512 where the CPU has it:
// internal/keccak's tests run its levels) and generic, where ML-KEM
// (internal/fips203) and the four-way Keccak run their Go code too.
var cpuLevels = cpuidtest.Levels{Top: cpuid.LevelAVX512, Var: &level}

// TestSampleNTTVectors checks every sampler output in samplentt.json: A0 and
// A1 against "A0", B0, and C1 (which is also C0), on the single-seed path
// and in batches of 2 to 16 (the four-way Keccak path, and the eight-way
// one for whole batches of eight at the AVX-512 level), the other seeds of
// a batch against the single-seed path.
func TestSampleNTTVectors(t *testing.T) {
	var vs []sampleNTTVector
	vectors.ReadJSON(t, sampleNTTFile, &vs)
	if len(vs) == 0 {
		t.Fatal("no vectors")
	}
	cpuLevels.ForEach(t, func(t *testing.T) {
		for vi, v := range vs {
			seed := [34]byte(vectors.Hex(t, v.Seed34))
			for _, c := range []struct {
				s    Sampler
				want []int
				xof  int
			}{{a0VariableTime, v.A0, 0}, {A1, v.A0, a1Bytes}, {B0, v.B0, v.B0XOF}, {C1, v.C1, v.C1XOF}} {
				if len(c.want) != n {
					t.Fatalf("vector %d %v: %d coefficients", vi, c.s, len(c.want))
				}
				if c.s.XOFBytes() != c.xof {
					t.Errorf("%v: XOFBytes %d, vector says %d", c.s, c.s.XOFBytes(), c.xof)
				}
				check := func(what string, got *[256]uint16) {
					t.Helper()
					for i := range got {
						if int(got[i]) != c.want[i] {
							t.Fatalf("vector %d %v %s: coefficient %d = %d, want %d", vi, c.s, what, i, got[i], c.want[i])
						}
					}
				}
				var out [256]uint16
				c.s.Sample(&out, &seed)
				check("single", &out)
				for _, size := range []int{2, 3, 4, 5, 8, 9, 13, 16} {
					outs := make([][256]uint16, size)
					ptrs := make([]*[256]uint16, size)
					seeds := make([][34]byte, size)
					for e := range outs {
						ptrs[e] = &outs[e]
						seeds[e] = seed
						seeds[e][0] ^= byte(e) // other lanes differ
					}
					seeds[size-1] = seed
					c.s.sampleBatch(ptrs, seeds)
					check("batch", &outs[size-1])
					// Every other lane against the single-seed path.
					for e := range size - 1 {
						var one [256]uint16
						c.s.Sample(&one, &seeds[e])
						if outs[e] != one {
							t.Fatalf("vector %d %v: batch of %d, lane %d differs from the single-seed path", vi, c.s, size, e)
						}
					}
				}
			}
			// A0 reads what the vector says it consumed.
			if got := a0Consumed(&seed); got != v.A0XOF {
				t.Errorf("vector %d: A0 consumed %d XOF bytes, want %d", vi, got, v.A0XOF)
			}
		}
	})
}

// a0Consumed counts the XOF bytes FIPS 203 SampleNTT uses for seed.
func a0Consumed(seed *[34]byte) int {
	h := sha3.NewSHAKE128()
	h.Write(seed[:])
	j := 0
	for used := 3; ; used += 3 {
		var b [3]byte
		h.Read(b[:])
		d1 := int(b[0]) | int(b[1]&0x0f)<<8
		d2 := int(b[1])>>4 | int(b[2])<<4
		if d1 < q {
			j++
		}
		if j < n && d2 < q {
			j++
		}
		if j == n {
			return used
		}
	}
}

func randomSeeds(t testing.TB, count int) [][34]byte {
	seeds := make([][34]byte, count)
	for i := range seeds {
		rand.Read(seeds[i][:])
	}
	return seeds
}

// TestA1EqualsA0 checks A1 against A0 on 10,000 random seeds (1,000 with
// -short), in batches (the four-way path where there is one).
//
// Why the compaction in a1FromBytes is correct: let the accepted candidates
// be at positions p_1 < p_2 < ... with distances d_1 <= d_2 <= ..., where
// d_j - d_i is the number of rejected candidates between p_i and p_j, so
// d_j - d_i <= p_j - p_i - 1. After rounds 0..r-1 candidate i sits at p_i -
// (d_i mod 2^r), and (d_j mod 2^r) - (d_i mod 2^r) <= d_j - d_i < p_j - p_i,
// so p_j - (d_j mod 2^r) > p_i - (d_i mod 2^r): the order is kept and no two
// candidates meet. After round 9 (2^10 > 560) each is at p_i - d_i, which
// is its index among the accepted ones: where A0 puts it.
func TestA1EqualsA0(t *testing.T) {
	count := 10000
	if testing.Short() {
		count = 1000
	}
	seeds := randomSeeds(t, count)
	cpuLevels.ForEach(t, func(t *testing.T) {
		const batch = 9
		for e := 0; e < count; e += batch {
			m := min(batch, count-e)
			outs := make([][256]uint16, m)
			ptrs := make([]*[256]uint16, m)
			for l := range outs {
				ptrs[l] = &outs[l]
			}
			A1.sampleBatch(ptrs, seeds[e:e+m])
			for l := range outs {
				var want [256]uint16
				sampleA0(&want, &seeds[e+l])
				if outs[l] != want {
					t.Fatalf("A1 != A0 for seed %x", seeds[e+l])
				}
			}
		}
	})
}

// TestA1FewAccepted feeds A1 candidate streams with few acceptances, which
// random seeds never give: all rejected, all accepted, alternating, and
// exactly 256 accepted at the very end.
func TestA1FewAccepted(t *testing.T) {
	model := func(b []byte) (out [256]uint16) {
		j := 0
		for t := 0; t < a1Iterations && j < n; t++ {
			d1 := uint16(b[3*t]) | uint16(b[3*t+1]&0x0f)<<8
			d2 := uint16(b[3*t+1])>>4 | uint16(b[3*t+2])<<4
			if d1 < q {
				out[j] = d1
				j++
			}
			if d2 < q && j < n {
				out[j] = d2
				j++
			}
		}
		return out
	}
	put := func(b []byte, i int, d uint16) {
		t, h := i/2, i%2
		if h == 0 {
			b[3*t] = byte(d)
			b[3*t+1] = b[3*t+1]&0xf0 | byte(d>>8)
		} else {
			b[3*t+1] = b[3*t+1]&0x0f | byte(d<<4)
			b[3*t+2] = byte(d >> 4)
		}
	}
	cases := map[string]func(i int) uint16{
		"all rejected":    func(i int) uint16 { return 4095 },
		"all accepted":    func(i int) uint16 { return uint16(i * 7 % q) },
		"alternating":     func(i int) uint16 { return []uint16{3328, 3329}[i%2] + uint16(i%3) },
		"last 256":        func(i int) uint16 { return map[bool]uint16{true: uint16(i) % q, false: q}[i >= 560-256] },
		"every third":     func(i int) uint16 { return map[bool]uint16{true: uint16(i), false: 4000}[i%3 == 0] },
		"first and last":  func(i int) uint16 { return map[bool]uint16{true: 17, false: q + uint16(i)}[i == 0 || i == 559] },
		"blocks of seven": func(i int) uint16 { return map[bool]uint16{true: uint16(i), false: 3500}[(i/7)%2 == 0] },
	}
	cpuLevels.ForEach(t, func(t *testing.T) {
		for name, f := range cases {
			b := make([]byte, a1Bytes)
			for i := range 2 * a1Iterations {
				put(b, i, f(i)&0xfff)
			}
			var got [256]uint16
			a1FromBytes(&got, b)
			if want := model(b); got != want {
				t.Errorf("%s: A1 differs from the capped A0 model", name)
			}
		}
	})
}

// bigModC1 is C1 with math/big: each 24-byte chunk as a little-endian
// integer, modulo q.
func bigModC1(b []byte) (out [256]uint16) {
	Q := big.NewInt(q)
	for j := range out {
		be := make([]byte, 24)
		for i := range be {
			be[i] = b[24*j+23-i]
		}
		x := new(big.Int).SetBytes(be)
		out[j] = uint16(x.Mod(x, Q).Uint64())
	}
	return out
}

// bigModB0 is B0 with math/big: the base-q digits of the little-endian
// integer of 400 bytes.
func bigModB0(b []byte) (out [256]uint16) {
	be := make([]byte, b0Bytes)
	for i := range be {
		be[i] = b[b0Bytes-1-i]
	}
	x := new(big.Int).SetBytes(be)
	Q := big.NewInt(q)
	d := new(big.Int)
	for i := range out {
		x.DivMod(x, Q, d)
		out[i] = uint16(d.Uint64())
	}
	return out
}

// TestC1BigModel checks C1 against math/big on random bytes and on chunks
// at the edges (all ones, all zeros, words at their maximum).
func TestC1BigModel(t *testing.T) {
	iters := 300
	if testing.Short() {
		iters = 30
	}
	// Chunks near multiples of q: a random 192-bit X minus X mod q, plus
	// an offset in [-2, 2], so that every chunk's value mod q is 0, 1, 2,
	// q-1 or q-2.
	nearQ := func(b []byte, r *mrand.Rand) {
		for j := range n {
			var x [24]byte
			for i := range x {
				x[i] = byte(r.Uint32())
			}
			v := new(big.Int).SetBytes(reverse(x[:]))
			v.Sub(v, new(big.Int).Mod(v, big.NewInt(q)))
			v.Add(v, big.NewInt(int64(r.IntN(5))-2+q))
			v.Mod(v, new(big.Int).Lsh(big.NewInt(1), 192))
			v.FillBytes(x[:])
			copy(b[24*j:], reverse(x[:]))
		}
	}
	cpuLevels.ForEach(t, func(t *testing.T) {
		r := mrand.New(mrand.NewPCG(3, 4))
		b := make([]byte, c1Bytes)
		for it := range iters + 5 {
			switch it {
			case 0:
				clear(b)
			case 1:
				for i := range b {
					b[i] = 0xff
				}
			case 2:
				for j := range n {
					for w := range 6 {
						binary.LittleEndian.PutUint32(b[24*j+4*w:], uint32(j*w)*0x9e3779b9|uint32(j&1)<<31)
					}
				}
			case 3, 4:
				nearQ(b, r)
			default:
				rand.Read(b)
			}
			var got [256]uint16
			c1FromBytes(&got, b)
			if want := bigModC1(b); got != want {
				t.Fatalf("C1 differs from the math/big model on %x...", b[:48])
			}
		}
	})
	for x := uint64(0); x < 1<<20; x += 997 {
		for _, v := range []uint32{uint32(x), ^uint32(x), uint32(x * 0x9e3779b9)} {
			if barrett32(v) != v%q {
				t.Fatalf("barrett32(%d) = %d, want %d", v, barrett32(v), v%q)
			}
		}
	}
}

// reverse returns b's bytes in reverse order (little- to big-endian).
func reverse(b []byte) []byte {
	out := make([]byte, len(b))
	for i, c := range b {
		out[len(b)-1-i] = c
	}
	return out
}

// TestB0BigModel checks B0 against math/big on random bytes and the edges.
func TestB0BigModel(t *testing.T) {
	iters := 300
	if testing.Short() {
		iters = 30
	}
	b := make([]byte, b0Bytes)
	for it := range iters + 3 {
		switch it {
		case 0:
			clear(b)
		case 1:
			for i := range b {
				b[i] = 0xff
			}
		case 2:
			clear(b)
			b[b0Bytes-1] = 0x80
		default:
			rand.Read(b)
		}
		var got [256]uint16
		b0FromBytes(&got, b)
		if want := bigModB0(b); got != want {
			t.Fatalf("B0 differs from the math/big model on %x...", b[:48])
		}
	}
}

// TestDiv2by1 checks the constant-time division against math/bits.
func TestDiv2by1(t *testing.T) {
	var buf [16]byte
	for range 100000 {
		rand.Read(buf[:])
		u1 := binary.LittleEndian.Uint64(buf[:]) % b0DN
		u0 := binary.LittleEndian.Uint64(buf[8:])
		gq, gr := div2by1(u1, u0, b0DN, b0V)
		wq, wr := divBits(u1, u0, b0DN)
		if gq != wq || gr != wr {
			t.Fatalf("div2by1(%#x, %#x) = %#x, %#x; want %#x, %#x", u1, u0, gq, gr, wq, wr)
		}
		r := u0 >> 1
		qq, rr := divQ(r)
		if qq != r/q || rr != r%q {
			t.Fatalf("divQ(%d) = %d, %d", r, qq, rr)
		}
	}
}

// TestSamplerRange checks that every sampler's output is below q.
func TestSamplerRange(t *testing.T) {
	for _, s := range allSamplers {
		for _, seed := range randomSeeds(t, 20) {
			var out [256]uint16
			s.Sample(&out, &seed)
			for i, c := range out {
				if c >= q {
					t.Fatalf("%v: coefficient %d = %d", s, i, c)
				}
			}
		}
	}
}

func TestParseSampler(t *testing.T) {
	for _, s := range Samplers() {
		got, err := ParseSampler(s.String())
		if err != nil || got != s {
			t.Errorf("ParseSampler(%q) = %v, %v", s, got, err)
		}
	}
	for _, name := range []string{"A0", "a0"} {
		if s, err := ParseSampler(name); err == nil || !strings.Contains(err.Error(), "variable time") {
			t.Errorf("ParseSampler(%q) = %v, %v", name, s, err)
		}
	}
	if s, err := ParseSampler("C0"); err != nil || s != C1 {
		t.Errorf("ParseSampler(C0) = %v, %v", s, err)
	}
	if _, err := ParseSampler("D7"); err == nil {
		t.Error("ParseSampler(D7) succeeded")
	}
	if a0VariableTime.ConstantTime() || !A1.ConstantTime() || !B0.ConstantTime() || !C1.ConstantTime() {
		t.Error("ConstantTime is wrong")
	}
}

func divBits(u1, u0, d uint64) (uint64, uint64) {
	return bits.Div64(u1, u0, d)
}
