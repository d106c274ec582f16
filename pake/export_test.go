package pake

// The internals that the external tests (package pake_test, which can
// import paketest) check against the known-answer vectors.

var ForEachLevel = cpuLevels.ForEach

// MaskSeeds returns the mask seed s and, for NoIC, the ρ mask r.
func MaskSeeds(s *Scheme, pw, sid, nonce []byte) (ms, r []byte) {
	m := s.maskSeeds(pw, sid, (*[32]byte)(nonce))
	return m.s[:], m.r[:]
}

// EncodedMaskVec returns ByteEncode12 of the mask vector for the mask
// seed, and its first polynomial.
func EncodedMaskVec(s *Scheme, seed []byte) (enc []byte, first *[256]uint16) {
	mask := maskVec(s.sampler, (*[32]byte)(seed), s.k)
	for i := range mask {
		enc = encode12(enc, &mask[i])
	}
	return enc, &mask[0]
}

func NonceMask(s *Scheme, pw, sid, msg1 []byte) []byte {
	nm := s.nonceMask(pw, sid, msg1)
	return nm[:]
}

// RecoverKey is the encapsulation key the responder recovers from msg1.
func RecoverKey(s *Scheme, pw, sid, msg1 []byte) []byte {
	ek, _ := s.recoverKey(pw, sid, msg1)
	return ek
}

// Encapsulate is the KEM's encapsulation to ek with randomness m.
func Encapsulate(s *Scheme, ek, m []byte) (K, ct []byte, err error) {
	k, ct, err := s.encapsulate(ek, (*[32]byte)(m), nil)
	return k[:], ct, err
}

// EncapsulationKey and ExpandedDecapsulationKey are the initiator's
// ephemeral key pair; Decapsulate is its decapsulation.
func (in *Initiator) EncapsulationKey() []byte         { return in.ek }
func (in *Initiator) ExpandedDecapsulationKey() []byte { return in.dk.ExpandedBytes(nil) }
func (in *Initiator) Decapsulate(ct []byte) ([]byte, error) {
	var K [32]byte
	err := in.dk.Decapsulate(&K, ct)
	return K[:], err
}

// Key is the session key the responder holds before Finish releases it
// (the vectors give it for a wrong password too, which Finish never
// releases).
func (r *Responder) Key() []byte { return r.key[:] }

// encode12 is ByteEncode12 of a canonical polynomial.
func encode12(b []byte, f *[256]uint16) []byte {
	for i := 0; i < n; i += 2 {
		x, y := f[i], f[i+1]
		b = append(b, byte(x), byte(x>>8)|byte(y<<4), byte(y>>4))
	}
	return b
}
