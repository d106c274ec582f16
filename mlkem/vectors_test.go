package mlkem_test

// Known-answer tests against the vector collection described in
// internal/vectors/testdata/mlkem/README.md: NIST ACVP, C2SP CCTV, C2SP
// Wycheproof and the accumulated (hash-of-everything) tests. They use only
// the public API (mlkem and mlkemtest), and every test runs at all three
// levels through the level adapter below, so there is one copy of each test.
//
// Every test counts the cases it ran and compares the tally with the counts
// the READMEs give, so that a file that reads as empty, or a filter that
// drops cases, cannot pass. A missing vector file fails the test; see
// package internal/vectors.

import (
	"bytes"
	"crypto/sha3"
	"encoding/hex"
	"flag"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/pqkem/pqkem/internal/vectors"
	"github.com/pqkem/pqkem/mlkem"
)

var katMillion = flag.Bool("mlkem.million", false, "run the accumulated ML-KEM vector tests for 1,000,000 iterations (slow: minutes)")

// katLevel is one ML-KEM parameter set as the vector tests see it: the
// shared adapter of levels_test.go, plus the case counts that differ
// between levels (the wycheproof and cctv READMEs).
type katLevel struct {
	*kemLevel
	bits string // "768", as in the Wycheproof file names

	wantWycheproofEncaps map[string]int
	wantModulusLines     int
}

var katLevels = func() []*katLevel {
	var levels []*katLevel
	for i, x := range []struct {
		bits              string
		reduced, overflow int // Wycheproof encaps: "Public key not reduced", CCTV/modulus
		modulus           int
	}{{"512", 100, 8, 775}, {"768", 100, 12, 780}, {"1024", 100, 16, 1040}} {
		l := &katLevel{kemLevel: kemLevels[i], bits: x.bits}
		if l.name != "ML-KEM-"+x.bits {
			panic("katLevels: kemLevels is not in the order 512, 768, 1024")
		}
		l.wantWycheproofEncaps = map[string]int{
			"valid":                    133,
			"invalid: not reduced":     x.reduced,
			"invalid: too long":        10,
			"invalid: too short":       10,
			"invalid: ModulusOverflow": x.overflow,
		}
		l.wantModulusLines = x.modulus
		levels = append(levels, l)
	}
	return levels
}()

func katLevelByName(name string) *katLevel {
	for _, p := range katLevels {
		if p.name == name {
			return p
		}
	}
	return nil
}

func TestKATLevelSizes(t *testing.T) {
	// FIPS 203, section 8.
	want := map[string][3]int{"ML-KEM-512": {800, 1632, 768}, "ML-KEM-768": {1184, 2400, 1088}, "ML-KEM-1024": {1568, 3168, 1568}}
	for _, p := range katLevels {
		if got := [3]int{p.ekSize, p.dkSize, p.ctSize}; got != want[p.name] {
			t.Errorf("%s: ek, dk, c sizes = %v, want %v", p.name, got, want[p.name])
		}
	}
}

// katHex decodes a hex string from a vector file.
func katHex(t testing.TB, s string) []byte {
	t.Helper()
	return vectors.Hex(t, s)
}

// katShort formats b for an error message.
func katShort(b []byte) string {
	if len(b) > 24 {
		return fmt.Sprintf("%x...(%d bytes)", b[:24], len(b))
	}
	return fmt.Sprintf("%x", b)
}

// katCheck reports whether got == want, and reports the difference otherwise.
func katCheck(t testing.TB, ctx, what string, got, want []byte) bool {
	t.Helper()
	if !bytes.Equal(got, want) {
		i := 0
		for i < len(got) && i < len(want) && got[i] == want[i] {
			i++
		}
		t.Errorf("%s: %s mismatch (first difference at byte %d)\n got  %s\n want %s", ctx, what, i, katShort(got), katShort(want))
		return false
	}
	return true
}

// katCounts logs the tally of cases run and checks it against the counts
// the vector files' READMEs give.
func katCounts(t testing.TB, got, want map[string]int) {
	t.Helper()
	total := 0
	for _, n := range got {
		total += n
	}
	t.Logf("ran %d cases: %v", total, got)
	if total == 0 {
		t.Errorf("ran no cases")
	}
	if !maps.Equal(got, want) {
		t.Errorf("case counts = %v, want %v", got, want)
	}
}

// ---------------------------------------------------------------------------
// NIST ACVP (testdata/mlkem/acvp)

const (
	acvpKeyGen   = "mlkem/acvp/ML-KEM-keyGen-FIPS203/internalProjection.json"
	acvpEncDec   = "mlkem/acvp/ML-KEM-encapDecap-FIPS203/internalProjection.json"
	acvpEncDecT1 = "mlkem/acvp/ML-KEM-encapDecap-FIPS203-tr1/internalProjection.json"
)

