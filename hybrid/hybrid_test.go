package hybrid_test

import (
	"bytes"
	"crypto/ecdh"
	stdmlkem "crypto/mlkem"
	"encoding/hex"
	"fmt"
	"strings"
	"testing"

	"github.com/pqkem/pqkem/hybrid"
	"github.com/pqkem/pqkem/hybrid/hybridtest"
)

// allKEMs is the six hybrids and the three HPKE ML-KEM KEMs.
func allKEMs() []*hybrid.KEM {
	return append(hybrid.All(), hybrid.MLKEM512(), hybrid.MLKEM768(), hybrid.MLKEM1024())
}

// forEachKEM runs f as a subtest for each KEM of allKEMs.
func forEachKEM(t *testing.T, f func(t *testing.T, k *hybrid.KEM)) {
	forEachKEMIn(t, allKEMs(), f)
}

// forEachKEMIn runs f as a subtest for each KEM of ks, named by the KEM and
// its HPKE id.
func forEachKEMIn(t *testing.T, ks []*hybrid.KEM, f func(t *testing.T, k *hybrid.KEM)) {
	for _, k := range ks {
		name := k.Name()
		if id, ok := k.HPKEID(); ok {
			name = fmt.Sprintf("%s/%#04x", name, id)
		}
		t.Run(name, func(t *testing.T) { f(t, k) })
	}
}

// sizes is what the specifications say of each scheme: encapsulation key,
// ciphertext, shared key, key seed and encapsulation seed sizes.
var sizes = map[string][5]int{
	"X-Wing":             {1216, 1120, 32, 32, 64},
	"MLKEM768-P256":      {1249, 1153, 32, 32, 128},
	"MLKEM1024-P384":     {1665, 1665, 32, 32, 80},
	"X25519MLKEM768":     {1216, 1120, 64, 96, 64},
	"SecP256r1MLKEM768":  {1249, 1153, 64, 96, 128},
	"SecP384r1MLKEM1024": {1665, 1665, 80, 112, 80},
	"ML-KEM-512":         {800, 768, 32, 64, 32},
	"ML-KEM-768":         {1184, 1088, 32, 64, 32},
	"ML-KEM-1024":        {1568, 1568, 32, 64, 32},
}

func TestSizesAndIDs(t *testing.T) {
	forEachKEM(t, func(t *testing.T, k *hybrid.KEM) {
		want := sizes[k.Name()]
		got := [5]int{k.EncapsulationKeySize(), k.CiphertextSize(), k.SharedKeySize(), k.SeedSize(), k.EncapsulationSeedSize()}
		if got != want {
			t.Errorf("sizes (ek, ct, ss, key seed, encaps seed) = %v, want %v", got, want)
		}
		if id, ok := k.HPKEID(); ok {
			if got, _ := hybrid.ByHPKEID(id); got != k {
				t.Errorf("ByHPKEID(%#04x) is not %s", id, k.Name())
			}
		}
		if cp, ok := k.TLSGroup(); ok {
			if got, _ := hybrid.ByTLSGroup(cp); got != k {
				t.Errorf("ByTLSGroup(%#04x) is not %s", cp, k.Name())
			}
		}
	})
	for _, c := range []struct {
		k         *hybrid.KEM
		hpke, tls uint16
	}{
		{hybrid.MLKEM768X25519(), 0x647a, 0},
		{hybrid.MLKEM768P256(), 0x0050, 0},
		{hybrid.MLKEM1024P384(), 0x0051, 0},
		{hybrid.X25519MLKEM768(), 0, 0x11EC},
		{hybrid.SecP256r1MLKEM768(), 0, 0x11EB},
		{hybrid.SecP384r1MLKEM1024(), 0, 0x11ED},
	} {
		hpkeID, _ := c.k.HPKEID()
		tlsID, _ := c.k.TLSGroup()
		if hpkeID != c.hpke || tlsID != c.tls {
			t.Errorf("%s: HPKE id %#04x, TLS group %#04x, want %#04x and %#04x", c.k.Name(), hpkeID, tlsID, c.hpke, c.tls)
		}
	}
	if _, ok := hybrid.ByHPKEID(0x0020); ok {
		t.Error("ByHPKEID(0x0020) found a KEM")
	}
}

