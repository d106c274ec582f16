package frodo_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"flag"
	"fmt"
	"strings"
	"testing"

	"github.com/pqkem/pqkem/frodo"
	"github.com/pqkem/pqkem/frodo/frodotest"
	"github.com/pqkem/pqkem/internal/cpuid"
	"github.com/pqkem/pqkem/internal/nistdrbg"
	"github.com/pqkem/pqkem/internal/vectors"
)

// katFile is the vector file of a parameter set, relative to the vector
// directory: FrodoKEM/ or eFrodoKEM/, named by the secret-key size, with
// _shake for SHAKE128.
func katFile(p *frodo.ParameterSet) string {
	dir := "FrodoKEM"
	if p.Ephemeral() {
		dir = "eFrodoKEM"
	}
	suffix := ""
	if strings.HasSuffix(p.Name(), "-SHAKE") {
		suffix = "_shake"
	}
	return fmt.Sprintf("frodo/%s/PQCkemKAT_%d%s.rsp", dir, p.DecapsulationKeyExpandedSize(), suffix)
}

// katCase runs one KAT case through the public API: the DRBG seeded with
// seed drives key generation (one randombytes call of SeedSize bytes)
// and encapsulation (one call of EncapsulationSeedSize bytes).
func katCase(t testing.TB, p *frodo.ParameterSet, seed []byte) (pk, sk, ct, ss []byte) {
	drbg := nistdrbg.New(seed, nil)
	dk, err := p.NewDecapsulationKey(drbg.Bytes(p.SeedSize()))
	if err != nil {
		t.Fatal(err)
	}
	ek := dk.EncapsulationKey()
	ss, ct, err = frodotest.Encapsulate(ek, drbg.Bytes(p.EncapsulationSeedSize()))
	if err != nil {
		t.Fatal(err)
	}
	ss2, err := dk.Decapsulate(ct)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(ss, ss2) {
		t.Fatalf("%s: Decapsulate does not recover the shared key", p.Name())
	}
	return ek.Bytes(), dk.ExpandedBytes(), ct, ss
}

func TestKAT(t *testing.T) {
	var rels []string
	for _, p := range frodo.ParameterSets() {
		rels = append(rels, katFile(p))
	}
	vectors.Require(t, rels...)
	for _, p := range frodo.ParameterSets() {
		t.Run(p.Name(), func(t *testing.T) {
			t.Parallel()
			kvs := vectors.ReadKeyValues(t, katFile(p))
			cases := 0
			var seed, pk, sk, ct []byte
			for _, kv := range kvs {
				if kv.Key == "count" {
					continue
				}
				v := vectors.Hex(t, kv.Value)
				switch kv.Key {
				case "seed":
					seed = v
				case "pk":
					pk = v
				case "sk":
					sk = v
				case "ct":
					ct = v
				case "ss":
					gotPK, gotSK, gotCT, gotSS := katCase(t, p, seed)
					for _, c := range []struct {
						what      string
						got, want []byte
					}{{"pk", gotPK, pk}, {"sk", gotSK, sk}, {"ct", gotCT, ct}, {"ss", gotSS, v}} {
						if !bytes.Equal(c.got, c.want) {
							t.Fatalf("line %d: %s mismatch", kv.Line, c.what)
						}
					}
					// The stored sk decapsulates the stored ct, with A
					// kept whole (katCase generates it row by row).
					dk, err := p.NewDecapsulationKeyExpanded(sk)
					if err != nil {
						t.Fatal(err)
					}
					dk.Precompute()
					if got, err := dk.Decapsulate(ct); err != nil || !bytes.Equal(got, v) {
						t.Fatalf("line %d: decapsulation with the file's sk: %v", kv.Line, err)
					}
					cases++
				default:
					t.Fatalf("line %d: unknown key %q", kv.Line, kv.Key)
				}
			}
			// The repository stores case 0 of each set (TestKATFull100
			// covers all 100); a copy named by $PQKEM_VECTORS may hold more.
			if cases == 0 {
				t.Error("no KAT cases")
			}
			t.Logf("%s: %d KAT cases", p.Name(), cases)
		})
	}
}

var full100 = flag.Bool("frodo.full100", false, "regenerate all 100 KAT cases of all twelve sets, even without the assembly")