type acvpFile struct {
	VsID       int    `json:"vsId"`
	Algorithm  string `json:"algorithm"`
	Mode       string `json:"mode"`
	Revision   string `json:"revision"`
	IsSample   bool   `json:"isSample"`
	TestGroups []struct {
		TgID         int    `json:"tgId"`
		TestType     string `json:"testType"`
		ParameterSet string `json:"parameterSet"`
		Function     string `json:"function"`
		KeyFormat    string `json:"keyFormat"`
		Tests        []struct {
			TcID       int    `json:"tcId"`
			Deferred   bool   `json:"deferred"`
			Reason     string `json:"reason"`
			TestPassed *bool  `json:"testPassed"`
			D          string `json:"d"`
			Z          string `json:"z"`
			EK         string `json:"ek"`
			DK         string `json:"dk"`
			M          string `json:"m"`
			C          string `json:"c"`
			K          string `json:"k"`
		} `json:"tests"`
	} `json:"testGroups"`
}

// readACVP reads an internalProjection.json file and checks its header and
// that every group names one of the three parameter sets.
func readACVP(t *testing.T, rel, mode, revision string) *acvpFile {
	t.Helper()
	f := new(acvpFile)
	vectors.ReadJSON(t, rel, f)
	if f.Algorithm != "ML-KEM" || f.Mode != mode || f.Revision != revision {
		t.Fatalf("%s: algorithm, mode, revision = %q, %q, %q; want ML-KEM, %q, %q", rel, f.Algorithm, f.Mode, f.Revision, mode, revision)
	}
	for _, g := range f.TestGroups {
		if katLevelByName(g.ParameterSet) == nil {
			t.Errorf("%s: tgId %d has unknown parameterSet %q", rel, g.TgID, g.ParameterSet)
		}
	}
	return f
}

func TestACVPKeyGen(t *testing.T) {
	vectors.Require(t, acvpKeyGen)
	f := readACVP(t, acvpKeyGen, "keyGen", "FIPS203")
	for _, p := range katLevels {
		t.Run(p.name, func(t *testing.T) {
			counts := map[string]int{}
			for _, g := range f.TestGroups {
				if g.ParameterSet != p.name {
					continue
				}
				if g.TestType != "AFT" || g.Function != "" {
					t.Errorf("tgId %d: testType %q, function %q; want AFT and none", g.TgID, g.TestType, g.Function)
				}
				for _, tc := range g.Tests {
					ctx := fmt.Sprintf("tcId %d", tc.TcID)
					seed := append(katHex(t, tc.D), katHex(t, tc.Z)...)
					wantEK, wantDK := katHex(t, tc.EK), katHex(t, tc.DK)
					dk, err := p.newKey(seed)
					if err != nil {
						t.Errorf("%s: NewDecapsulationKey: %v", ctx, err)
						continue
					}
					katCheck(t, ctx, "ek", p.encapsulationKey(dk).Bytes(), wantEK)
					katCheck(t, ctx, "expanded dk", dk.ExpandedBytes(), wantDK)
					katCheck(t, ctx, "seed (Bytes)", dk.Bytes(), seed)
					// The expanded form parses back to the same key.
					if dk2, err := p.newKeyExpanded(wantDK); err != nil {
						t.Errorf("%s: NewDecapsulationKeyExpanded: %v", ctx, err)
					} else {
						katCheck(t, ctx, "ek from expanded dk", p.encapsulationKey(dk2).Bytes(), wantEK)
					}
					counts["keyGen"]++
				}
			}
			katCounts(t, counts, map[string]int{"keyGen": 25})
		})
	}
}

func TestACVPEncapDecap(t *testing.T) {
	for _, rev := range []struct {
		name, file string
		want       map[string]int
	}{
		{"FIPS203", acvpEncDec, map[string]int{
			"encapsulation": 25,
			"decapsulation/expanded/valid decapsulation": 5,
			"decapsulation/expanded/modified ciphertext": 5,
			"decapsulationKeyCheck/true":                 5,
			"decapsulationKeyCheck/false":                5,
			"encapsulationKeyCheck/true":                 5,
			"encapsulationKeyCheck/false":                5,
		}},
		{"FIPS203-tr1", acvpEncDecT1, map[string]int{
			"encapsulation":                              25,
			"decapsulation/seed/valid decapsulation":     5,
			"decapsulation/seed/modified ciphertext":     5,
			"decapsulation/expanded/valid decapsulation": 5,
			"decapsulation/expanded/modified ciphertext": 5,
			"decapsulationKeyCheck/true":                 5,
			"decapsulationKeyCheck/false":                5,
			"encapsulationKeyCheck/true":                 5,
			"encapsulationKeyCheck/false":                5,
		}},
	} {
		t.Run(rev.name, func(t *testing.T) {
			vectors.Require(t, rev.file)
			f := readACVP(t, rev.file, "encapDecap", rev.name)
			for _, p := range katLevels {
				t.Run(p.name, func(t *testing.T) {
					counts := map[string]int{}
					for _, g := range f.TestGroups {
						if g.ParameterSet == p.name {
							for _, tc := range g.Tests {
								ctx := fmt.Sprintf("tgId %d (%s, keyFormat %q) tcId %d", g.TgID, g.Function, g.KeyFormat, tc.TcID)
								if key := acvpEncapDecapCase(t, p, ctx, g.Function, g.KeyFormat, tc.Reason, tc.D, tc.Z, tc.EK, tc.DK, tc.M, tc.C, tc.K, tc.TestPassed); key != "" {
									counts[key]++
								}
							}
						}
					}
					katCounts(t, counts, rev.want)
				})
			}
		})
	}
}

