//go:build amd64 && !purego

package vzeroupper

import (
	"testing"

	"golang.org/x/crypto/chacha20poly1305"
)

// TestDirtyAfterOpen checks, for every plaintext length up to 2,200
// bytes, that x/crypto's Open leaves the YMM upper halves dirty exactly
// when dirtyAfterOpen says so, and that AfterOpen cleans them.
func TestDirtyAfterOpen(t *testing.T) {
	if !useAVX2 {
		t.Skip("x/crypto does not run its AVX2 code on this CPU")
	}
	aead, err := chacha20poly1305.New(make([]byte, chacha20poly1305.KeySize))
	if err != nil {
		t.Fatal(err)
	}
	nonce := make([]byte, chacha20poly1305.NonceSize)
	pt := make([]byte, 2200)
	for i := range pt {
		pt[i] = byte(i)
	}
	ct := aead.Seal(nil, nonce, pt, nil)
	dst := make([]byte, len(pt))
	_, hasXinuse := xinuse()
	for n := 0; n <= len(pt); n++ {
		msg := aead.Seal(ct[:0], nonce, pt[:n], nil)

		if _, err := aead.Open(dst[:0], nonce, msg, nil); err != nil {
			t.Fatalf("%d bytes: %v", n, err)
		}
		upper := upperHalves()
		if dirty := upper != 0; dirty != dirtyAfterOpen(n) {
			t.Errorf("%d bytes: upper halves %#x after Open, want dirty %v", n, upper, dirtyAfterOpen(n))
		}

		if hasXinuse {
			aead.Open(dst[:0], nonce, msg, nil)
			v, _ := xinuse()
			if dirty := v&4 != 0; dirty != dirtyAfterOpen(n) {
				t.Errorf("%d bytes: XINUSE %#x after Open, want bit 2 %v", n, v, dirtyAfterOpen(n))
			}
		}

		aead.Open(dst[:0], nonce, msg, nil)
		AfterOpen(n)
		if upper := upperHalves(); upper != 0 {
			t.Errorf("%d bytes: upper halves %#x after Open and AfterOpen", n, upper)
		}
		if hasXinuse {
			aead.Open(dst[:0], nonce, msg, nil)
			AfterOpen(n)
			if v, _ := xinuse(); v&4 != 0 {
				t.Errorf("%d bytes: XINUSE %#x after Open and AfterOpen", n, v)
			}
		}

		// A forged message takes the same path; x/crypto then zeroes the
		// output with the runtime's memclr, which cleans the state for
		// some lengths (576 to 1600) but not all (2112).
		msg[len(msg)-1] ^= 1
		if _, err := aead.Open(dst[:0], nonce, msg, nil); err == nil {
			t.Fatalf("%d bytes: forged message opened", n)
		}
		AfterOpen(n)
		if upper := upperHalves(); upper != 0 {
			t.Errorf("%d bytes: upper halves %#x after a failed Open and AfterOpen", n, upper)
		}
	}
	t.Logf("XINUSE available: %v", hasXinuse)
}
