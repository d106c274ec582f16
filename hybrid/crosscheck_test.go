package hybrid_test

import (
	"bytes"
	"crypto/hpke"
	"crypto/rand"
	"crypto/sha3"
	"testing"

	circlhybrid "github.com/cloudflare/circl/kem/hybrid"
	"github.com/cloudflare/circl/kem/xwing"

	"github.com/pqkem/pqkem/hybrid"
	"github.com/pqkem/pqkem/hybrid/hybridtest"
)

// crossChecks is how many random seeds each cross-check tries.
func crossChecks() int {
	if testing.Short() {
		return 100
	}
	return 1000
}

func randomBytes(n int) []byte {
	b := make([]byte, n)
	rand.Read(b)
	return b
}

func shake256(n int, in ...[]byte) []byte {
	h := sha3.NewSHAKE256()
	for _, b := range in {
		h.Write(b)
	}
	out := make([]byte, n)
	h.Read(out)
	return out
}

// mustDK makes a decapsulation key or fails the test.
func mustDK(t *testing.T, k *hybrid.KEM, seed []byte) *hybrid.DecapsulationKey {
	t.Helper()
	dk, err := k.NewDecapsulationKey(seed)
	if err != nil {
		t.Fatal(err)
	}
	return dk
}

// mustDecapsulate decapsulates ct or fails the test.
func mustDecapsulate(t *testing.T, dk *hybrid.DecapsulationKey, ct []byte) []byte {
	t.Helper()
	ss, err := dk.Decapsulate(ct)
	if err != nil {
		t.Fatal(err)
	}
	return ss
}

// TestCrossCheckCIRCLXWing compares X-Wing with CIRCL's kem/xwing on random
// seeds: the same keys from a seed, the same derandomized encapsulation,
// and each side decapsulates the other's random ciphertexts.
func TestCrossCheckCIRCLXWing(t *testing.T) {
	k := hybrid.MLKEM768X25519()
	for range crossChecks() {
		seed := randomBytes(xwing.SeedSize)
		dk := mustDK(t, k, seed)
		cSK, cPK := xwing.DeriveKeyPairPacked(seed)
		if !bytes.Equal(dk.Bytes(), cSK) || !bytes.Equal(dk.EncapsulationKey().Bytes(), cPK) {
			t.Fatalf("seed %x: keys differ from CIRCL's", seed)
		}

		eseed := randomBytes(xwing.EncapsulationSeedSize)
		ss, ct, err := hybridtest.Encapsulate(dk.EncapsulationKey(), eseed)
		if err != nil {
			t.Fatal(err)
		}
		cSS, cCT, err := xwing.Encapsulate(cPK, eseed)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(ss, cSS) || !bytes.Equal(ct, cCT) {
			t.Fatalf("seed %x, eseed %x: derandomized encapsulation differs from CIRCL's", seed, eseed)
		}

		ss, ct = dk.EncapsulationKey().Encapsulate()
		if !bytes.Equal(xwing.Decapsulate(ct, cSK), ss) {
			t.Fatalf("seed %x: CIRCL does not decapsulate our ciphertext", seed)
		}
		cSS, cCT, err = xwing.Encapsulate(cPK, nil)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(mustDecapsulate(t, dk, cCT), cSS) {
			t.Fatalf("seed %x: we do not decapsulate CIRCL's ciphertext", seed)
		}
	}
}