// acvpEncapDecapCase runs one encapDecap case and returns the key it is
// counted under, or "" if the case could not be classified (an error).
func acvpEncapDecapCase(t *testing.T, p *katLevel, ctx, function, keyFormat, reason, d, z, ekHex, dkHex, mHex, cHex, kHex string, testPassed *bool) string {
	t.Helper()
	switch function {
	case "encapsulation":
		wantEK, m, wantC, wantK := katHex(t, ekHex), katHex(t, mHex), katHex(t, cHex), katHex(t, kHex)
		ek, err := p.newEK(wantEK)
		if err != nil {
			t.Errorf("%s: NewEncapsulationKey: %v", ctx, err)
			return ""
		}
		K, c, err := p.encapsulate(ek, m)
		if err != nil {
			t.Errorf("%s: Encapsulate: %v", ctx, err)
			return ""
		}
		katCheck(t, ctx, "c", c, wantC)
		katCheck(t, ctx, "K", K, wantK)
		// internalProjection also gives the matching dk: check the round trip.
		if dkHex != "" {
			dk, err := p.newKeyExpanded(katHex(t, dkHex))
			if err != nil {
				t.Errorf("%s: NewDecapsulationKeyExpanded: %v", ctx, err)
			} else if K2, err := dk.Decapsulate(wantC); err != nil {
				t.Errorf("%s: Decapsulate: %v", ctx, err)
			} else {
				katCheck(t, ctx, "K from Decapsulate", K2, wantK)
			}
		}
		return function

	case "decapsulation":
		c, wantK := katHex(t, cHex), katHex(t, kHex)
		var dk ourDecapsulator
		var err error
		switch keyFormat {
		case "", "expanded":
			keyFormat = "expanded"
			dk, err = p.newKeyExpanded(katHex(t, dkHex))
			if err != nil {
				t.Errorf("%s: NewDecapsulationKeyExpanded: %v", ctx, err)
				return ""
			}
			// tr1 gives the seed for expanded keys too.
			if d != "" && z != "" {
				seed := append(katHex(t, d), katHex(t, z)...)
				if dk2, err := p.newKey(seed); err != nil {
					t.Errorf("%s: NewDecapsulationKey(d||z): %v", ctx, err)
				} else {
					katCheck(t, ctx, "expanded dk derived from d||z", dk2.ExpandedBytes(), katHex(t, dkHex))
				}
			}
		case "seed":
			seed := append(katHex(t, d), katHex(t, z)...)
			dk, err = p.newKey(seed)
			if err != nil {
				t.Errorf("%s: NewDecapsulationKey: %v", ctx, err)
				return ""
			}
			if dkHex == "" || ekHex == "" {
				t.Errorf("%s: seed case without dk and ek", ctx)
			}
			katCheck(t, ctx, "expanded dk derived from d||z", dk.ExpandedBytes(), katHex(t, dkHex))
			katCheck(t, ctx, "ek derived from d||z", p.encapsulationKey(dk).Bytes(), katHex(t, ekHex))
		default:
			t.Errorf("%s: unknown keyFormat", ctx)
			return ""
		}
		// "modified ciphertext" cases expect implicit rejection, not an error.
		K, err := dk.Decapsulate(c)
		if err != nil {
			t.Errorf("%s: Decapsulate: %v", ctx, err)
			return ""
		}
		katCheck(t, ctx, "K", K, wantK)
		return function + "/" + keyFormat + "/" + reason

	case "decapsulationKeyCheck", "encapsulationKeyCheck":
		if testPassed == nil {
			t.Errorf("%s: no testPassed", ctx)
			return ""
		}
		var err error
		if function == "decapsulationKeyCheck" {
			_, err = p.newKeyExpanded(katHex(t, dkHex))
		} else {
			_, err = p.newEK(katHex(t, ekHex))
		}
		if verdict := err == nil; verdict != *testPassed {
			t.Errorf("%s: key accepted = %v (err %v), want %v", ctx, verdict, err, *testPassed)
		}
		return fmt.Sprintf("%s/%v", function, *testPassed)
	}
	t.Errorf("%s: unknown function", ctx)
	return ""
}

// ---------------------------------------------------------------------------
// C2SP Wycheproof (testdata/mlkem/wycheproof)

