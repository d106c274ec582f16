package pake

import (
	"bytes"
	"crypto/sha3"
	"encoding/hex"
	"fmt"
	"testing"

	"github.com/pqkem/pqkem/internal/vectors"
)

const (
	noicFile  = "tempo/pake_noic.json"
	tempoFile = "tempo/pake_tempo.json"
)

type hexBytes []byte

func (h *hexBytes) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		*h = nil
		return nil
	}
	if len(b) < 2 || b[0] != '"' || b[len(b)-1] != '"' {
		return fmt.Errorf("not a hex string: %s", b)
	}
	v, err := hex.DecodeString(string(b[1 : len(b)-1]))
	*h = v
	return err
}

type pakeVector struct {
	Protocol           string `json:"protocol"`
	Samplentt          string `json:"samplentt"`
	SamplenttIdentical string `json:"samplentt_identical_to"`
	SamplenttUsedFor   string `json:"samplentt_used_for"`
	ParameterSet       string `json:"parameter_set"`
	K                  int    `json:"k"`
	Case               int    `json:"case"`
	Input              struct {
		Pw, Sid, D, Z, Nonce, M hexBytes
	} `json:"input"`
	Intermediate struct {
		MaskSeed     hexBytes `json:"mask_seed"`
		RhoMask      hexBytes `json:"rho_mask"`
		MaskVecHash  hexBytes `json:"mask_vec_encoded_sha3_256"`
		MaskVecFirst []int    `json:"mask_vec_poly0_first8"`
		NonceMask    hexBytes `json:"nonce_mask"`
		Ek           hexBytes `json:"ek"`
		DkHash       hexBytes `json:"dk_sha3_256"`
		K            hexBytes `json:"K"`
		Tag          hexBytes `json:"tag"`
	} `json:"intermediate"`
	Msg1             hexBytes `json:"msg1"`
	Msg2             hexBytes `json:"msg2"`
	SessionKey       hexBytes `json:"session_key"`
	InitiatorAccepts bool     `json:"initiator_accepts"`
	WrongPassword    struct {
		PwResponder         hexBytes `json:"pw_responder"`
		EkRecoveredHash     hexBytes `json:"ek_recovered_sha3_256"`
		KResponder          hexBytes `json:"K_responder"`
		Msg2                hexBytes `json:"msg2"`
		SessionKeyResponder hexBytes `json:"session_key_responder"`
		KInitiator          hexBytes `json:"K_initiator"`
		InitiatorAccepts    bool     `json:"initiator_accepts"`
		ArtifactReturn      int      `json:"artifact_initEnd_return"`
	} `json:"wrong_password"`
}

// TestVectors runs every transcript of pake_noic.json and pake_tempo.json
// through the low-level API with the vector's fixed randomness and checks
// everything byte for byte: msg1, msg2, the session key, the intermediates
// (mask seed, ρ mask, mask vector, nonce mask, ek, dk, K, tag), and the
// wrong-password run (recovered ek, both K, msg2, the responder's key, and
// the initiator's rejection). Each vector also runs with the sampler the
// file says is identical (NoIC-A1 on the A0 vectors, Tempo-A0 on the A1
// ones), and the Tempo ones are also checked against crypto/mlkem-style
// keys from package mlkem.
func TestVectors(t *testing.T) {
	vectors.Require(t, noicFile, tempoFile)
	var noic, tempo []pakeVector
	vectors.ReadJSON(t, noicFile, &noic)
	vectors.ReadJSON(t, tempoFile, &tempo)
	if len(noic) != 9 || len(tempo) != 6 {
		t.Fatalf("%d NoIC and %d Tempo vectors, want 9 and 6", len(noic), len(tempo))
	}
	count := 0
	forEachPath(t, func(t *testing.T) {
		for _, v := range append(noic, tempo...) {
			smps := []string{v.Samplentt}
			switch v.Samplentt {
			case "A0":
				smps = append(smps, "A1")
			case "A1":
				smps = append(smps, "A0")
			}
			for _, smp := range smps {
				name := fmt.Sprintf("%s-%s-ML-KEM-%d", v.Protocol, smp, 256*v.K)
				t.Run(name, func(t *testing.T) {
					s, err := SchemeByName(name)
					if err != nil {
						t.Fatal(err)
					}
					if v.ParameterSet != fmt.Sprintf("ML-KEM-%d", s.Level()) {
						t.Fatalf("parameter set %q", v.ParameterSet)
					}
					runVector(t, s, &v)
					count++
				})
			}
		}
	})
	t.Logf("%d vector runs", count)
}