// TestCrossCheckCIRCLX25519MLKEM768 compares X25519MLKEM768 with CIRCL's
// kem/hybrid. CIRCL derives its keys and its derandomized encapsulation
// with a SHAKE-256 expansion of its own (no specification defines one for
// the TLS groups), which the test reproduces to get the component keys
// and randomness: the key share and the server share must then match byte
// for byte, and each side decapsulates the other's random ciphertexts.
func TestCrossCheckCIRCLX25519MLKEM768(t *testing.T) {
	k := hybrid.X25519MLKEM768()
	c := circlhybrid.X25519MLKEM768()
	for range crossChecks() {
		seed := randomBytes(c.SeedSize())
		cPK, cSK := c.DeriveKeyPair(seed)
		// CIRCL: SHAKE256(seed) = ML-KEM seed (64) || X25519 seed (32),
		// and the X25519 key is SHAKE256(X25519 seed)[:32].
		expanded := shake256(64+32, seed)
		xSK := shake256(32, expanded[64:])
		dk := mustDK(t, k, append(expanded[:64:64], xSK...))
		cPKBytes, _ := cPK.MarshalBinary()
		if !bytes.Equal(dk.EncapsulationKey().Bytes(), cPKBytes) {
			t.Fatalf("seed %x: key share differs from CIRCL's", seed)
		}

		// CIRCL: SHAKE256(eseed) = m (32) || X25519 seed (32), and the
		// ephemeral key is SHAKE256(X25519 seed)[:32].
		eseed := randomBytes(c.EncapsulationSeedSize())
		cCT, cSS, err := c.EncapsulateDeterministically(cPK, eseed)
		if err != nil {
			t.Fatal(err)
		}
		r := shake256(64, eseed)
		random := append(r[:32:32], shake256(32, r[32:])...)
		ss, ct, err := hybridtest.Encapsulate(dk.EncapsulationKey(), random)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(ss, cSS) || !bytes.Equal(ct, cCT) {
			t.Fatalf("seed %x, eseed %x: derandomized encapsulation differs from CIRCL's", seed, eseed)
		}

		ss, ct = dk.EncapsulationKey().Encapsulate()
		if got, err := c.Decapsulate(cSK, ct); err != nil || !bytes.Equal(got, ss) {
			t.Fatalf("seed %x: CIRCL does not decapsulate our ciphertext: %v", seed, err)
		}
		cCT, cSS, err = c.Encapsulate(cPK)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(mustDecapsulate(t, dk, cCT), cSS) {
			t.Fatalf("seed %x: we do not decapsulate CIRCL's ciphertext", seed)
		}
	}
}

// hpkeExport computes what an HPKE context in base mode with KDF SHAKE256
// (one-stage, draft-ietf-hpke-pq) exports, from the KEM shared secret:
// the key schedule done by hand, so that a shared secret the standard
// library keeps to itself can be compared through Export.
func hpkeExport(kemID, aeadID uint16, nk, nn int, sharedSecret, info, exporterContext []byte, length int) (exporterSecret, exported []byte) {
	const kdfSHAKE256 = 0x0011
	suiteID := []byte{'H', 'P', 'K', 'E', byte(kemID >> 8), byte(kemID), 0, kdfSHAKE256, byte(aeadID >> 8), byte(aeadID)}
	labeledDerive := func(ikm []byte, label string, context []byte, n int) []byte {
		return shake256(n, ikm, []byte("HPKE-v1"), suiteID, []byte{0, byte(len(label))}, []byte(label),
			[]byte{byte(n >> 8), byte(n)}, context)
	}
	secrets := append([]byte{0, 0, byte(len(sharedSecret) >> 8), byte(len(sharedSecret))}, sharedSecret...)
	ksContext := append([]byte{0, 0, 0, byte(len(info) >> 8), byte(len(info))}, info...)
	secret := labeledDerive(secrets, "secret", ksContext, nk+nn+64)
	exporterSecret = secret[nk+nn:]
	return exporterSecret, labeledDerive(exporterSecret, "sec", exporterContext, length)
}

// TestHPKEExportByHand checks hpkeExport against a vector of hpke-pq.json
// that uses KDF SHAKE256.
func TestHPKEExportByHand(t *testing.T) {
	checked := 0
	for _, tv := range readHPKEVectors(t) {
		if tv.KDFID != 0x0011 || tv.AEADID != 0x0003 || tv.Mode != 0 { // ChaCha20Poly1305: Nk 32, Nn 12
			continue
		}
		for _, e := range tv.Exports {
			es, got := hpkeExport(tv.KEMID, tv.AEADID, 32, 12, tv.SharedSecret, tv.Info, e.Context, e.L)
			if !bytes.Equal(es, tv.ExporterSecret) || !bytes.Equal(got, e.Value) {
				t.Fatalf("KEM %#04x: the key schedule by hand differs from the vector's", tv.KEMID)
			}
			checked++
		}
	}
	if checked == 0 {
		t.Fatal("no SHAKE256 vector with ChaCha20Poly1305 in hpke-pq.json")
	}
}