type wycheproofFile struct {
	Algorithm     string `json:"algorithm"`
	Schema        string `json:"schema"`
	NumberOfTests int    `json:"numberOfTests"`
	Notes         map[string]struct {
		BugType     string `json:"bugType"`
		Description string `json:"description"`
	} `json:"notes"`
	TestGroups []struct {
		Type   string `json:"type"`
		Source struct {
			Name    string `json:"name"`
			Version string `json:"version"`
		} `json:"source"`
		ParameterSet string           `json:"parameterSet"`
		Tests        []wycheproofTest `json:"tests"`
	} `json:"testGroups"`
}

type wycheproofTest struct {
	TcID    int      `json:"tcId"`
	Comment string   `json:"comment"`
	Flags   []string `json:"flags"`
	Result  string   `json:"result"`
	Seed    string   `json:"seed"`
	EK      string   `json:"ek"`
	DK      string   `json:"dk"`
	M       string   `json:"m"`
	C       string   `json:"c"`
	K       string   `json:"K"`
}

// wycheproofKinds are the four file kinds, with the group type and schema
// each must declare, the per-case test, and the expected tally (see
// testdata/mlkem/wycheproof/README.md). want is nil when it differs
// between levels.
var wycheproofKinds = []struct {
	kind, groupType, schema string
	run                     func(t *testing.T, p *katLevel, ctx string, tc *wycheproofTest) string
	want                    map[string]int
}{
	{"test", "MLKEMTest", "mlkem_test_schema.json", wycheproofDecaps, map[string]int{
		"valid":                      153,
		"invalid: seed length":       20,
		"invalid: ciphertext length": 20,
	}},
	{"encaps_test", "MLKEMEncapsTest", "mlkem_encaps_test_schema.json", wycheproofEncaps, nil},
	{"keygen_seed_test", "MLKEMKeyGen", "mlkem_keygen_seed_test_schema.json", wycheproofKeyGen, map[string]int{
		"valid": 100,
	}},
	{"semi_expanded_decaps_test", "MLKEMDecapsValidationTest", "mlkem_semi_expanded_decaps_test_schema.json", wycheproofExpandedDecaps, map[string]int{
		"valid":                      3,
		"invalid: ciphertext length": 2,
		"invalid: dk rejected":       4,
	}},
}

func wycheproofPath(kind string, p *katLevel) string {
	return "mlkem/wycheproof/testvectors_v1/mlkem_" + p.bits + "_" + kind + ".json"
}

func TestWycheproof(t *testing.T) {
	var all []string
	for _, k := range wycheproofKinds {
		for _, p := range katLevels {
			all = append(all, wycheproofPath(k.kind, p))
		}
	}
	vectors.Require(t, all...)
	for _, k := range wycheproofKinds {
		t.Run(k.kind, func(t *testing.T) {
			for _, p := range katLevels {
				t.Run(p.name, func(t *testing.T) {
					rel := wycheproofPath(k.kind, p)
					f := new(wycheproofFile)
					vectors.ReadJSON(t, rel, f)
					if f.Algorithm != "ML-KEM" || f.Schema != k.schema {
						t.Fatalf("%s: algorithm %q, schema %q; want ML-KEM, %s", rel, f.Algorithm, f.Schema, k.schema)
					}
					counts := map[string]int{}
					n := 0
					for _, g := range f.TestGroups {
						if g.Type != k.groupType || g.ParameterSet != p.name {
							t.Errorf("group %s: type %q, parameterSet %q; want %s, %s", g.Source.Name, g.Type, g.ParameterSet, k.groupType, p.name)
							continue
						}
						for i := range g.Tests {
							tc := &g.Tests[i]
							n++
							ctx := fmt.Sprintf("tcId %d (%s: %q, flags %v, %s)", tc.TcID, g.Source.Name, tc.Comment, tc.Flags, tc.Result)
							if tc.Result != "valid" && tc.Result != "invalid" {
								t.Errorf("%s: unexpected result %q", ctx, tc.Result)
								continue
							}
							for _, flag := range tc.Flags {
								if _, ok := f.Notes[flag]; !ok {
									t.Errorf("%s: flag %s has no note", ctx, flag)
								}
							}
							if key := k.run(t, p, ctx, tc); key != "" {
								counts[key]++
							}
						}
					}
					if n != f.NumberOfTests {
						t.Errorf("%s: %d tests, but numberOfTests is %d", rel, n, f.NumberOfTests)
					}
					want := k.want
					if want == nil {
						want = p.wantWycheproofEncaps
					}
					katCounts(t, counts, want)
				})
			}
		})
	}
}

