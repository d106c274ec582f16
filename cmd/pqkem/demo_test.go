package main

import (
	"errors"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/pqkem/pqkem/kem"
)

var (
	fingerprintLine = regexp.MustCompile(`(?m)^  (Alice|Bob)'s shared key: +fingerprint ([0-9a-f]{16})$`)
	stepLine        = regexp.MustCompile(`(?m)^  (Alice|Bob) .* ([0-9.]+(µs|ms|s))$`)
	longHex         = regexp.MustCompile(`[0-9a-f]{32,}`)
)

func TestDemo(t *testing.T) {
	code, stdout, stderr := pqkem(t, "demo")
	wantCode(t, []string{"demo"}, code, exitOK, stderr)
	schemes := kem.All()
	for _, s := range schemes {
		for _, want := range []string{
			s.Name() + " (" + s.(kem.Specifier).Specification() + ")\n",
			fmt.Sprintf("encapsulation key %d bytes, ciphertext %d bytes, shared key %d bytes",
				s.EncapsulationKeySize(), s.CiphertextSize(), s.SharedKeySize()),
		} {
			if !strings.Contains(stdout, want) {
				t.Errorf("demo output does not say %q", want)
			}
		}
	}
	if got := strings.Count(stdout, "match: yes\n"); got != len(schemes) {
		t.Errorf("demo output has %d matches, want %d", got, len(schemes))
	}
	if got := len(stepLine.FindAllString(stdout, -1)); got != 3*len(schemes) {
		t.Errorf("demo output has %d timed steps, want %d", got, 3*len(schemes))
	}
	fps := fingerprintLine.FindAllStringSubmatch(stdout, -1)
	if len(fps) != 2*len(schemes) {
		t.Fatalf("demo output has %d fingerprints, want %d:\n%s", len(fps), 2*len(schemes), stdout)
	}
	seen := make(map[string]bool)
	for i := 0; i < len(fps); i += 2 {
		alice, bob := fps[i], fps[i+1]
		if alice[1] != "Alice" || bob[1] != "Bob" || alice[2] != bob[2] {
			t.Errorf("fingerprints do not pair up: %q, %q", alice[0], bob[0])
		}
		if seen[alice[2]] {
			t.Errorf("two exchanges gave the same fingerprint %s", alice[2])
		}
		seen[alice[2]] = true
	}
	if longHex.MatchString(stdout) {
		t.Errorf("demo output has a long hex string, perhaps a secret:\n%s", stdout)
	}
	if !strings.Contains(stdout, fmt.Sprintf("with every scheme (%d of %d)", len(schemes), len(schemes))) {
		t.Errorf("demo output does not sum up:\n%s", stdout)
	}
}

func TestDemoAlg(t *testing.T) {
	for _, name := range []string{"ML-KEM-512", "ml-kem-1024"} {
		args := []string{"demo", "-alg", name}
		code, stdout, stderr := pqkem(t, args...)
		wantCode(t, args, code, exitOK, stderr)
		s, _ := kem.ByName(name)
		for _, other := range kem.All() {
			if got, want := strings.Contains(stdout, other.Name()+" ("), other == s; got != want {
				t.Errorf("pqkem demo -alg %s: output mentions %s: %v, want %v", name, other.Name(), got, want)
			}
		}
		if strings.Count(stdout, "match: yes") != 1 {
			t.Errorf("pqkem demo -alg %s: want one exchange:\n%s", name, stdout)
		}
	}
}

// brokenScheme wraps a real scheme and breaks one step of it.
type brokenScheme struct {
	kem.Scheme
	name        string
	badKey      bool // Alice's decapsulation yields a different key
	badEK       bool // Bob cannot parse Alice's encapsulation key
	badCTLength bool // Bob's ciphertext is one byte short of the announced size
}

func (b *brokenScheme) Name() string { return b.name }

func (b *brokenScheme) GenerateKey() (kem.DecapsulationKey, error) {
	dk, err := b.Scheme.GenerateKey()
	return brokenKey{dk, b}, err
}

func (b *brokenScheme) NewEncapsulationKey(ek []byte) (kem.EncapsulationKey, error) {
	if b.badEK {
		return nil, errors.New("test: invalid encapsulation key")
	}
	return b.Scheme.NewEncapsulationKey(ek)
}

func (b *brokenScheme) CiphertextSize() int {
	if b.badCTLength {
		return b.Scheme.CiphertextSize() + 1
	}
	return b.Scheme.CiphertextSize()
}

type brokenKey struct {
	kem.DecapsulationKey
	s *brokenScheme
}

func (k brokenKey) Decapsulate(c []byte) ([]byte, error) {
	K, err := k.DecapsulationKey.Decapsulate(c)
	if err == nil && k.s.badKey {
		K[0] ^= 1
	}
	return K, err
}

func TestDemoFailures(t *testing.T) {
	good, err := kem.ByName("ML-KEM-512")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		scheme *brokenScheme
		stdout string
	}{
		{&brokenScheme{Scheme: good, name: "Broken-Key", badKey: true}, "match: NO"},
		{&brokenScheme{Scheme: good, name: "Broken-EK", badEK: true}, "FAILED: parsing Alice's encapsulation key (Bob): test: invalid encapsulation key"},
		{&brokenScheme{Scheme: good, name: "Broken-Size", badCTLength: true}, "FAILED: the ciphertext is 768 bytes, but Broken-Size announces 769"},
	} {
		// The broken scheme between two good ones: they still run, and
		// the summary names only the broken one.
		withSchemes(t, good, tc.scheme, good)
		code, stdout, stderr := pqkem(t, "demo")
		wantCode(t, []string{"demo", "with " + tc.scheme.name}, code, exitError, stderr)
		if !strings.Contains(stdout, tc.stdout) {
			t.Errorf("%s: output does not say %q:\n%s", tc.scheme.name, tc.stdout, stdout)
		}
		if strings.Count(stdout, "match: yes") != 2 {
			t.Errorf("%s: the good schemes did not both run:\n%s", tc.scheme.name, stdout)
		}
		want := fmt.Sprintf("pqkem demo: key exchange failed with 1 of 3 scheme(s): [%s]\n", tc.scheme.name)
		if stderr != want {
			t.Errorf("%s: stderr %q, want %q", tc.scheme.name, stderr, want)
		}
	}
}

func TestFormatDuration(t *testing.T) {
	for d, want := range map[time.Duration]string{
		45 * time.Microsecond:     "45.0µs",
		1234 * time.Nanosecond:    "1.2µs",
		1340 * time.Microsecond:   "1.34ms",
		2500 * time.Millisecond:   "2.50s",
		999_949 * time.Nanosecond: "999.9µs",
		time.Millisecond:          "1.00ms",
	} {
		if got := formatDuration(d); got != want {
			t.Errorf("formatDuration(%v) = %q, want %q", d, got, want)
		}
	}
}
