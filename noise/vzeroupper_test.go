package noise

import (
	"testing"

	"github.com/pqkem/pqkem/internal/vzeroupper"
)

// TestChaChaPolyCleanAfterOpen checks that a ChaChaPoly CipherState leaves
// the AVX upper state clean after decrypting the lengths on which
// x/crypto's amd64 Open leaves it dirty (see internal/vzeroupper), and
// that without the workaround only those lengths leave it dirty (all of
// them, where x/crypto runs its AVX2 code).
func TestChaChaPolyCleanAfterOpen(t *testing.T) {
	key := make([]byte, keySize)
	dirtyLengths := map[int]bool{}
	lengths := []int{64, 576, 1024, 1087, 1088, 1089, 1184, 1600, 4160}
	for _, n := range lengths {
		for _, on := range []bool{true, false} {
			var enc, dec CipherState
			if err := enc.initializeKey(ChaChaPoly, key); err != nil {
				t.Fatal(err)
			}
			dec.initializeKey(ChaChaPoly, key)
			msg, err := enc.encryptWithAd(nil, nil, make([]byte, n))
			if err != nil {
				t.Fatal(err)
			}
			out := make([]byte, 0, n)
			restore := SetClearUpperAfterOpen(on)
			_, err = dec.decryptWithAd(out, nil, msg)
			dirty := vzeroupper.Dirty()
			restore()
			if err != nil {
				t.Fatal(err)
			}
			switch {
			case on && dirty:
				t.Errorf("%d bytes: dirty after decrypting with the workaround", n)
			case dirty && (n <= 320 || n%512 != 64):
				t.Errorf("%d bytes: dirty after decrypting without the workaround", n)
			case dirty:
				dirtyLengths[n] = true
			}
		}
	}
	if len(dirtyLengths) > 0 {
		for _, n := range lengths {
			if n > 320 && n%512 == 64 && !dirtyLengths[n] {
				t.Errorf("%d bytes: clean after decrypting without the workaround", n)
			}
		}
	}
	t.Logf("lengths dirty without the workaround: %v", dirtyLengths)
}
