package frodo_test

import (
	"bytes"
	"runtime"
	"sync"
	"testing"

	"github.com/pqkem/pqkem/frodo"
	"github.com/pqkem/pqkem/frodo/frodotest"
)

// A precomputed key (A kept whole) gives the same ciphertexts, shared keys
// and implicit-rejection keys as one that generates A at each operation,
// whether Precompute runs before the operations, on the encapsulation key
// alone, or concurrently with them. TestKAT also decapsulates every stored
// case with a precomputed key.
func TestPrecompute(t *testing.T) {
	sets := frodo.ParameterSets()
	if raceEnabled {
		sets = []*frodo.ParameterSet{frodo.FrodoKEM640AES(), frodo.EFrodoKEM640SHAKE()}
	}
	for _, p := range sets {
		t.Run(p.Name(), func(t *testing.T) {
			seed, m := randomBytes(p.SeedSize()), randomBytes(p.EncapsulationSeedSize())
			type result struct{ ct, ss, rej []byte }
			run := func(dk *frodo.DecapsulationKey, ek *frodo.EncapsulationKey) result {
				ss, ct, err := frodotest.Encapsulate(ek, m)
				if err != nil {
					t.Fatal(err)
				}
				if got, _ := dk.Decapsulate(ct); !bytes.Equal(got, ss) {
					t.Fatal("round trip failed")
				}
				bad := bytes.Clone(ct)
				bad[len(bad)/2] ^= 1
				rej, _ := dk.Decapsulate(bad)
				return result{ct, ss, rej}
			}
			same := func(what string, a, b result) {
				t.Helper()
				if !bytes.Equal(a.ct, b.ct) || !bytes.Equal(a.ss, b.ss) || !bytes.Equal(a.rej, b.rej) {
					t.Fatalf("%s: the results differ from a key that is not precomputed", what)
				}
			}

			dk := mustKey(t, p, seed)
			want := run(dk, dk.EncapsulationKey())

			pre := mustKey(t, p, seed)
			pre.Precompute()
			pre.Precompute() // a second call keeps the first's A
			same("Precompute", want, run(pre, pre.EncapsulationKey()))

			// The encapsulation key's Precompute serves the decapsulation
			// key it belongs to, and a parsed key's its own operations.
			dk2 := mustKey(t, p, seed)
			dk2.EncapsulationKey().Precompute()
			same("EncapsulationKey.Precompute", want, run(dk2, dk2.EncapsulationKey()))
			ek, err := p.NewEncapsulationKey(dk.EncapsulationKey().Bytes())
			if err != nil {
				t.Fatal(err)
			}
			ek.Precompute()
			same("a parsed key's Precompute", want, run(dk, ek))

			// Precompute racing with operations.
			dk3 := mustKey(t, p, seed)
			var wg sync.WaitGroup
			results := make([]result, 3)
			for i := range results {
				wg.Go(func() {
					if i == 1 {
						dk3.Precompute()
					}
					results[i] = run(dk3, dk3.EncapsulationKey())
				})
			}
			wg.Wait()
			for _, r := range results {
				same("concurrent Precompute", want, r)
			}
		})
	}
}

// Concurrent first calls of Precompute make A once: the others wait for
// it instead of each making a copy (n² words, 800 KiB at 640).
func TestPrecomputeOnce(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector's allocations blur the count")
	}
	p := frodo.FrodoKEM640AES()
	dk := mustKey(t, p, randomBytes(p.SeedSize()))
	const goroutines = 8
	matrix := uint64(2 * 640 * 640)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for range goroutines {
		wg.Go(func() {
			<-start
			dk.Precompute()
		})
	}
	close(start)
	wg.Wait()
	runtime.ReadMemStats(&after)
	if got := after.TotalAlloc - before.TotalAlloc; got >= 2*matrix {
		t.Errorf("%d concurrent Precompute calls allocated %d bytes, want one matrix (%d bytes)", goroutines, got, matrix)
	}
}
