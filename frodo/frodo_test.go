package frodo_test

import (
	"bytes"
	"crypto/rand"
	"crypto/sha3"
	"fmt"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/cloudflare/circl/kem/frodo/frodo640shake"
	"github.com/pqkem/pqkem/frodo"
	"github.com/pqkem/pqkem/frodo/frodotest"
	"github.com/pqkem/pqkem/internal/cpuid"
)

func randomBytes(n int) []byte {
	b := make([]byte, n)
	rand.Read(b)
	return b
}

func mustKey(t testing.TB, p *frodo.ParameterSet, seed []byte) *frodo.DecapsulationKey {
	t.Helper()
	dk, err := p.NewDecapsulationKey(seed)
	if err != nil {
		t.Fatal(err)
	}
	return dk
}

func TestSizes(t *testing.T) {
	// pk / sk / ct / ss, from the KAT README and the specification.
	want := map[string][4]int{
		"FrodoKEM-640":   {9616, 19888, 9752, 16},
		"FrodoKEM-976":   {15632, 31296, 15792, 24},
		"FrodoKEM-1344":  {21520, 43088, 21696, 32},
		"eFrodoKEM-640":  {9616, 19888, 9720, 16},
		"eFrodoKEM-976":  {15632, 31296, 15744, 24},
		"eFrodoKEM-1344": {21520, 43088, 21632, 32},
	}
	seeds := map[string][2]int{ // key seed, encapsulation seed
		"FrodoKEM-640": {64, 48}, "FrodoKEM-976": {88, 72}, "FrodoKEM-1344": {112, 96},
		"eFrodoKEM-640": {48, 16}, "eFrodoKEM-976": {64, 24}, "eFrodoKEM-1344": {80, 32},
	}
	sets := frodo.ParameterSets()
	if len(sets) != 12 {
		t.Fatalf("%d parameter sets, want 12", len(sets))
	}
	names := map[string]bool{}
	for _, p := range sets {
		names[p.Name()] = true
		level := p.Name()[:strings.LastIndex(p.Name(), "-")]
		w, s := want[level], seeds[level]
		got := [4]int{p.EncapsulationKeySize(), p.DecapsulationKeyExpandedSize(), p.CiphertextSize(), p.SharedKeySize()}
		if got != w {
			t.Errorf("%s: sizes %v, want %v", p.Name(), got, w)
		}
		if p.SeedSize() != s[0] || p.EncapsulationSeedSize() != s[1] {
			t.Errorf("%s: seed sizes %d, %d, want %v", p.Name(), p.SeedSize(), p.EncapsulationSeedSize(), s)
		}
		if p.Ephemeral() != strings.HasPrefix(p.Name(), "e") {
			t.Errorf("%s: Ephemeral() = %v", p.Name(), p.Ephemeral())
		}
	}
	if len(names) != 12 {
		t.Errorf("parameter set names are not distinct: %v", names)
	}
}

func TestRoundTrip(t *testing.T) {
	for _, p := range frodo.ParameterSets() {
		t.Run(p.Name(), func(t *testing.T) {
			dk, err := p.GenerateKey()
			if err != nil {
				t.Fatal(err)
			}
			if dk.ParameterSet() != p || dk.EncapsulationKey().ParameterSet() != p {
				t.Error("keys do not know their parameter set")
			}
			skBytes, pkBytes := dk.ExpandedBytes(), dk.EncapsulationKey().Bytes()
			if len(skBytes) != p.DecapsulationKeyExpandedSize() || len(pkBytes) != p.EncapsulationKeySize() {
				t.Fatal("wrong key lengths")
			}
			if !bytes.Equal(skBytes[p.SharedKeySize():p.SharedKeySize()+len(pkBytes)], pkBytes) {
				t.Error("sk does not hold pk")
			}
			ek, err := p.NewEncapsulationKey(pkBytes)
			if err != nil {
				t.Fatal(err)
			}
			dk2, err := p.NewDecapsulationKeyExpanded(skBytes)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(dk2.ExpandedBytes(), skBytes) || !bytes.Equal(ek.Bytes(), pkBytes) {
				t.Error("encodings do not round-trip")
			}
			// The public key of a key parsed from its sk is the pk the sk
			// holds, through each of its accessors.
			pkAppended, _ := dk2.EncapsulationKey().AppendBinary(nil)
			for what, b := range map[string][]byte{
				"EncapsulationKey().Bytes()":        dk2.EncapsulationKey().Bytes(),
				"Encapsulator().Bytes()":            dk2.Encapsulator().Bytes(),
				"EncapsulationKey().AppendBinary()": pkAppended,
			} {
				if !bytes.Equal(b, pkBytes) {
					t.Errorf("%s of a key parsed from its sk is %d bytes, not the original %d-byte pk", what, len(b), len(pkBytes))
				}
			}
			// The seed round-trips; a key parsed from its sk has none.
			seed := dk.Bytes()
			if len(seed) != p.SeedSize() {
				t.Fatalf("len(Bytes()) = %d, want SeedSize %d", len(seed), p.SeedSize())
			}
			dk3 := mustKey(t, p, seed)
			if !bytes.Equal(dk3.Bytes(), seed) || !bytes.Equal(dk3.ExpandedBytes(), skBytes) {
				t.Error("NewDecapsulationKey(dk.Bytes()) is not the same key")
			}
			if b := dk2.Bytes(); b != nil {
				t.Errorf("Bytes() of a key parsed from its sk is %d bytes, want nil", len(b))
			}
			for _, e := range []interface {
				Encapsulate() ([]byte, []byte)
			}{ek, dk.EncapsulationKey(), dk.Encapsulator()} {
				K, c := e.Encapsulate()
				if len(K) != p.SharedKeySize() || len(c) != p.CiphertextSize() {
					t.Fatal("wrong output lengths")
				}
				for _, d := range []*frodo.DecapsulationKey{dk, dk2} {
					K2, err := d.Decapsulate(c)
					if err != nil || !bytes.Equal(K, K2) {
						t.Fatalf("Decapsulate does not recover the key: %v", err)
					}
				}
			}
			// Two encapsulations differ.
			K1, c1 := ek.Encapsulate()
			K2, c2 := ek.Encapsulate()
			if bytes.Equal(K1, K2) || bytes.Equal(c1, c2) {
				t.Error("two encapsulations are equal")
			}
		})
	}
}