// wycheproofDecaps is mlkem_N_test.json: key generation from a seed, then
// decapsulation. A seed of the wrong length must be rejected by
// NewDecapsulationKey; a ciphertext of the wrong length by Decapsulate.
// Returns the tally key, or "" after reporting an error.
func wycheproofDecaps(t *testing.T, p *katLevel, ctx string, tc *wycheproofTest) string {
	valid := tc.Result == "valid"
	seed, c, wantK := katHex(t, tc.Seed), katHex(t, tc.C), katHex(t, tc.K)
	dk, err := p.newKey(seed)
	if len(seed) != mlkem.SeedSize {
		if err == nil {
			t.Errorf("%s: NewDecapsulationKey accepted a %d-byte seed", ctx, len(seed))
			return ""
		}
		if valid {
			t.Errorf("%s: valid case with a %d-byte seed", ctx, len(seed))
			return ""
		}
		return "invalid: seed length"
	}
	if err != nil {
		t.Errorf("%s: NewDecapsulationKey: %v", ctx, err)
		return ""
	}
	if tc.EK == "" {
		t.Errorf("%s: no ek for a 64-byte seed", ctx)
	} else {
		katCheck(t, ctx, "ek", p.encapsulationKey(dk).Bytes(), katHex(t, tc.EK))
	}
	K, err := dk.Decapsulate(c)
	switch {
	case err != nil && len(c) == p.ctSize:
		t.Errorf("%s: Decapsulate rejected a %d-byte ciphertext: %v", ctx, len(c), err)
	case err != nil && valid:
		t.Errorf("%s: Decapsulate: %v", ctx, err)
	case err != nil:
		return "invalid: ciphertext length"
	case !valid:
		t.Errorf("%s: Decapsulate accepted a %d-byte ciphertext (want %d)", ctx, len(c), p.ctSize)
	default:
		if katCheck(t, ctx, "K", K, wantK) {
			return "valid"
		}
	}
	return ""
}

// wycheproofEncaps is mlkem_N_encaps_test.json: ek import with the §7.2
// checks, then Encaps_internal(ek, m).
func wycheproofEncaps(t *testing.T, p *katLevel, ctx string, tc *wycheproofTest) string {
	valid := tc.Result == "valid"
	ekb, m := katHex(t, tc.EK), katHex(t, tc.M)
	ek, err := p.newEK(ekb)
	if err != nil {
		if valid {
			t.Errorf("%s: NewEncapsulationKey: %v", ctx, err)
			return ""
		}
		switch {
		case len(ekb) > p.ekSize:
			return "invalid: too long"
		case len(ekb) < p.ekSize:
			return "invalid: too short"
		case slices.Contains(tc.Flags, "ModulusOverflow"):
			return "invalid: ModulusOverflow"
		default:
			return "invalid: not reduced"
		}
	}
	if !valid {
		t.Errorf("%s: NewEncapsulationKey accepted an invalid %d-byte key", ctx, len(ekb))
		return ""
	}
	katCheck(t, ctx, "ek round trip", ek.Bytes(), ekb)
	K, c, err := p.encapsulate(ek, m)
	if err != nil {
		t.Errorf("%s: Encapsulate: %v", ctx, err)
		return ""
	}
	okC := katCheck(t, ctx, "c", c, katHex(t, tc.C))
	okK := katCheck(t, ctx, "K", K, katHex(t, tc.K))
	if okC && okK {
		return "valid"
	}
	return ""
}

// wycheproofKeyGen is mlkem_N_keygen_seed_test.json: KeyGen_internal from
// d || z gives exactly ek and the expanded dk.
func wycheproofKeyGen(t *testing.T, p *katLevel, ctx string, tc *wycheproofTest) string {
	seed := katHex(t, tc.Seed)
	dk, err := p.newKey(seed)
	if err != nil {
		t.Errorf("%s: NewDecapsulationKey: %v", ctx, err)
		return ""
	}
	if tc.Result != "valid" {
		t.Errorf("%s: NewDecapsulationKey accepted the seed of an invalid case", ctx)
		return ""
	}
	ok := katCheck(t, ctx, "ek", p.encapsulationKey(dk).Bytes(), katHex(t, tc.EK))
	ok = katCheck(t, ctx, "expanded dk", dk.ExpandedBytes(), katHex(t, tc.DK)) && ok
	ok = katCheck(t, ctx, "seed (Bytes)", dk.Bytes(), seed) && ok
	if ok {
		return "valid"
	}
	return ""
}

// wycheproofExpandedDecaps is mlkem_N_semi_expanded_decaps_test.json:
// expanded dk import with the §7.3 checks, then decapsulation.
func wycheproofExpandedDecaps(t *testing.T, p *katLevel, ctx string, tc *wycheproofTest) string {
	valid := tc.Result == "valid"
	dkb, c := katHex(t, tc.DK), katHex(t, tc.C)
	dk, err := p.newKeyExpanded(dkb)
	if err != nil {
		if valid {
			t.Errorf("%s: NewDecapsulationKeyExpanded: %v", ctx, err)
			return ""
		}
		return "invalid: dk rejected"
	}
	if len(dkb) != p.dkSize {
		t.Errorf("%s: NewDecapsulationKeyExpanded accepted a %d-byte key", ctx, len(dkb))
		return ""
	}
	katCheck(t, ctx, "ek inside dk", p.encapsulationKey(dk).Bytes(), katHex(t, tc.EK))
	K, err := dk.Decapsulate(c)
	switch {
	case err != nil && len(c) == p.ctSize:
		t.Errorf("%s: Decapsulate rejected a %d-byte ciphertext: %v", ctx, len(c), err)
	case err != nil && valid:
		t.Errorf("%s: Decapsulate: %v", ctx, err)
	case err != nil:
		return "invalid: ciphertext length"
	case !valid:
		t.Errorf("%s: accepted (dk %d bytes, c %d bytes), want an error", ctx, len(dkb), len(c))
	default:
		if katCheck(t, ctx, "K", K, katHex(t, tc.K)) {
			return "valid"
		}
	}
	return ""
}