func TestRoundTrip(t *testing.T) {
	forEachKEM(t, func(t *testing.T, k *hybrid.KEM) {
		for range 5 {
			dk, err := k.GenerateKey()
			if err != nil {
				t.Fatal(err)
			}
			if dk.KEM() != k || dk.EncapsulationKey().KEM() != k {
				t.Fatal("keys do not know their KEM")
			}
			if len(dk.Bytes()) != k.SeedSize() {
				t.Fatalf("len(Bytes()) = %d, want %d", len(dk.Bytes()), k.SeedSize())
			}
			again := mustDK(t, k, dk.Bytes())
			ekBytes := dk.EncapsulationKey().Bytes()
			if !bytes.Equal(again.EncapsulationKey().Bytes(), ekBytes) || len(ekBytes) != k.EncapsulationKeySize() {
				t.Fatal("NewDecapsulationKey(dk.Bytes()) gives another key")
			}
			ek, err := k.NewEncapsulationKey(ekBytes)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(ek.Bytes(), ekBytes) {
				t.Fatal("NewEncapsulationKey does not round-trip")
			}
			for _, e := range []interface{ Encapsulate() ([]byte, []byte) }{ek, dk.Encapsulator()} {
				ss, ct := e.Encapsulate()
				if len(ss) != k.SharedKeySize() || len(ct) != k.CiphertextSize() {
					t.Fatalf("Encapsulate gave %d and %d bytes", len(ss), len(ct))
				}
				if got := mustDecapsulate(t, again, ct); !bytes.Equal(got, ss) {
					t.Fatal("Decapsulate does not recover the shared key")
				}
			}
			random := randomBytes(k.EncapsulationSeedSize())
			ss1, ct1, err1 := hybridtest.Encapsulate(ek, random)
			ss2, ct2, err2 := hybridtest.Encapsulate(dk.EncapsulationKey(), random)
			if err1 != nil || err2 != nil || !bytes.Equal(ss1, ss2) || !bytes.Equal(ct1, ct2) {
				t.Fatalf("hybridtest.Encapsulate is not deterministic: %v, %v", err1, err2)
			}
			if !bytes.Equal(mustDecapsulate(t, dk, ct1), ss1) {
				t.Fatal("Decapsulate does not recover a derandomized shared key")
			}
		}
	})
}

// mlkemPartOffset returns where the ML-KEM part of an encapsulation key
// (ct false) or ciphertext (ct true) starts, and its size.
func mlkemPartOffset(k *hybrid.KEM, ct bool) (off, n int) {
	pqEK := map[string][2]int{"X-Wing": {1184, 1088}, "MLKEM768-P256": {1184, 1088}, "MLKEM1024-P384": {1568, 1568},
		"X25519MLKEM768": {1184, 1088}, "SecP256r1MLKEM768": {1184, 1088}, "SecP384r1MLKEM1024": {1568, 1568},
		"ML-KEM-512": {800, 768}, "ML-KEM-768": {1184, 1088}, "ML-KEM-1024": {1568, 1568}}[k.Name()]
	total, n := k.EncapsulationKeySize(), pqEK[0]
	if ct {
		total, n = k.CiphertextSize(), pqEK[1]
	}
	if strings.HasPrefix(k.Name(), "SecP") {
		return total - n, n
	}
	return 0, n
}

// TestImplicitRejection: a modified ciphertext that is still well formed
// decapsulates, without an error, to another key.
func TestImplicitRejection(t *testing.T) {
	forEachKEM(t, func(t *testing.T, k *hybrid.KEM) {
		dk, _ := k.GenerateKey()
		ss, ct := dk.EncapsulationKey().Encapsulate()
		off, _ := mlkemPartOffset(k, true)
		ct[off] ^= 1
		got, err := dk.Decapsulate(ct)
		if err != nil {
			t.Fatalf("Decapsulate of a modified ML-KEM ciphertext: %v", err)
		}
		if bytes.Equal(got, ss) {
			t.Fatal("a modified ciphertext gave the same shared key")
		}
	})
}

