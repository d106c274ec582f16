package noise

import (
	"bytes"
	"encoding"
	"testing"

	"github.com/pqkem/pqkem/kem"
)

// appendKey appends what Bytes returns, through AppendBinary where the key
// has it (FrodoKEM) and Bytes where not (ML-KEM); encryptAndHashKey and
// mixHashKey match encryptAndHash and mixHash of Bytes.
func TestAppendKey(t *testing.T) {
	for _, name := range []string{"FrodoKEM-640-AES", "ML-KEM-768"} {
		s, err := kem.ByName(name)
		if err != nil {
			t.Fatal(err)
		}
		dk, err := s.GenerateKey()
		if err != nil {
			t.Fatal(err)
		}
		ek := dk.EncapsulationKey()
		_, appender := ek.(encoding.BinaryAppender)
		if appender != (name == "FrodoKEM-640-AES") {
			t.Fatalf("%s: encoding.BinaryAppender %v", name, appender)
		}
		if got := appendKey([]byte("x"), ek); !bytes.Equal(got, append([]byte("x"), ek.Bytes()...)) {
			t.Fatalf("%s: appendKey differs from Bytes", name)
		}
		p := Protocol{Pattern: PQXX, KEM: s, Cipher: AESGCM, Hash: SHA256}
		for _, keyed := range []bool{false, true} {
			var a, b symmetricState
			a.initializeSymmetric(p, p.String())
			b.initializeSymmetric(p, p.String())
			if keyed {
				for _, ss := range []*symmetricState{&a, &b} {
					if err := ss.mixKey([]byte("shared key")); err != nil {
						t.Fatal(err)
					}
				}
			}
			out1, err1 := a.encryptAndHashKey([]byte("hdr"), ek)
			out2, err2 := b.encryptAndHash([]byte("hdr"), ek.Bytes())
			if err1 != nil || err2 != nil || !bytes.Equal(out1, out2) || a.h != b.h {
				t.Fatalf("%s, keyed %v: encryptAndHashKey differs from encryptAndHash(Bytes): %v, %v", name, keyed, err1, err2)
			}
			a.mixHashKey(ek)
			b.mixHash(ek.Bytes())
			if a.h != b.h {
				t.Fatalf("%s: mixHashKey differs from mixHash(Bytes)", name)
			}
		}
	}
}