// ---------------------------------------------------------------------------
// C2SP CCTV (testdata/mlkem/cctv)

func cctvPath(dir string, p *katLevel) string {
	return "mlkem/cctv/" + dir + "/" + p.name + ".txt"
}

// readCCTV reads a "name = value" file and checks that its names are
// exactly wantKeys, in order, if wantKeys is not nil. It returns the values
// by name (the first one, for names that repeat).
func readCCTV(t *testing.T, rel string, wantKeys []string) map[string]string {
	t.Helper()
	kvs := vectors.ReadKeyValues(t, rel)
	var keys []string
	m := map[string]string{}
	for _, kv := range kvs {
		keys = append(keys, kv.Key)
		if _, ok := m[kv.Key]; !ok {
			m[kv.Key] = kv.Value
		}
	}
	if wantKeys != nil && !slices.Equal(keys, wantKeys) {
		t.Fatalf("%s: names %q, want %q", rel, keys, wantKeys)
	}
	return m
}

func requireCCTV(t *testing.T, dir, suffix string) {
	var all []string
	for _, p := range katLevels {
		all = append(all, cctvPath(dir, p)+suffix)
	}
	vectors.Require(t, all...)
}

// TestCCTVStrcmp: Decaps(dk, c) is the implicit-rejection key even though
// the re-encryption equals c up to a zero byte.
func TestCCTVStrcmp(t *testing.T) {
	requireCCTV(t, "strcmp", "")
	for _, p := range katLevels {
		t.Run(p.name, func(t *testing.T) {
			v := readCCTV(t, cctvPath("strcmp", p), []string{"dk", "c", "K"})
			counts := map[string]int{}
			dk, err := p.newKeyExpanded(katHex(t, v["dk"]))
			if err != nil {
				t.Fatalf("NewDecapsulationKeyExpanded: %v", err)
			}
			K, err := dk.Decapsulate(katHex(t, v["c"]))
			if err != nil {
				t.Fatalf("Decapsulate: %v", err)
			}
			if katCheck(t, "strcmp", "K", K, katHex(t, v["K"])) {
				counts["strcmp"]++
			}
			katCounts(t, counts, map[string]int{"strcmp": 1})
		})
	}
}

// TestCCTVModulus: every key has a coefficient in [q, 4096) and must be
// rejected by the §7.2 modulus check.
func TestCCTVModulus(t *testing.T) {
	requireCCTV(t, "modulus", ".gz")
	for _, p := range katLevels {
		t.Run(p.name, func(t *testing.T) {
			counts := map[string]int{}
			for i, line := range vectors.Lines(t, cctvPath("modulus", p)+".gz") {
				ekb := katHex(t, line)
				if len(ekb) != p.ekSize {
					// Otherwise the key would be rejected for its length,
					// and the modulus check would go untested.
					t.Errorf("line %d: %d-byte key, want %d", i+1, len(ekb), p.ekSize)
					continue
				}
				if _, err := p.newEK(ekb); err == nil {
					t.Errorf("line %d: NewEncapsulationKey accepted a key that fails the modulus check", i+1)
					continue
				}
				counts["rejected"]++
			}
			katCounts(t, counts, map[string]int{"rejected": p.wantModulusLines})
		})
	}
}

// TestCCTVUnluckySample: Encaps and Decaps expand a matrix whose SampleNTT
// needs more than 575 bytes of SHAKE-128. These are FIPS 203 ipd vectors,
// so KeyGen(d, z) is deliberately not checked (see
// testdata/mlkem/cctv/README.md).
func TestCCTVUnluckySample(t *testing.T) {
	requireCCTV(t, "unluckysample", "")
	for _, p := range katLevels {
		t.Run(p.name, func(t *testing.T) {
			v := readCCTV(t, cctvPath("unluckysample", p), []string{"d", "z", "ek", "dk", "m", "K", "c"})
			counts := map[string]int{}
			if cctvEncapsDecaps(t, p, v) {
				counts["encaps+decaps"]++
			}
			katCounts(t, counts, map[string]int{"encaps+decaps": 1})
		})
	}
}