// TestTLSLayout computes the shared secret of the TLS groups from its
// parts with crypto/mlkem and crypto/ecdh, as draft-ietf-tls-ecdhe-mlkem
// lays them out: X25519MLKEM768 has the ML-KEM part first in the key
// shares and the secret, the NIST-curve groups the ECDH part first.
func TestTLSLayout(t *testing.T) {
	for _, c := range []struct {
		k       *hybrid.KEM
		curve   ecdh.Curve
		ecFirst bool
		// scalar, point sizes
		ns, np int
	}{
		{hybrid.X25519MLKEM768(), ecdh.X25519(), false, 32, 32},
		{hybrid.SecP256r1MLKEM768(), ecdh.P256(), true, 32, 65},
		{hybrid.SecP384r1MLKEM1024(), ecdh.P384(), true, 48, 97},
	} {
		t.Run(c.k.Name(), func(t *testing.T) {
			dk, _ := c.k.GenerateKey()
			seed, ek := dk.Bytes(), dk.EncapsulationKey().Bytes()
			ss, ct := dk.EncapsulationKey().Encapsulate()
			split := func(b []byte, ecLen int) (pq, ec []byte) {
				if c.ecFirst {
					return b[ecLen:], b[:ecLen]
				}
				return b[:len(b)-ecLen], b[len(b)-ecLen:]
			}
			pqSeed, ecSeed := split(seed, c.ns)
			pqEK, ecEK := split(ek, c.np)
			pqCT, ecCT := split(ct, c.np)

			var pqSS, pqEKWant []byte
			var err error
			if c.k == hybrid.SecP384r1MLKEM1024() {
				std, _ := stdmlkem.NewDecapsulationKey1024(pqSeed)
				pqEKWant = std.EncapsulationKey().Bytes()
				pqSS, err = std.Decapsulate(pqCT)
			} else {
				std, _ := stdmlkem.NewDecapsulationKey768(pqSeed)
				pqEKWant = std.EncapsulationKey().Bytes()
				pqSS, err = std.Decapsulate(pqCT)
			}
			if err != nil {
				t.Fatal(err)
			}
			ecKey, err := c.curve.NewPrivateKey(ecSeed)
			if err != nil {
				t.Fatal(err)
			}
			peer, err := c.curve.NewPublicKey(ecCT)
			if err != nil {
				t.Fatal(err)
			}
			ecSS, err := ecKey.ECDH(peer)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(pqEK, pqEKWant) || !bytes.Equal(ecEK, ecKey.PublicKey().Bytes()) {
				t.Fatal("the key share is not the two public keys in order")
			}
			wantPQ, wantEC := split(ss, len(ecSS))
			if !bytes.Equal(wantPQ, pqSS) || !bytes.Equal(wantEC, ecSS) {
				t.Fatal("the shared secret is not the two secrets in order")
			}
		})
	}
}

// --- bad input ---

func wantError(t *testing.T, what string, err error, want ...string) {
	t.Helper()
	if err == nil {
		t.Errorf("%s: no error", what)
		return
	}
	if !strings.HasPrefix(err.Error(), "hybrid: ") {
		t.Errorf("%s: error %q does not start with \"hybrid: \"", what, err)
	}
	for _, w := range want {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("%s: error %q does not say %q", what, err, w)
		}
	}
}

