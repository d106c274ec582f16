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

// katVector is one case of a KAT file.
type katVector struct {
	line                 int // of its ss
	seed, pk, sk, ct, ss []byte
}

// readKAT returns the cases of p's KAT file: case 0 in the repository, more
// in a copy named by $PQKEM_VECTORS that holds them.
func readKAT(t testing.TB, p *frodo.ParameterSet) []katVector {
	var out []katVector
	var v katVector
	for _, kv := range vectors.ReadKeyValues(t, katFile(p)) {
		if kv.Key == "count" {
			continue
		}
		b := vectors.Hex(t, kv.Value)
		switch kv.Key {
		case "seed":
			v.seed = b
		case "pk":
			v.pk = b
		case "sk":
			v.sk = b
		case "ct":
			v.ct = b
		case "ss":
			v.ss, v.line = b, kv.Line
			out = append(out, v)
		default:
			t.Fatalf("line %d: unknown key %q", kv.Line, kv.Key)
		}
	}
	if len(out) == 0 {
		t.Fatalf("%s: no KAT cases", katFile(p))
	}
	return out
}

// checkKAT regenerates the case v through the public API (katCase) and
// compares it with the file, checks that the file's sk decapsulates its ct
// with A kept whole (katCase generates it row by row), and returns what
// katCase gave.
func checkKAT(t testing.TB, p *frodo.ParameterSet, v katVector) (pk, sk, ct, ss []byte) {
	gotPK, gotSK, gotCT, gotSS := katCase(t, p, v.seed)
	for _, c := range []struct {
		what      string
		got, want []byte
	}{{"pk", gotPK, v.pk}, {"sk", gotSK, v.sk}, {"ct", gotCT, v.ct}, {"ss", gotSS, v.ss}} {
		if !bytes.Equal(c.got, c.want) {
			t.Fatalf("line %d: %s mismatch", v.line, c.what)
		}
	}
	dk, err := p.NewDecapsulationKeyExpanded(v.sk)
	if err != nil {
		t.Fatal(err)
	}
	dk.Precompute()
	if got, err := dk.Decapsulate(v.ct); err != nil || !bytes.Equal(got, v.ss) {
		t.Fatalf("line %d: decapsulation with the file's sk: %v", v.line, err)
	}
	return gotPK, gotSK, gotCT, gotSS
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
			// The repository stores case 0 of each set (TestKATFull100
			// covers all 100); a copy named by $PQKEM_VECTORS may hold more.
			cases := readKAT(t, p)
			for _, v := range cases {
				checkKAT(t, p, v)
			}
			t.Logf("%s: %d KAT cases", p.Name(), len(cases))
		})
	}
}

// katLevelCases is the number of cases of the NIST procedure TestKATLevels
// runs per set and level (1 under the race detector).
const katLevelCases = 2