// full100Subset are the sets whose 100-case regeneration runs without the
// assembly (purego, or no AVX2), where all twelve would take minutes. With
// the assembly, all twelve take about 25 s on a loaded 2-core machine and
// all run by default (without -short).
var full100Subset = map[string]bool{"FrodoKEM-640-AES": true, "eFrodoKEM-640-SHAKE": true}

// TestKATFull100 regenerates the whole .rsp text of each set, 100 cases, as
// PQCgenKAT_kem prints it, and compares its SHA-256 with
// FULL100-SHA256SUMS, the hashes of the upstream files.
func TestKATFull100(t *testing.T) {
	if testing.Short() && !*full100 {
		t.Skip("the 100-case regeneration runs without -short (or with -frodo.full100)")
	}
	if !*full100 && !cpuid.HasAVX2() {
		t.Logf("no assembly: regenerating only %d of the 12 sets (-frodo.full100 for all)", len(full100Subset))
	}
	katFull100(t, func(p *frodo.ParameterSet) bool {
		return *full100 || cpuid.HasAVX2() || full100Subset[p.Name()]
	})
}

// TestKATFull100AESImpls is TestKATFull100 on each AES row generator but
// the default: FrodoKEM-640-AES, and all six AES sets with -frodo.full100.
func TestKATFull100AESImpls(t *testing.T) {
	if testing.Short() && !*full100 {
		t.Skip("the 100-case regeneration runs without -short (or with -frodo.full100)")
	}
	if len(frodo.AESImpls) < 2 {
		t.Skip("one AES implementation: TestKATFull100 ran it")
	}
	for _, impl := range frodo.AESImpls[1:] {
		t.Run(impl, func(t *testing.T) {
			t.Cleanup(frodo.ForceAES(impl)) // after the parallel subtests
			katFull100(t, func(p *frodo.ParameterSet) bool {
				return p.Name() == "FrodoKEM-640-AES" || *full100 && strings.HasSuffix(p.Name(), "-AES")
			})
		})
	}
}

// TestKATAESImpls is TestKAT on each AES row generator but the default.
func TestKATAESImpls(t *testing.T) {
	if len(frodo.AESImpls) < 2 {
		t.Skip("one AES implementation: TestKAT ran it")
	}
	for _, impl := range frodo.AESImpls[1:] {
		t.Run(impl, func(t *testing.T) {
			t.Cleanup(frodo.ForceAES(impl)) // after the parallel subtests
			TestKAT(t)
		})
	}
}

// katFull100 regenerates the 100 cases of each set for which run is true.
func katFull100(t *testing.T, run func(*frodo.ParameterSet) bool) {
	const sums = "frodo/FULL100-SHA256SUMS"
	want := make(map[string]string)
	for _, line := range vectors.Lines(t, sums) {
		f := strings.Fields(line)
		if len(f) != 2 {
			t.Fatalf("%s: bad line %q", sums, line)
		}
		want["frodo/"+strings.TrimPrefix(f[1], "*")] = f[0]
	}

	// The 100 seeds of every NIST KAT file.
	var entropy [nistdrbg.SeedSize]byte
	for i := range entropy {
		entropy[i] = byte(i)
	}
	seeds := nistdrbg.New(entropy[:], nil)
	var seedList [100][]byte
	for i := range seedList {
		seedList[i] = seeds.Bytes(nistdrbg.SeedSize)
	}

	for _, p := range frodo.ParameterSets() {
		if !run(p) {
			continue
		}
		t.Run(p.Name(), func(t *testing.T) {
			t.Parallel()
			rel := katFile(p)
			w, ok := want[rel]
			if !ok {
				t.Fatalf("%s has no line for %s", sums, rel)
			}
			// The header: the round-3 name, without the "e".
			header := strings.TrimPrefix(p.Name(), "e")
			h := sha256.New()
			fmt.Fprintf(h, "# %s\n\n", header)
			hexUp := func(b []byte) string { return strings.ToUpper(hex.EncodeToString(b)) }
			for i, seed := range seedList {
				pk, sk, ct, ss := katCase(t, p, seed)
				fmt.Fprintf(h, "count = %d\nseed = %s\npk = %s\nsk = %s\nct = %s\nss = %s\n\n",
					i, hexUp(seed), hexUp(pk), hexUp(sk), hexUp(ct), hexUp(ss))
			}
			if got := hex.EncodeToString(h.Sum(nil)); got != w {
				t.Errorf("SHA-256 of the regenerated 100 cases = %s, want %s", got, w)
			}
		})
	}
}
