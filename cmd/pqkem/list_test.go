package main

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/pqkem/pqkem/kem"
)

func TestList(t *testing.T) {
	code, stdout, stderr := pqkem(t, "list")
	wantCode(t, []string{"list"}, code, exitOK, stderr)
	for _, s := range kem.All() {
		dkSize := fmt.Sprint(s.DecapsulationKeySize())
		if kem.SingleUse(s) {
			// A single-use key has no encoding, and no size to show.
			dkSize = "-"
		}
		row := regexp.MustCompile(fmt.Sprintf(`(?m)^%s +%d +%s +%d +%d +%d +available \(%s\)$`,
			regexp.QuoteMeta(s.Name()), s.EncapsulationKeySize(), dkSize, s.CiphertextSize(),
			s.SharedKeySize(), s.EncapsulationSeedSize(), regexp.QuoteMeta(s.(kem.Specifier).Specification())))
		if !row.MatchString(stdout) {
			t.Errorf("list has no row %s:\n%s", row, stdout)
		}
		// The limits are in the status.
		status := s.(kem.Specifier).Specification()
		if kem.EphemeralOnly(s) && !strings.Contains(status, "ephemeral") {
			t.Errorf("%s is ephemeral-only, but its status %q does not say so", s.Name(), status)
		}
		if kem.SingleUse(s) && !strings.Contains(status, "passively secure; ephemeral only; no key files") {
			t.Errorf("%s is single-use, but its status %q does not give its limits", s.Name(), status)
		}
	}
	for _, name := range []string{"Frodo-CCS2016-Recommended", "Frodo-CCS2016-Paranoid"} {
		if !regexp.MustCompile(`(?m)^` + name + ` .*passively secure; ephemeral only; no key files\)$`).MatchString(stdout) {
			t.Errorf("list does not show %s with its limits:\n%s", name, stdout)
		}
	}
	// The names note, with the sizes.
	if !strings.Contains(stdout, "Names: CIRCL's \"FrodoKEM-640-SHAKE\" is eFrodoKEM-640-SHAKE here (NIST round 3,\n9720-byte ciphertexts), not FrodoKEM-640-SHAKE (the salted version, 9752 bytes)") {
		t.Errorf("list has no note on CIRCL's FrodoKEM-640-SHAKE:\n%s", stdout)
	}
	// Every planned scheme (the hybrids, FrodoKEM) is registered now, so
	// nothing is left to plan; TestListPlannedLeaves covers the listing.
	if strings.Contains(stdout, "Planned, not available yet:") {
		t.Errorf("list still plans schemes:\n%s", stdout)
	}
	for _, line := range strings.Split(stdout, "\n") {
		if strings.HasPrefix(line, "    ") && len(line) > 78 {
			t.Errorf("list line longer than 78 columns: %q", line)
		}
	}
}

func TestListNames(t *testing.T) {
	code, stdout, stderr := pqkem(t, "list", "-names")
	wantCode(t, []string{"list", "-names"}, code, exitOK, stderr)
	if want := strings.Join(kem.Names(), "\n") + "\n"; stdout != want {
		t.Errorf("list -names = %q, want %q", stdout, want)
	}
}

// A planned scheme leaves the planned list once it is registered.
func TestListPlannedLeaves(t *testing.T) {
	mlkem768, _ := kem.ByName("ML-KEM-768")
	withSchemes(t, &brokenScheme{Scheme: mlkem768, name: "X-Wing"})
	code, stdout, stderr := pqkem(t, "list")
	wantCode(t, []string{"list"}, code, exitOK, stderr)
	if !regexp.MustCompile(`(?m)^X-Wing +1184 `).MatchString(stdout) {
		t.Errorf("list does not show the registered X-Wing:\n%s", stdout)
	}
	if strings.Contains(stdout, "X-Wing,") || !strings.Contains(stdout, "    X25519MLKEM768,") {
		t.Errorf("list still plans X-Wing:\n%s", stdout)
	}
}