// TestKATLevels runs the first katLevelCases cases of the NIST procedure
// (the seeds of TestKATFull100) of every set at every level this machine
// runs, highest first: case 0 against the stored vector (checkKAT), and
// every case's pk, sk, ct and ss, and the implicit-rejection key of a
// tampered ct with A kept whole (Precompute), against the highest level's,
// whose 100 cases TestKATFull100 checks against the upstream files'
// hashes. The keys come from fixed seeds: frodo_test.go's round trips at
// the default level draw theirs at random.
func TestKATLevels(t *testing.T) {
	sets, cases := frodo.ParameterSets(), katLevelCases
	if raceEnabled {
		// The generic path is slow under -race.
		sets, cases = []*frodo.ParameterSet{frodo.FrodoKEM640AES(), frodo.EFrodoKEM640SHAKE()}, 1
	}
	var rels []string
	for _, p := range sets {
		rels = append(rels, katFile(p))
	}
	vectors.Require(t, rels...)
	seeds := nistSeeds()[:cases]
	first := make([][]byte, len(sets))
	frodo.ForEachLevel(t, func(t *testing.T) {
		for i, p := range sets {
			t.Run(p.Name(), func(t *testing.T) {
				t.Parallel()
				var transcript []byte
				for c, seed := range seeds {
					var pk, sk, ct, ss []byte
					if c == 0 {
						v := readKAT(t, p)[0]
						if !bytes.Equal(v.seed, seed) {
							t.Fatal("case 0's seed is not the NIST procedure's first")
						}
						pk, sk, ct, ss = checkKAT(t, p, v)
					} else {
						pk, sk, ct, ss = katCase(t, p, seed)
					}
					dk, err := p.NewDecapsulationKeyExpanded(sk)
					if err != nil {
						t.Fatal(err)
					}
					dk.Precompute()
					bad := bytes.Clone(ct)
					bad[len(bad)/2] ^= 1
					rej, err := dk.Decapsulate(bad)
					if err != nil || bytes.Equal(rej, ss) {
						t.Fatalf("case %d: a tampered ct decapsulates to %x, %v", c, rej, err)
					}
					transcript = append(append(append(append(append(transcript, pk...), sk...), ct...), ss...), rej...)
				}
				if first[i] == nil {
					first[i] = transcript
				} else if !bytes.Equal(transcript, first[i]) {
					t.Errorf("cases 0 to %d differ from the highest level's", cases-1)
				}
			})
		}
	})
}

// nistSeeds returns the 100 seeds of every NIST KAT file: those of the DRBG
// seeded with the bytes 0, 1, ..., 47.
func nistSeeds() [][]byte {
	var entropy [nistdrbg.SeedSize]byte
	for i := range entropy {
		entropy[i] = byte(i)
	}
	drbg := nistdrbg.New(entropy[:], nil)
	seeds := make([][]byte, 100)
	for i := range seeds {
		seeds[i] = drbg.Bytes(nistdrbg.SeedSize)
	}
	return seeds
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

// TestKATFull100AESImpls is TestKATFull100 on each assembly AES row
// generator but the default: FrodoKEM-640-AES, and all six AES sets on
// crypto/aes too with -frodo.full100 (without it, TestKATAESImpls runs
// crypto/aes's rows on case 0 of each AES set).
func TestKATFull100AESImpls(t *testing.T) {
	if testing.Short() && !*full100 {
		t.Skip("the 100-case regeneration runs without -short (or with -frodo.full100)")
	}
	if len(frodo.AESImpls) < 2 {
		t.Skip("one AES implementation: TestKATFull100 ran it")
	}
	for _, impl := range frodo.AESImpls[1:] {
		if impl == "crypto/aes" && !*full100 {
			continue
		}
		t.Run(impl, func(t *testing.T) {
			t.Cleanup(frodo.ForceAES(impl)) // after the parallel subtests
			katFull100(t, func(p *frodo.ParameterSet) bool {
				return p.Name() == "FrodoKEM-640-AES" || *full100 && strings.HasSuffix(p.Name(), "-AES")
			})
		})
	}
}

// TestKATAESImpls is TestKAT of the AES sets on each AES row generator but
// the default, crypto/aes's included.
func TestKATAESImpls(t *testing.T) {
	if len(frodo.AESImpls) < 2 {
		t.Skipf("one AES row generator (%s): TestKAT ran it", frodo.AESImpls[0])
	}
	for _, impl := range frodo.AESImpls[1:] {
		t.Run(impl, func(t *testing.T) {
			t.Cleanup(frodo.ForceAES(impl)) // after the parallel subtests
			for _, p := range frodo.ParameterSets() {
				if !strings.HasSuffix(p.Name(), "-AES") {
					continue
				}
				t.Run(p.Name(), func(t *testing.T) {
					t.Parallel()
					for _, v := range readKAT(t, p) {
						checkKAT(t, p, v)
					}
				})
			}
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

	seedList := nistSeeds()

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