// TestCrossCheckStdlibHPKE compares every KEM that crypto/hpke also has
// (X-Wing, MLKEM768-P256, MLKEM1024-P384, ML-KEM-768, ML-KEM-1024) with it
// on random seeds: the same public key from the same private-key seed and
// from the same DeriveKeyPair input; and HPKE contexts in both directions,
// our ciphertext opened by a crypto/hpke Recipient holding the same key and
// a crypto/hpke Sender's enc decapsulated by us, whose exported secrets
// must equal those the key schedule derives from our shared key.
func TestCrossCheckStdlibHPKE(t *testing.T) {
	ks := []*hybrid.KEM{hybrid.MLKEM768X25519(), hybrid.MLKEM768P256(), hybrid.MLKEM1024P384(), hybrid.MLKEM768(), hybrid.MLKEM1024()}
	info := []byte("pqkem cross-check")
	const exporterContext = "pqkem"
	for _, k := range ks {
		id, _ := k.HPKEID()
		t.Run(k.Name(), func(t *testing.T) {
			std, err := hpke.NewKEM(id)
			if err != nil {
				t.Fatal(err)
			}
			export := func(ss []byte) []byte {
				_, out := hpkeExport(id, 0xFFFF, 0, 0, ss, info, []byte(exporterContext), 32)
				return out
			}
			// X-Wing gets the full count; the others, P-384 being slow,
			// a fifth of it.
			n := crossChecks()
			if k != hybrid.MLKEM768X25519() {
				n /= 5
			}
			for range n {
				seed := randomBytes(k.SeedSize())
				dk := mustDK(t, k, seed)
				stdKey, err := std.NewPrivateKey(seed)
				if err != nil {
					t.Fatal(err)
				}
				ekBytes := dk.EncapsulationKey().Bytes()
				if !bytes.Equal(stdKey.PublicKey().Bytes(), ekBytes) {
					t.Fatalf("seed %x: public key differs from crypto/hpke's", seed)
				}

				ikm := randomBytes(32)
				derived, err := k.DeriveKeyPair(ikm)
				if err != nil {
					t.Fatal(err)
				}
				stdDerived, err := std.DeriveKeyPair(ikm)
				if err != nil {
					t.Fatal(err)
				}
				stdSeed, err := stdDerived.Bytes()
				if err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(stdDerived.PublicKey().Bytes(), derived.EncapsulationKey().Bytes()) ||
					!bytes.Equal(stdSeed, derived.Bytes()) {
					t.Fatalf("ikm %x: DeriveKeyPair differs from crypto/hpke's", ikm)
				}

				// Our encapsulation, opened by crypto/hpke.
				ss, enc := dk.EncapsulationKey().Encapsulate()
				r, err := hpke.NewRecipient(enc, stdKey, hpke.SHAKE256(), hpke.ExportOnly(), info)
				if err != nil {
					t.Fatalf("crypto/hpke rejects our ciphertext: %v", err)
				}
				got, err := r.Export(exporterContext, 32)
				if err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(got, export(ss)) {
					t.Fatalf("seed %x: crypto/hpke decapsulates our ciphertext to another shared key", seed)
				}

				// crypto/hpke's encapsulation to our key, decapsulated by us.
				stdPub, err := std.NewPublicKey(ekBytes)
				if err != nil {
					t.Fatal(err)
				}
				enc, s, err := hpke.NewSender(stdPub, hpke.SHAKE256(), hpke.ExportOnly(), info)
				if err != nil {
					t.Fatal(err)
				}
				want, err := s.Export(exporterContext, 32)
				if err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(export(mustDecapsulate(t, dk, enc)), want) {
					t.Fatalf("seed %x: we decapsulate crypto/hpke's ciphertext to another shared key", seed)
				}
			}
		})
	}
}