func runVector(t *testing.T, s *Scheme, v *pakeVector) {
	eq := func(what string, got, want []byte) {
		t.Helper()
		if len(want) == 0 {
			t.Fatalf("%s: empty in the vector", what)
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("%s:\n got %x\nwant %x", what, got, want)
		}
	}
	hashEq := func(what string, data, want []byte) {
		t.Helper()
		h := sha3.Sum256(data)
		eq(what, h[:], want)
	}
	in := v.Input
	var seed [64]byte
	copy(seed[:], in.D)
	copy(seed[32:], in.Z)
	nonce := [32]byte(in.Nonce)
	m := [32]byte(in.M)

	// Intermediates the API computes internally.
	ms := s.maskSeeds(in.Pw, in.Sid, &nonce)
	eq("mask_seed", ms.s[:], v.Intermediate.MaskSeed)
	if s.Protocol() == NoIC {
		eq("rho_mask", ms.r[:], v.Intermediate.RhoMask)
	} else if v.Intermediate.RhoMask != nil {
		t.Fatal("Tempo vector with a rho_mask")
	}
	mask := maskVec(s.Sampler(), &ms.s, s.k)
	var enc []byte
	for i := range mask {
		enc = encode12(enc, &mask[i])
	}
	hashEq("mask_vec_encoded_sha3_256", enc, v.Intermediate.MaskVecHash)
	for i, c := range v.Intermediate.MaskVecFirst {
		if int(mask[0][i]) != c {
			t.Fatalf("mask_vec_poly0_first8[%d] = %d, want %d", i, mask[0][i], c)
		}
	}
	nm := s.nonceMask(in.Pw, in.Sid, v.Msg1)
	eq("nonce_mask", nm[:], v.Intermediate.NonceMask)

	// The run.
	st, msg1, err := s.start(in.Pw, in.Sid, &seed, &nonce)
	if err != nil {
		t.Fatal(err)
	}
	eq("ek", st.ek, v.Intermediate.Ek)
	hashEq("dk_sha3_256", st.dk.expandedBytes(), v.Intermediate.DkHash)
	eq("msg1", msg1, v.Msg1)
	ekr, _ := s.recoverKey(in.Pw, in.Sid, msg1)
	eq("recovered ek", ekr, v.Intermediate.Ek)
	K, _, err := s.backend.encapsulate(st.ek, &m, nil)
	if err != nil {
		t.Fatal(err)
	}
	eq("K", K, v.Intermediate.K)
	msg2, rkey, err := s.respond(in.Pw, in.Sid, msg1, &m)
	if err != nil {
		t.Fatal(err)
	}
	eq("msg2", msg2, v.Msg2)
	eq("tag", msg2[:32], v.Intermediate.Tag)
	eq("responder session_key", rkey, v.SessionKey)
	if !v.InitiatorAccepts {
		t.Fatal("vector says the initiator rejects the honest run")
	}
	ikey, err := st.Finish(msg2)
	if err != nil {
		t.Fatalf("Finish: %v", err)
	}
	eq("initiator session_key", ikey, v.SessionKey)

	// The wrong-password run: the responder with pw_responder on the same
	// msg1 and m.
	w := v.WrongPassword
	if w.InitiatorAccepts || w.ArtifactReturn != 1 {
		t.Fatal("vector says the initiator accepts a wrong password")
	}
	ekw, _ := s.recoverKey(w.PwResponder, in.Sid, msg1)
	hashEq("ek_recovered_sha3_256", ekw, w.EkRecoveredHash)
	Kw, _, err := s.backend.encapsulate(ekw, &m, nil)
	if err != nil {
		t.Fatal(err)
	}
	eq("K_responder", Kw, w.KResponder)
	msg2w, rkeyw, err := s.respond(w.PwResponder, in.Sid, msg1, &m)
	if err != nil {
		t.Fatal(err)
	}
	eq("wrong_password.msg2", msg2w, w.Msg2)
	eq("session_key_responder", rkeyw, w.SessionKeyResponder)
	st2, _, err := s.start(in.Pw, in.Sid, &seed, &nonce)
	if err != nil {
		t.Fatal(err)
	}
	Ki, err := st2.dk.decapsulate(msg2w[32:])
	if err != nil {
		t.Fatal(err)
	}
	eq("K_initiator", Ki, w.KInitiator)
	if key, err := st2.Finish(msg2w); err != ErrPasswordMismatch || key != nil {
		t.Fatalf("Finish with a wrong password: key %x, error %v", key, err)
	}
}

// encode12 is ByteEncode12 of a canonical polynomial.
func encode12(b []byte, f *[256]uint16) []byte {
	for i := 0; i < n; i += 2 {
		x, y := f[i], f[i+1]
		b = append(b, byte(x), byte(x>>8)|byte(y<<4), byte(y>>4))
	}
	return b
}
