package fips203

import (
	"bytes"
	"crypto/sha3"
	"testing"
)

// TestWithSamplerFIPS checks that WithSampler hands the sampler the FIPS 203
// seeds in the FIPS 203 order: with SampleNTT plugged in, keys, ciphertexts
// and shared keys equal those of the standard parameter sets.
func TestWithSamplerFIPS(t *testing.T) {
	for _, base := range []*Params{MLKEM512, MLKEM768, MLKEM1024} {
		calls := 0
		p := WithSampler(base, "test-"+base.Name(), func(out []*[256]uint16, seeds [][34]byte) {
			calls++
			if len(out) != base.k*base.k || len(seeds) != len(out) {
				t.Fatalf("%s: sampler got %d outputs, %d seeds, want %d", base.Name(), len(out), len(seeds), base.k*base.k)
			}
			for e := range out {
				var rho [32]byte
				copy(rho[:], seeds[e][:32])
				sampleNTT((*nttElement)(out[e]), &rho, seeds[e][32], seeds[e][33])
			}
		})
		if p.Name() != "test-"+base.Name() || base.Name() == p.Name() {
			t.Fatalf("name %q", p.Name())
		}
		d := sha3.Sum256([]byte("d " + base.Name()))
		z := sha3.Sum256([]byte("z " + base.Name()))
		m := sha3.Sum256([]byte("m " + base.Name()))
		var dk1, dk2 DecapsulationKey
		KeyGenInternal(&dk1, base, &d, &z)
		KeyGenInternal(&dk2, p, &d, &z)
		if calls != 1 {
			t.Fatalf("%s: sampler called %d times in KeyGen, want 1", base.Name(), calls)
		}
		if !bytes.Equal(dk1.ExpandedBytes(nil), dk2.ExpandedBytes(nil)) {
			t.Fatalf("%s: keys differ with SampleNTT plugged in", base.Name())
		}
		var ek EncapsulationKey
		if err := NewEncapsulationKey(&ek, p, dk2.EncapsulationKey().Bytes(nil)); err != nil {
			t.Fatal(err)
		}
		var K1, K2, K3 [SharedKeySize]byte
		c1 := dk1.EncapsulationKey().EncapsulateInternal(&K1, nil, &m)
		c2 := ek.EncapsulateInternal(&K2, nil, &m)
		if !bytes.Equal(c1, c2) || K1 != K2 {
			t.Fatalf("%s: encapsulation differs with SampleNTT plugged in", base.Name())
		}
		if err := dk2.Decapsulate(&K3, c2); err != nil || K3 != K2 {
			t.Fatalf("%s: decapsulation: %v", base.Name(), err)
		}
	}
}

// TestWithSamplerOther checks that another sampler changes the keys and
// still round-trips, and that the base parameter set is left alone.
func TestWithSamplerOther(t *testing.T) {
	p := WithSampler(MLKEM768, "ones", func(out []*[256]uint16, seeds [][34]byte) {
		for e := range out {
			for x := range out[e] {
				out[e][x] = uint16(seeds[e][x%34]) * 13 % q
			}
		}
	})
	var d, z, m [32]byte
	var dk1, dk2 DecapsulationKey
	KeyGenInternal(&dk1, MLKEM768, &d, &z)
	KeyGenInternal(&dk2, p, &d, &z)
	if bytes.Equal(dk1.EncapsulationKey().Bytes(nil), dk2.EncapsulationKey().Bytes(nil)) {
		t.Fatal("a different sampler gave the same encapsulation key")
	}
	if dk1.Params() != MLKEM768 || MLKEM768.Name() != "ML-KEM-768" {
		t.Fatal("WithSampler changed its base")
	}
	var K1, K2 [SharedKeySize]byte
	c := dk2.EncapsulationKey().EncapsulateInternal(&K1, nil, &m)
	if err := dk2.Decapsulate(&K2, c); err != nil || K1 != K2 {
		t.Fatalf("round trip with a custom sampler failed: %v", err)
	}
}