func TestWrongLengths(t *testing.T) {
	forEachKEM(t, func(t *testing.T, k *hybrid.KEM) {
		ekWhat := "encapsulation key"
		if _, ok := k.TLSGroup(); ok {
			ekWhat = "key share"
		}
		dk, _ := k.GenerateKey()
		ek := dk.EncapsulationKey()
		for _, d := range []int{-k.EncapsulationKeySize(), -1, 1} {
			n := k.EncapsulationKeySize() + d
			_, err := k.NewEncapsulationKey(make([]byte, n))
			wantError(t, "NewEncapsulationKey", err,
				fmt.Sprintf("hybrid: %s: invalid %s length %d, want %d", k.Name(), ekWhat, n, k.EncapsulationKeySize()))
		}
		for _, d := range []int{-k.CiphertextSize(), -1, 1} {
			n := k.CiphertextSize() + d
			_, err := dk.Decapsulate(make([]byte, n))
			wantError(t, "Decapsulate", err,
				fmt.Sprintf("hybrid: %s: invalid ciphertext length %d, want %d", k.Name(), n, k.CiphertextSize()))
		}
		for _, d := range []int{-k.SeedSize(), -1, 1} {
			n := k.SeedSize() + d
			_, err := k.NewDecapsulationKey(make([]byte, n))
			wantError(t, "NewDecapsulationKey", err, fmt.Sprintf("length %d, want %d", n, k.SeedSize()))
		}
		for _, d := range []int{-k.EncapsulationSeedSize(), -1, 1} {
			n := k.EncapsulationSeedSize() + d
			_, _, err := hybridtest.Encapsulate(ek, make([]byte, n))
			want := fmt.Sprintf("hybridtest: invalid %s encapsulation randomness length %d, want %d", k.Name(), n, k.EncapsulationSeedSize())
			if err == nil || err.Error() != want {
				t.Errorf("hybridtest.Encapsulate with %d bytes: error %v, want %q", n, err, want)
			}
		}
	})
	// The message the issue asks for, word for word.
	_, err := hybrid.X25519MLKEM768().NewEncapsulationKey(make([]byte, 1215))
	if err == nil || err.Error() != "hybrid: X25519MLKEM768: invalid key share length 1215, want 1216" {
		t.Errorf("short X25519MLKEM768 key share: error %v", err)
	}
	if _, err := hybrid.X25519MLKEM768().DeriveKeyPair(make([]byte, 32)); err == nil {
		t.Error("DeriveKeyPair of a TLS group did not fail")
	}
}

// TestBadMLKEMKey: an ML-KEM part with a coefficient not reduced modulo q
// is rejected (FIPS 203 section 7.2).
func TestBadMLKEMKey(t *testing.T) {
	forEachKEM(t, func(t *testing.T, k *hybrid.KEM) {
		dk, _ := k.GenerateKey()
		ek := dk.EncapsulationKey().Bytes()
		off, _ := mlkemPartOffset(k, false)
		ek[off], ek[off+1] = 0xff, 0xff
		_, err := k.NewEncapsulationKey(ek)
		wantError(t, "NewEncapsulationKey with an unreduced ML-KEM coefficient", err, k.Name(), "ML-KEM")
	})
}

// badPoints returns encodings that are not valid public keys of the curve
// of k, made from a valid point p of the right length.
func badPoints(k *hybrid.KEM, p []byte) map[string][]byte {
	n := len(p)
	bad := map[string][]byte{}
	if n == 32 { // X25519: the points of small order (RFC 7748 section 6.1 and the usual blocklist).
		for i, h := range []string{
			"0000000000000000000000000000000000000000000000000000000000000000", // 0: the identity's u
			"0100000000000000000000000000000000000000000000000000000000000000", // 1
			"e0eb7a7c3b41b8ae1656e3faf19fc46ada098deb9c32b1fd866205165f49b800", // order 8
			"5f9c95bca3508c24b1d0b1559c83ef5b04445cc4581c8e86d8224eddd09f1157", // order 8
			"ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f", // p - 1
			"edffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f", // p, non-canonical 0
			"eeffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f", // p + 1, non-canonical 1
		} {
			b, _ := hex.DecodeString(h)
			bad[fmt.Sprintf("X25519 low-order point %d", i)] = b
		}
		return bad
	}
	offCurve := bytes.Clone(p)
	offCurve[n-1] ^= 1
	bad["point not on the curve"] = offCurve
	bad["identity as 04 || 0...0"] = append([]byte{4}, make([]byte, n-1)...)
	bad["identity as 00 || padding"] = make([]byte, n)
	compressed := make([]byte, n)
	copy(compressed, p[:1+(n-1)/2])
	compressed[0] = 2 | p[n-1]&1
	bad["compressed point, padded"] = compressed
	hybridX := bytes.Clone(p)
	hybridX[0] = 6 | p[n-1]&1
	bad["hybrid encoding (06/07)"] = hybridX
	return bad
}

