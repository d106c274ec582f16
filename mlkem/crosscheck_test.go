package mlkem_test

// Cross-checks against two independent implementations: the standard
// library's crypto/mlkem (ML-KEM-768 and ML-KEM-1024; it has no 512) and
// CIRCL's kem/mlkem (all three levels). For random seeds and messages m,
// every encoding and every key must be byte-identical.
//
// crypto/mlkem exposes no expanded decapsulation key (its parser and
// encoder are internal, TestingOnly functions), so the expanded form is
// compared with CIRCL's packed private key only.

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	mathrand "math/rand/v2"
	"testing"
)

// crossCheckIterations is the number of random seeds per level.
func crossCheckIterations() int {
	if testing.Short() {
		return 100
	}
	return 1000
}

func TestCrossCheck(t *testing.T) {
	for _, l := range kemLevels {
		t.Run(l.name, func(t *testing.T) {
			t.Parallel()
			n := crossCheckIterations()
			for range n {
				seed := make([]byte, 64)
				m := make([]byte, 32)
				rand.Read(seed)
				rand.Read(m)
				bit := mathrand.IntN(8 * l.ctSize)
				if !crossCheckOne(t, l, seed, m, bit) {
					t.Fatalf("seed %x, m %x, flipped ciphertext bit %d", seed, m, bit)
				}
			}
			t.Logf("%d seeds agree with CIRCL%s", n, map[bool]string{true: " and crypto/mlkem", false: ""}[l.std != nil])
		})
	}
}