// rejectionKey is the implicit-rejection key: SHAKE(ct || s), with the
// set's SHAKE.
func rejectionKey(p *frodo.ParameterSet, sk, ct []byte) []byte {
	var h *sha3.SHAKE
	if strings.Contains(p.Name(), "-640-") {
		h = sha3.NewSHAKE128()
	} else {
		h = sha3.NewSHAKE256()
	}
	h.Write(ct)
	h.Write(sk[:p.SharedKeySize()])
	out := make([]byte, p.SharedKeySize())
	h.Read(out)
	return out
}

func TestImplicitRejection(t *testing.T) {
	for _, p := range frodo.ParameterSets() {
		t.Run(p.Name(), func(t *testing.T) {
			dk := mustKey(t, p, randomBytes(p.SeedSize()))
			K, c := dk.EncapsulationKey().Encapsulate()
			c1 := p.EncapsulationKeySize() - 16 // the size of pack(B'): n*n̄*D/8, as pack(B)
			c2 := c1 + 2*64*(p.CiphertextSize()-c1-(p.EncapsulationSeedSize()-p.SharedKeySize()))/128
			positions := []int{0, 1, c1 / 2, c1 - 1, c1, c2 - 1, len(c) - 1}
			if !p.Ephemeral() {
				positions = append(positions, c2, c2+1) // the salt
			}
			for _, pos := range positions {
				for _, bit := range []byte{0x01, 0x80} {
					bad := bytes.Clone(c)
					bad[pos] ^= bit
					got, err := dk.Decapsulate(bad)
					if err != nil {
						t.Fatalf("byte %d: %v", pos, err)
					}
					if bytes.Equal(got, K) {
						t.Fatalf("byte %d: a tampered ciphertext gave the shared key", pos)
					}
					if want := rejectionKey(p, dk.ExpandedBytes(), bad); !bytes.Equal(got, want) {
						t.Fatalf("byte %d: got %x, want the implicit-rejection key SHAKE(ct || s) %x", pos, got, want)
					}
				}
			}
			// The implicit-rejection key of random ciphertexts too.
			bad := randomBytes(p.CiphertextSize())
			if got, _ := dk.Decapsulate(bad); !bytes.Equal(got, rejectionKey(p, dk.ExpandedBytes(), bad)) {
				t.Fatal("a random ciphertext does not give SHAKE(ct || s)")
			}
		})
	}
}