// cctvEncapsDecaps checks Encaps_internal(ek, m) == (K, c), that dk parses
// and holds ek, and Decaps(dk, c) == K.
func cctvEncapsDecaps(t *testing.T, p *katLevel, v map[string]string) bool {
	t.Helper()
	ekb, dkb, m, wantK, wantC := katHex(t, v["ek"]), katHex(t, v["dk"]), katHex(t, v["m"]), katHex(t, v["K"]), katHex(t, v["c"])
	ek, err := p.newEK(ekb)
	if err != nil {
		t.Errorf("NewEncapsulationKey: %v", err)
		return false
	}
	K, c, err := p.encapsulate(ek, m)
	if err != nil {
		t.Errorf("Encapsulate: %v", err)
		return false
	}
	ok := katCheck(t, "encaps", "c", c, wantC)
	ok = katCheck(t, "encaps", "K", K, wantK) && ok
	dk, err := p.newKeyExpanded(dkb)
	if err != nil {
		t.Errorf("NewDecapsulationKeyExpanded: %v", err)
		return false
	}
	ok = katCheck(t, "dk", "ek", p.encapsulationKey(dk).Bytes(), ekb) && ok
	ok = katCheck(t, "dk", "ExpandedBytes", dk.ExpandedBytes(), dkb) && ok
	K2, err := dk.Decapsulate(wantC)
	if err != nil {
		t.Errorf("Decapsulate: %v", err)
		return false
	}
	return katCheck(t, "decaps", "K", K2, wantK) && ok
}

// TestCCTVIntermediate checks the values of the intermediate-value files
// that the public API can reach: the expanded dk is NTT(s) || ek || H(ek) ||
// z, ek ends in ρ, and Encaps/Decaps give the listed K and c. Keys start
// from the listed ρ and σ (ipd KeyGen), so KeyGen(d, z) is not checked.
func TestCCTVIntermediate(t *testing.T) {
	requireCCTV(t, "intermediate", "")
	for _, p := range katLevels {
		t.Run(p.name, func(t *testing.T) {
			rel := cctvPath("intermediate", p)
			v := readCCTV(t, rel, nil)
			for _, name := range []string{"ρ", "dkPKE = NTT(s)", "ek", "z", "H(ek)", "dk", "m", "K", "c"} {
				if _, ok := v[name]; !ok {
					t.Fatalf("%s: no %q", rel, name)
				}
			}
			counts := map[string]int{}
			ekb := katHex(t, v["ek"])
			if katCheck(t, "ek", "ρ", ekb[len(ekb)-32:], katHex(t, v["ρ"])) {
				counts["rho"]++
			}
			var want []byte
			for _, name := range []string{"dkPKE = NTT(s)", "ek", "H(ek)", "z"} {
				want = append(want, katHex(t, v[name])...)
			}
			if katCheck(t, "dk", "NTT(s) || ek || H(ek) || z", katHex(t, v["dk"]), want) {
				counts["dk layout"]++
			}
			if cctvEncapsDecaps(t, p, v) {
				counts["encaps+decaps"]++
			}
			katCounts(t, counts, map[string]int{"rho": 1, "dk layout": 1, "encaps+decaps": 1})
		})
	}
}

// ---------------------------------------------------------------------------
// Accumulated vectors (testdata/mlkem/accumulated.json)

const accumulatedFile = "mlkem/accumulated.json"

type accumulatedJSON struct {
	Description     string            `json:"description"`
	Rng             string            `json:"rng"`
	RngFirst16Bytes string            `json:"rngFirst16Bytes"`
	Procedures      map[string]string `json:"procedures"`
	Specs           map[string]string `json:"specs"`
	CiphertextSize  map[string]int    `json:"ciphertextSize"`
	Digests         []struct {
		ParameterSet string `json:"parameterSet"`
		Iterations   int    `json:"iterations"`
		Procedure    string `json:"procedure"`
		Spec         string `json:"spec"`
		Digest       string `json:"digest"`
		Source       string `json:"source"`
	} `json:"digests"`
}

// accumulatedCheckpoints are the iteration counts accumulated.json gives
// digests for. One run of n iterations computes the digests of every
// checkpoint up to n, for both procedures.
var accumulatedCheckpoints = []int{100, 10_000, 1_000_000}

