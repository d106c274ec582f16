package nistdrbg

import (
	"encoding/hex"
	"strings"
	"testing"
)

// The first seeds of every NIST PQC KAT file: entropy[i] = i, then 48-byte
// draws. Count 0 and 1 of any PQCkemKAT_*.rsp.
func TestSeedList(t *testing.T) {
	var entropy [SeedSize]byte
	for i := range entropy {
		entropy[i] = byte(i)
	}
	d := New(entropy[:], nil)
	want := []string{
		"061550234D158C5EC95595FE04EF7A25767F2E24CC2BC479D09D86DC9ABCFDE7056A8C266F9EF97ED08541DBD2E1FFA1",
		"D81C4D8D734FCBFBEADE3D3F8A039FAA2A2C9957E835AD55B22E75BF57BB556AC81ADDE6AEEB4A5A875C3BFCADFA958F",
	}
	for i, w := range want {
		got := strings.ToUpper(hex.EncodeToString(d.Bytes(48)))
		if got != w {
			t.Errorf("seed %d = %s, want %s", i, got, w)
		}
	}
}

func TestPanics(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("New with a short entropy input did not panic")
		}
	}()
	New(make([]byte, 47), nil)
}