func TestWrongLengths(t *testing.T) {
	for _, p := range frodo.ParameterSets() {
		t.Run(p.Name(), func(t *testing.T) {
			check := func(what string, n, want int, err error) {
				t.Helper()
				if err == nil {
					t.Errorf("%s with %d bytes: no error", what, n)
					return
				}
				msg := err.Error()
				if !strings.HasPrefix(msg, "frodo: ") && !strings.HasPrefix(msg, "frodotest: ") {
					t.Errorf("%s: error %q has no package prefix", what, msg)
				}
				for _, s := range []string{p.Name(), strconv.Itoa(n), "want " + strconv.Itoa(want)} {
					if !strings.Contains(msg, s) {
						t.Errorf("%s: error %q does not say %q", what, msg, s)
					}
				}
			}
			lengths := func(size int) []int { return []int{0, 1, size - 1, size + 1, 2 * size} }
			for _, n := range lengths(p.SeedSize()) {
				_, err := p.NewDecapsulationKey(make([]byte, n))
				check("NewDecapsulationKey", n, p.SeedSize(), err)
			}
			for _, n := range lengths(p.EncapsulationKeySize()) {
				_, err := p.NewEncapsulationKey(make([]byte, n))
				check("NewEncapsulationKey", n, p.EncapsulationKeySize(), err)
			}
			for _, n := range lengths(p.DecapsulationKeyExpandedSize()) {
				_, err := p.NewDecapsulationKeyExpanded(make([]byte, n))
				check("NewDecapsulationKeyExpanded", n, p.DecapsulationKeyExpandedSize(), err)
			}
			dk := mustKey(t, p, make([]byte, p.SeedSize()))
			for _, n := range lengths(p.CiphertextSize()) {
				_, err := dk.Decapsulate(make([]byte, n))
				check("Decapsulate", n, p.CiphertextSize(), err)
			}
			for _, n := range lengths(p.EncapsulationSeedSize()) {
				_, _, err := frodotest.Encapsulate(dk.EncapsulationKey(), make([]byte, n))
				check("frodotest.Encapsulate", n, p.EncapsulationSeedSize(), err)
			}
			// A ciphertext of the other variant's length is rejected.
			for _, q := range frodo.ParameterSets() {
				if q.CiphertextSize() != p.CiphertextSize() {
					if _, err := dk.Decapsulate(make([]byte, q.CiphertextSize())); err == nil {
						t.Errorf("Decapsulate took a %s ciphertext", q.Name())
					}
				}
			}
		})
	}
}

// NewDecapsulationKey checks that pkh is the hash of pk.
func TestDecapsulationKeyHashCheck(t *testing.T) {
	for _, p := range frodo.ParameterSets() {
		sk := mustKey(t, p, randomBytes(p.SeedSize())).ExpandedBytes()
		for _, pos := range []int{
			len(sk) - 1, len(sk) - p.SharedKeySize(), // pkh
			p.SharedKeySize(), p.SharedKeySize() + 100, p.SharedKeySize() + p.EncapsulationKeySize() - 1, // pk
		} {
			bad := bytes.Clone(sk)
			bad[pos] ^= 4
			if _, err := p.NewDecapsulationKeyExpanded(bad); err == nil || !strings.Contains(err.Error(), "pkh") {
				t.Errorf("%s: sk with byte %d changed: error %v, want a pkh mismatch", p.Name(), pos, err)
			}
		}
		// s and S^T are not covered by pkh: a changed s is accepted.
		bad := bytes.Clone(sk)
		bad[0] ^= 1
		if _, err := p.NewDecapsulationKeyExpanded(bad); err != nil {
			t.Errorf("%s: %v", p.Name(), err)
		}
	}
}

// eFrodoKEM-640-SHAKE is CIRCL's frodo640shake: the same keys, ciphertexts
// and shared keys from the same seeds, 100 of them (1,000 with
// -frodo.stress and the assembly, 10 under the race detector), in two
// parallel halves. Every tenth seed also compares the implicit-rejection
// key of a tampered ciphertext.
func TestCIRCL(t *testing.T) {
	t.Parallel()
	n := 100
	switch {
	case raceEnabled:
		n = 10 // CIRCL under the race detector takes about 1 s a seed
	case *stress && cpuid.HasAVX2():
		n = 1000 // not in the generic build (purego), where the assembly's run has checked 1,000
	}
	p := frodo.EFrodoKEM640SHAKE()
	s := frodo640shake.Scheme()
	if s.SeedSize() != p.SeedSize() || s.EncapsulationSeedSize() != p.EncapsulationSeedSize() {
		t.Fatal("seed sizes differ from CIRCL's")
	}
	for half := range 2 {
		t.Run(strconv.Itoa(half), func(t *testing.T) {
			t.Parallel()
			for i := half; i < n; i += 2 {
				seed, m := randomBytes(p.SeedSize()), randomBytes(p.EncapsulationSeedSize())
				dk := mustKey(t, p, seed)
				cpk, csk := s.DeriveKeyPair(seed)
				cpkBytes, _ := cpk.MarshalBinary()
				cskBytes, _ := csk.MarshalBinary()
				if !bytes.Equal(dk.EncapsulationKey().Bytes(), cpkBytes) || !bytes.Equal(dk.ExpandedBytes(), cskBytes) {
					t.Fatalf("seed %x: keys differ from CIRCL's", seed)
				}
				ss, ct, err := frodotest.Encapsulate(dk.EncapsulationKey(), m)
				if err != nil {
					t.Fatal(err)
				}
				cct, css, err := s.EncapsulateDeterministically(cpk, m)
				if err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(ct, cct) || !bytes.Equal(ss, css) {
					t.Fatalf("seed %x, mu %x: encapsulation differs from CIRCL's", seed, m)
				}
				if got, err := dk.Decapsulate(cct); err != nil || !bytes.Equal(got, css) {
					t.Fatalf("seed %x: CIRCL's ciphertext does not decapsulate: %v", seed, err)
				}
				if i%10 == 0 {
					bad := bytes.Clone(ct)
					bad[i%len(bad)] ^= 1 << (i % 8)
					got, _ := dk.Decapsulate(bad)
					cgot, _ := s.Decapsulate(csk, bad)
					if !bytes.Equal(got, cgot) || bytes.Equal(got, ss) {
						t.Fatalf("seed %x: implicit rejection differs from CIRCL's", seed)
					}
				}
			}
		})
	}
}