// TestAccumulated runs the accumulated test of accumulated.json for 100
// iterations under -short, 10,000 by default and 1,000,000 with
// -mlkem.million, and checks the digests of both the CCTV procedure (which
// absorbs the expanded dk) and the Go standard library's (which does not)
// at every checkpoint up to that count.
func TestAccumulated(t *testing.T) {
	n := 10_000
	if testing.Short() {
		n = 100
	}
	if *katMillion {
		n = 1_000_000
	}
	want := new(accumulatedJSON)
	vectors.ReadJSON(t, accumulatedFile, want)
	for _, name := range []string{"cctv", "go"} {
		if want.Procedures[name] == "" {
			t.Fatalf("%s: no procedure %q", accumulatedFile, name)
		}
	}
	if want.RngFirst16Bytes == "" {
		t.Fatalf("%s: no rngFirst16Bytes", accumulatedFile)
	}
	for _, p := range katLevels {
		t.Run(p.name, func(t *testing.T) {
			t.Parallel()
			if want.CiphertextSize[p.name] != p.ctSize {
				t.Fatalf("%s: ciphertextSize %d, want %d", accumulatedFile, want.CiphertextSize[p.name], p.ctSize)
			}
			start := time.Now()
			got, first16 := katAccumulate(t, p, n)
			t.Logf("%d iterations in %v (%v per iteration)", n, time.Since(start).Round(time.Millisecond), (time.Since(start) / time.Duration(n)).Round(time.Microsecond))
			if t.Failed() {
				return
			}
			if got := hex.EncodeToString(first16); got != strings.ToLower(want.RngFirst16Bytes) {
				t.Errorf("rng first 16 bytes = %s, want %s", got, want.RngFirst16Bytes)
			}
			counts := map[string]int{}
			ipd := 0
			for _, d := range want.Digests {
				if d.ParameterSet != p.name || d.Iterations > n {
					continue
				}
				if d.Spec != "FIPS203" {
					// FIPS203-ipd digests need the ipd KeyGen, G(d),
					// which the public API does not have.
					ipd++
					continue
				}
				key := fmt.Sprintf("%s/%d", d.Procedure, d.Iterations)
				digest, ok := got[key]
				if !ok {
					t.Errorf("%s: digest for procedure %q, %d iterations: not computed", accumulatedFile, d.Procedure, d.Iterations)
					continue
				}
				if g := hex.EncodeToString(digest); g != strings.ToLower(d.Digest) {
					t.Errorf("%s procedure, %d iterations: digest %s, want %s", d.Procedure, d.Iterations, g, d.Digest)
				} else {
					t.Logf("%s procedure, %d iterations: digest %s OK", d.Procedure, d.Iterations, g)
				}
				counts["checked"]++
			}
			if ipd > 0 {
				t.Logf("not checked: %d FIPS 203 ipd digests (they need the ipd KeyGen)", ipd)
			}
			// Every computed digest (both procedures at every checkpoint up
			// to n) must have had an expected value.
			if len(got) == 0 {
				t.Errorf("no checkpoint at or below %d iterations", n)
			}
			katCounts(t, counts, map[string]int{"checked": len(got)})
		})
	}
}

// katAccumulate runs n iterations of the accumulated.json procedures and returns
// the digests at every checkpoint up to n, keyed "cctv/N" and "go/N", and
// the first 16 bytes of the rng stream.
func katAccumulate(t *testing.T, p *katLevel, n int) (digests map[string][]byte, first16 []byte) {
	digests = map[string][]byte{}
	rng := sha3.NewSHAKE128()
	accCCTV, accGo := sha3.NewSHAKE128(), sha3.NewSHAKE128()
	seed := make([]byte, mlkem.SeedSize)
	m := make([]byte, 32)
	ct := make([]byte, p.ctSize)
	for i := 1; i <= n; i++ {
		rng.Read(seed) // d || z
		rng.Read(m)
		rng.Read(ct)
		if i == 1 {
			first16 = slices.Clone(seed[:16])
		}
		dk, err := p.newKey(seed)
		if err != nil {
			t.Fatalf("iteration %d: NewDecapsulationKey: %v", i, err)
		}
		ek := p.encapsulationKey(dk)
		K, c, err := p.encapsulate(ek, m)
		if err != nil {
			t.Fatalf("iteration %d: Encapsulate: %v", i, err)
		}
		K2, err := dk.Decapsulate(c)
		if err != nil || !bytes.Equal(K, K2) {
			t.Fatalf("iteration %d: Decapsulate(Encapsulate) = %x, %v; want %x", i, K2, err, K)
		}
		Kr, err := dk.Decapsulate(ct)
		if err != nil {
			t.Fatalf("iteration %d: Decapsulate(random ciphertext): %v", i, err)
		}
		ekb := ek.Bytes()
		accCCTV.Write(ekb)
		accCCTV.Write(dk.ExpandedBytes())
		accGo.Write(ekb)
		for _, b := range [][]byte{c, K, Kr} {
			accCCTV.Write(b)
			accGo.Write(b)
		}
		if slices.Contains(accumulatedCheckpoints, i) {
			digests[fmt.Sprintf("cctv/%d", i)] = katSqueeze(t, accCCTV)
			digests[fmt.Sprintf("go/%d", i)] = katSqueeze(t, accGo)
		}
	}
	return digests, first16
}

// katSqueeze returns the first 32 output bytes of a copy of acc, leaving acc
// able to absorb more.
func katSqueeze(t *testing.T, acc *sha3.SHAKE) []byte {
	state, err := acc.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	c := sha3.NewSHAKE128()
	if err := c.UnmarshalBinary(state); err != nil {
		t.Fatal(err)
	}
	out := make([]byte, 32)
	c.Read(out)
	return out
}
