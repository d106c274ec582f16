package hybrid_test

import (
	"bytes"
	"testing"

	"github.com/pqkem/pqkem/hybrid"
	"github.com/pqkem/pqkem/hybrid/hybridtest"
	"github.com/pqkem/pqkem/internal/vectors"
)

// checkVector checks one known answer: the key made by derive, its
// encoding and public key, derandomized encapsulation with random (if not
// nil) and decapsulation of ct.
func checkVector(t *testing.T, k *hybrid.KEM, derive func() (*hybrid.DecapsulationKey, error), sk, pk, random, ct, ss []byte) {
	t.Helper()
	dk, err := derive()
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(dk.Bytes(), sk) {
		t.Errorf("decapsulation key = %x, want %x", dk.Bytes(), sk)
	}
	if !bytes.Equal(dk.EncapsulationKey().Bytes(), pk) {
		t.Fatalf("encapsulation key differs from the vector's")
	}
	ek, err := k.NewEncapsulationKey(pk)
	if err != nil {
		t.Fatal(err)
	}
	if random != nil {
		gotSS, gotCT, err := hybridtest.Encapsulate(ek, random)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(gotCT, ct) {
			t.Errorf("ciphertext differs from the vector's")
		}
		if !bytes.Equal(gotSS, ss) {
			t.Errorf("encapsulated shared key = %x, want %x", gotSS, ss)
		}
	}
	got, err := dk.Decapsulate(ct)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, ss) {
		t.Errorf("decapsulated shared key = %x, want %x", got, ss)
	}
}

// TestXWingVectors checks the X-Wing draft's test vectors.
func TestXWingVectors(t *testing.T) {
	const file = "xwing/test-vectors.json"
	var tvs []struct {
		Seed, Sk, Pk, Eseed, Ct, Ss vectors.HexBytes
	}
	vectors.ReadJSON(t, file, &tvs)
	if len(tvs) != 3 {
		t.Fatalf("%s has %d vectors, want 3", file, len(tvs))
	}
	k := hybrid.MLKEM768X25519()
	for i, tv := range tvs {
		derive := func() (*hybrid.DecapsulationKey, error) { return k.NewDecapsulationKey(tv.Seed) }
		t.Logf("vector %d", i)
		checkVector(t, k, derive, tv.Sk, tv.Pk, tv.Eseed, tv.Ct, tv.Ss)
	}
}

// hpkeVector is one entry of the standard library's
// crypto/hpke/testdata/hpke-pq.json, with the fields these tests use.
type hpkeVector struct {
	Mode           int              `json:"mode"`
	KEMID          uint16           `json:"kem_id"`
	KDFID          uint16           `json:"kdf_id"`
	AEADID         uint16           `json:"aead_id"`
	Info           vectors.HexBytes `json:"info"`
	IkmE           vectors.HexBytes `json:"ikmE"`
	IkmR           vectors.HexBytes `json:"ikmR"`
	SkRm           vectors.HexBytes `json:"skRm"`
	PkRm           vectors.HexBytes `json:"pkRm"`
	Enc            vectors.HexBytes `json:"enc"`
	SharedSecret   vectors.HexBytes `json:"shared_secret"`
	ExporterSecret vectors.HexBytes `json:"exporter_secret"`
	Exports        []struct {
		Context vectors.HexBytes `json:"exporter_context"`
		L       int              `json:"L"`
		Value   vectors.HexBytes `json:"exported_value"`
	} `json:"exports"`
}

// readHPKEVectors reads hpke-pq.json, a copy of the Go distribution's
// crypto/hpke/testdata/hpke-pq.json.
func readHPKEVectors(t *testing.T) []hpkeVector {
	t.Helper()
	var tvs []hpkeVector
	vectors.ReadJSONLax(t, "hpke/hpke-pq.json", &tvs)
	return tvs
}

// TestHPKEVectors checks every vector of hpke-pq.json whose KEM this
// package implements: DeriveKeyPair(ikmR) gives skRm and pkRm,
// decapsulating enc gives shared_secret, and derandomized encapsulation
// with ikmE gives enc and shared_secret.
func TestHPKEVectors(t *testing.T) {
	seen := map[uint16]int{}
	for _, tv := range readHPKEVectors(t) {
		k, ok := hybrid.ByHPKEID(tv.KEMID)
		if !ok {
			continue
		}
		seen[tv.KEMID]++
		t.Run(k.Name(), func(t *testing.T) {
			if tv.Mode != 0 {
				t.Skipf("mode %d", tv.Mode)
			}
			derive := func() (*hybrid.DecapsulationKey, error) { return k.DeriveKeyPair(tv.IkmR) }
			checkVector(t, k, derive, tv.SkRm, tv.PkRm, tv.IkmE, tv.Enc, tv.SharedSecret)
		})
	}
	for _, id := range []uint16{hybrid.HPKEMLKEM512, hybrid.HPKEMLKEM768, hybrid.HPKEMLKEM1024,
		hybrid.HPKEMLKEM768P256, hybrid.HPKEMLKEM1024P384, hybrid.HPKEXWing} {
		if seen[id] == 0 {
			t.Errorf("no vector for KEM %#04x", id)
		}
	}
	t.Logf("vectors per KEM id: %v", seen)
}