// Heap use per operation beyond the returned key, ciphertext and shared
// key stays under 64 KiB at every level: the matrix A is never stored.
func TestAllocations(t *testing.T) {
	if testing.CoverMode() != "" || raceEnabled {
		t.Skip("allocation counts are off under -cover and -race")
	}
	const limit = 64 << 10
	for _, p := range frodo.ParameterSets() {
		t.Run(p.Name(), func(t *testing.T) {
			dk := mustKey(t, p, randomBytes(p.SeedSize()))
			ek := dk.EncapsulationKey()
			_, ct := ek.Encapsulate()
			seed := randomBytes(p.SeedSize())
			// The key itself: sk, S^T and B (2 bytes an entry each).
			keySize := p.DecapsulationKeyExpandedSize() + 2*2*8*(p.EncapsulationKeySize()-16)*8/(8*int(logq(p)))
			for _, c := range []struct {
				what   string
				own    int
				allocs float64
				f      func()
			}{
				{"NewDecapsulationKey", keySize, 8, func() { p.NewDecapsulationKey(seed) }},
				{"Encapsulate", p.CiphertextSize() + p.SharedKeySize(), 2, func() { ek.Encapsulate() }},
				{"Decapsulate", p.SharedKeySize(), 1, func() { dk.Decapsulate(ct) }},
			} {
				if !strings.Contains(p.Name(), "SHAKE") {
					c.allocs++ // crypto/aes's blocks, without AES-NI
				}
				allocs := testing.AllocsPerRun(3, c.f)
				bytes := heapPerOp(3, c.f)
				t.Logf("%s: %.0f allocations, %d bytes per op (%d of them the result)", c.what, allocs, bytes, c.own)
				if allocs > c.allocs {
					t.Errorf("%s: %.0f allocations per op, want at most %.0f", c.what, allocs, c.allocs)
				}
				if bytes-c.own > limit {
					t.Errorf("%s: %d bytes per op beyond the %d-byte result, want under %d", c.what, bytes-c.own, c.own, limit)
				}
			}
		})
	}
}

func logq(p *frodo.ParameterSet) int {
	if strings.Contains(p.Name(), "-640-") {
		return 15
	}
	return 16
}

// heapPerOp returns the bytes f allocates per run, on average over runs,
// after one run that fills the pools. It forces no garbage collection:
// two in a row would empty the sync.Pool that the operations take their
// scratch space from.
func heapPerOp(runs int, f func()) int {
	f()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for range runs {
		f()
	}
	runtime.ReadMemStats(&after)
	return int(after.TotalAlloc-before.TotalAlloc) / runs
}

// One key serves concurrent encapsulations and decapsulations (run with
// -race).
func TestConcurrent(t *testing.T) {
	for _, p := range []*frodo.ParameterSet{frodo.FrodoKEM640AES(), frodo.EFrodoKEM640SHAKE()} {
		dk := mustKey(t, p, randomBytes(p.SeedSize()))
		errs := make(chan error, 4)
		for range 4 {
			go func() {
				for range 3 {
					K, c := dk.EncapsulationKey().Encapsulate()
					K2, err := dk.Decapsulate(c)
					if err == nil && !bytes.Equal(K, K2) {
						err = fmt.Errorf("%s: concurrent round trip failed", p.Name())
					}
					if err != nil {
						errs <- err
						return
					}
				}
				errs <- nil
			}()
		}
		for range 4 {
			if err := <-errs; err != nil {
				t.Fatal(err)
			}
		}
	}
}
