package hybrid

import (
	"crypto/ecdh"
	"encoding/hex"
	"math/big"
	"math/rand/v2"
	"testing"
)

// TestX25519SmallOrder checks x25519SmallOrder against what it stands for:
// an X25519 exchange with the point gives all zeros (crypto/ecdh reports
// an error), for a fixed scalar and a random one, on the small-order
// points with and without the ignored top bit, their neighbours, every
// non-canonical encoding (u = p .. 2^255-1), small u, and random u.
func TestX25519SmallOrder(t *testing.T) {
	r := rand.New(rand.NewPCG(25519, 7748))
	fixed := make([]byte, 32)
	fixed[0] = 1
	random := make([]byte, 32)
	for i := range random {
		random[i] = byte(r.Uint32())
	}
	var keys []*ecdh.PrivateKey
	for _, b := range [][]byte{fixed, random} {
		k, err := ecdh.X25519().NewPrivateKey(b)
		if err != nil {
			t.Fatal(err)
		}
		keys = append(keys, k)
	}
	allZero := func(u []byte) bool {
		pk, err := ecdh.X25519().NewPublicKey(u)
		if err != nil {
			t.Fatalf("crypto/ecdh rejects the X25519 public key %x: %v", u, err)
		}
		var zero []bool
		for _, k := range keys {
			_, err := k.ECDH(pk)
			zero = append(zero, err != nil)
		}
		if zero[0] != zero[1] {
			t.Fatalf("%x: the two scalars disagree on all zeros", u)
		}
		return zero[0]
	}
	encode := func(x *big.Int) []byte {
		b := x.FillBytes(make([]byte, 32))
		for i := range 16 {
			b[i], b[31-i] = b[31-i], b[i]
		}
		return b
	}
	p := new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), 255), big.NewInt(19))
	var cands [][]byte
	for _, u := range x25519SmallOrderU {
		x := new(big.Int).SetBytes(reverse(u[:]))
		for d := -3; d <= 3; d++ {
			y := new(big.Int).Add(x, big.NewInt(int64(d)))
			if y.Sign() >= 0 && y.BitLen() <= 255 {
				cands = append(cands, encode(y))
			}
		}
	}
	for d := range 19 { // p .. 2^255-1: every non-canonical encoding
		cands = append(cands, encode(new(big.Int).Add(p, big.NewInt(int64(d)))))
	}
	for u := range 300 {
		cands = append(cands, encode(big.NewInt(int64(u))))
	}
	for range 2000 {
		b := make([]byte, 32)
		for i := range b {
			b[i] = byte(r.Uint32())
		}
		cands = append(cands, b)
	}
	// Every listed u is of small order (so the comparison below is not
	// vacuous), with the top bit clear or set.
	for _, u := range x25519SmallOrderU {
		for _, top := range []byte{0, 0x80} {
			v := u
			v[31] |= top
			if !allZero(v[:]) {
				t.Errorf("listed u = %x: the X25519 output is not all zeros", v)
			}
		}
	}
	for _, c := range cands {
		for _, top := range []byte{0, 0x80} {
			u := append([]byte(nil), c...)
			u[31] = u[31]&0x7f | top
			if got, want := x25519SmallOrder(u), allZero(u); got != want {
				t.Errorf("u = %s: x25519SmallOrder %v, X25519 output all zeros %v", hex.EncodeToString(u), got, want)
			}
		}
	}
}

func reverse(b []byte) []byte {
	r := make([]byte, len(b))
	for i := range b {
		r[len(b)-1-i] = b[i]
	}
	return r
}