// crossCheckOne checks one seed and message; it reports each mismatch and
// returns false if there was any.
func crossCheckOne(t *testing.T, l *kemLevel, seed, m []byte, bit int) bool {
	t.Helper()
	ok := true
	eq := func(what string, got, want []byte) {
		t.Helper()
		if !bytes.Equal(got, want) {
			ok = false
			t.Errorf("%s: %s differs:\ngot  %s\nwant %s", l.name, what, abbrev(got), abbrev(want))
		}
	}
	noErr := func(what string, err error) bool {
		t.Helper()
		if err != nil {
			ok = false
			t.Errorf("%s: %s: %v", l.name, what, err)
		}
		return err == nil
	}

	// Key generation from the seed.
	dk, err := l.newKey(seed)
	if !noErr("NewDecapsulationKey", err) {
		return false
	}
	cPK, cSK := l.circl.DeriveKeyPair(seed)
	cEK, _ := cPK.MarshalBinary()
	cDK, _ := cSK.MarshalBinary()
	ek := dk.Encapsulator()
	eq("seed (Bytes)", dk.Bytes(), seed)
	eq("encapsulation key vs CIRCL", ek.Bytes(), cEK)
	eq("expanded decapsulation key vs CIRCL", dk.ExpandedBytes(), cDK)

	// Derandomized encapsulation with the same m.
	K, c, err := l.encapsulate(ek, m)
	if !noErr("mlkemtest.Encapsulate", err) {
		return false
	}
	cC, cK, err := l.circl.EncapsulateDeterministically(cPK, m)
	if !noErr("CIRCL EncapsulateDeterministically", err) {
		return false
	}
	eq("ciphertext vs CIRCL", c, cC)
	eq("shared key vs CIRCL", K, cK)

	// Decapsulation of our ciphertext, by both.
	got, err := dk.Decapsulate(c)
	noErr("Decapsulate", err)
	eq("decapsulated key", got, K)
	got, err = l.circl.Decapsulate(cSK, c)
	noErr("CIRCL Decapsulate", err)
	eq("CIRCL decapsulation of our ciphertext", got, K)

	// Randomized encapsulations, each decapsulated by the other.
	oK, oC := ek.Encapsulate()
	got, err = l.circl.Decapsulate(cSK, oC)
	noErr("CIRCL Decapsulate", err)
	eq("CIRCL decapsulation of our random ciphertext", got, oK)
	rC, rK, err := l.circl.Encapsulate(cPK)
	noErr("CIRCL Encapsulate", err)
	got, err = dk.Decapsulate(rC)
	noErr("Decapsulate", err)
	eq("our decapsulation of CIRCL's ciphertext", got, rK)

	// Implicit rejection of a tampered ciphertext: both agree, and the key
	// is not the real one.
	bad := bytes.Clone(c)
	bad[bit/8] ^= 1 << (bit % 8)
	rej, err := dk.Decapsulate(bad)
	noErr("Decapsulate (tampered)", err)
	got, err = l.circl.Decapsulate(cSK, bad)
	noErr("CIRCL Decapsulate (tampered)", err)
	eq("implicit-rejection key vs CIRCL", rej, got)
	if bytes.Equal(rej, K) {
		ok = false
		t.Errorf("%s: tampered ciphertext decapsulated to the real key", l.name)
	}

	// Import of CIRCL's packed private key (the FIPS 203 expanded form) and
	// public key.
	if xdk, err := l.newKeyExpanded(cDK); noErr("NewDecapsulationKeyExpanded(CIRCL key)", err) {
		if !bytes.Equal(xdk.Bytes(), cDK) {
			ok = false
			t.Errorf("%s: Bytes of an expanded-only key is not its expanded form", l.name)
		}
		eq("ExpandedBytes of the imported CIRCL key", xdk.ExpandedBytes(), cDK)
		got, err = xdk.Decapsulate(c)
		noErr("Decapsulate (imported key)", err)
		eq("decapsulation with the imported CIRCL key", got, K)
		got, err = xdk.Decapsulate(bad)
		noErr("Decapsulate (imported key, tampered)", err)
		eq("implicit rejection with the imported CIRCL key", got, rej)
	}
	if xek, err := l.newEK(cEK); noErr("NewEncapsulationKey(CIRCL key)", err) {
		xK, xC, err := l.encapsulate(xek, m)
		noErr("mlkemtest.Encapsulate (imported key)", err)
		eq("ciphertext with the imported CIRCL key", xC, c)
		eq("shared key with the imported CIRCL key", xK, K)
	}

	if l.std == nil {
		return ok
	}

	// crypto/mlkem: the same seed gives the same keys, and each decapsulates
	// the other's ciphertexts.
	sdk, err := l.std.newKey(seed)
	if !noErr("crypto/mlkem NewDecapsulationKey", err) {
		return false
	}
	sek := sdk.Encapsulator()
	eq("crypto/mlkem seed", sdk.Bytes(), seed)
	eq("encapsulation key vs crypto/mlkem", ek.Bytes(), sek.Bytes())
	sK, sC, err := l.std.encapsulate(sek, m)
	noErr("crypto/mlkem/mlkemtest Encapsulate", err)
	eq("ciphertext vs crypto/mlkem", c, sC)
	eq("shared key vs crypto/mlkem", K, sK)
	got, err = sdk.Decapsulate(oC)
	noErr("crypto/mlkem Decapsulate", err)
	eq("crypto/mlkem decapsulation of our random ciphertext", got, oK)
	sK2, sC2 := sek.Encapsulate()
	got, err = dk.Decapsulate(sC2)
	noErr("Decapsulate", err)
	eq("our decapsulation of crypto/mlkem's random ciphertext", got, sK2)
	got, err = sdk.Decapsulate(bad)
	noErr("crypto/mlkem Decapsulate (tampered)", err)
	eq("implicit-rejection key vs crypto/mlkem", rej, got)
	if xek, err := l.std.newEK(ek.Bytes()); noErr("crypto/mlkem NewEncapsulationKey(our key)", err) {
		eq("crypto/mlkem re-encoding of our encapsulation key", xek.Bytes(), ek.Bytes())
	}
	return ok
}

// abbrev abbreviates a long byte string in a failure message.
func abbrev(b []byte) string {
	if len(b) <= 48 {
		return hex.EncodeToString(b)
	}
	return hex.EncodeToString(b[:24]) + "..." + hex.EncodeToString(b[len(b)-24:])
}