// TestBadPoints: invalid elliptic-curve points in an encapsulation key or
// a ciphertext are rejected, naming the curve and the KEM. It runs on the
// six hybrids: the HPKE ML-KEM KEMs have no point.
func TestBadPoints(t *testing.T) {
	forEachKEMIn(t, hybrid.All(), func(t *testing.T, k *hybrid.KEM) {
		off, pqLen := mlkemPartOffset(k, false)
		ecLen := k.EncapsulationKeySize() - pqLen
		if ecLen == 0 {
			t.Fatal("no elliptic-curve part")
		}
		ecOff := pqLen
		if off > 0 {
			ecOff = 0
		}
		dk, _ := k.GenerateKey()
		ek := dk.EncapsulationKey().Bytes()
		_, ct := dk.EncapsulationKey().Encapsulate()
		ctOff := ecOff
		if ecOff != 0 {
			ctOff = k.CiphertextSize() - ecLen
		}
		for what, p := range badPoints(k, ek[ecOff:ecOff+ecLen]) {
			badEK := bytes.Clone(ek)
			copy(badEK[ecOff:], p)
			_, err := k.NewEncapsulationKey(badEK)
			wantError(t, "NewEncapsulationKey with a "+what, err, k.Name(), "point in")

			badCT := bytes.Clone(ct)
			copy(badCT[ctOff:], p)
			_, err = dk.Decapsulate(badCT)
			wantError(t, "Decapsulate with a "+what, err, k.Name())
		}
	})
}

// TestBadTLSPrivateKey: a TLS group's decapsulation key whose scalar is
// not a valid private key is rejected.
func TestBadTLSPrivateKey(t *testing.T) {
	for _, k := range []*hybrid.KEM{hybrid.SecP256r1MLKEM768(), hybrid.SecP384r1MLKEM1024()} {
		ns := k.SeedSize() - 64
		for _, scalar := range [][]byte{make([]byte, ns), bytes.Repeat([]byte{0xff}, ns)} {
			seed := append(bytes.Clone(scalar), randomBytes(64)...)
			_, err := k.NewDecapsulationKey(seed)
			wantError(t, k.Name()+" key with scalar "+hex.EncodeToString(scalar[:4]), err, k.Name(), "private key")
		}
	}
}

// TestEncapsulationCandidates: MLKEM768-P256's derandomized encapsulation
// takes the first valid scalar among its three candidates, and fails only
// if none is valid.
func TestEncapsulationCandidates(t *testing.T) {
	k := hybrid.MLKEM768P256()
	dk, _ := k.GenerateKey()
	ek := dk.EncapsulationKey()
	m, good := randomBytes(32), randomBytes(32)
	invalid := bytes.Repeat([]byte{0xff}, 32) // not less than the order
	_, want, err := hybridtest.Encapsulate(ek, bytes.Join([][]byte{m, good, invalid, invalid}, nil))
	if err != nil {
		t.Fatal(err)
	}
	_, got, err := hybridtest.Encapsulate(ek, bytes.Join([][]byte{m, invalid, invalid, good}, nil))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Error("the third candidate was not used after two invalid ones")
	}
	_, _, err = hybridtest.Encapsulate(ek, bytes.Join([][]byte{m, invalid, invalid, invalid}, nil))
	wantError(t, "three invalid candidates", err, "no valid P-256 scalar")
}
