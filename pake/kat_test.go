package pake_test

import (
	"bytes"
	"crypto/sha3"
	"fmt"
	"testing"

	"github.com/pqkem/pqkem/internal/vectors"
	"github.com/pqkem/pqkem/pake"
	"github.com/pqkem/pqkem/pake/paketest"
)

const (
	noicFile  = "tempo/pake_noic.json"
	tempoFile = "tempo/pake_tempo.json"
)

type pakeVector struct {
	Protocol           string `json:"protocol"`
	Samplentt          string `json:"samplentt"`
	SamplenttIdentical string `json:"samplentt_identical_to"`
	SamplenttUsedFor   string `json:"samplentt_used_for"`
	ParameterSet       string `json:"parameter_set"`
	K                  int    `json:"k"`
	Case               int    `json:"case"`
	Input              struct {
		Pw, Sid, D, Z, Nonce, M vectors.HexBytes
	} `json:"input"`
	Intermediate struct {
		MaskSeed     vectors.HexBytes `json:"mask_seed"`
		RhoMask      vectors.HexBytes `json:"rho_mask"`
		MaskVecHash  vectors.HexBytes `json:"mask_vec_encoded_sha3_256"`
		MaskVecFirst []int            `json:"mask_vec_poly0_first8"`
		NonceMask    vectors.HexBytes `json:"nonce_mask"`
		Ek           vectors.HexBytes `json:"ek"`
		DkHash       vectors.HexBytes `json:"dk_sha3_256"`
		K            vectors.HexBytes `json:"K"`
		Tag          vectors.HexBytes `json:"tag"`
	} `json:"intermediate"`
	Msg1             vectors.HexBytes `json:"msg1"`
	Msg2             vectors.HexBytes `json:"msg2"`
	SessionKey       vectors.HexBytes `json:"session_key"`
	InitiatorAccepts bool             `json:"initiator_accepts"`
	WrongPassword    struct {
		PwResponder         vectors.HexBytes `json:"pw_responder"`
		EkRecoveredHash     vectors.HexBytes `json:"ek_recovered_sha3_256"`
		KResponder          vectors.HexBytes `json:"K_responder"`
		Msg2                vectors.HexBytes `json:"msg2"`
		SessionKeyResponder vectors.HexBytes `json:"session_key_responder"`
		KInitiator          vectors.HexBytes `json:"K_initiator"`
		InitiatorAccepts    bool             `json:"initiator_accepts"`
		ArtifactReturn      int              `json:"artifact_initEnd_return"`
	} `json:"wrong_password"`
}

// TestVectors runs every transcript of pake_noic.json and pake_tempo.json
// through package paketest with the vector's fixed randomness and checks
// everything byte for byte: msg1, msg2, the session key of both parties,
// the intermediates (mask seed, ρ mask, mask vector, nonce mask, ek, dk,
// K, tag), and the wrong-password run (recovered ek, both K, msg2, the
// responder's key, and the initiator's rejection). Each vector also runs
// with the sampler the file says is identical (NoIC-A1 on the A0 vectors,
// Tempo-A0 on the A1 ones).
func TestVectors(t *testing.T) {
	vectors.Require(t, noicFile, tempoFile)
	var noic, tempo []pakeVector
	vectors.ReadJSON(t, noicFile, &noic)
	vectors.ReadJSON(t, tempoFile, &tempo)
	if len(noic) != 9 || len(tempo) != 6 {
		t.Fatalf("%d NoIC and %d Tempo vectors, want 9 and 6", len(noic), len(tempo))
	}
	count := 0
	pake.ForEachLevel(t, func(t *testing.T) {
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
					s := vectorScheme(t, name)
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

// vectorScheme returns the scheme named name, the A0 ones included (which
// ByName refuses).
func vectorScheme(t *testing.T, name string) *pake.Scheme {
	t.Helper()
	for _, s := range allSchemes() {
		if s.Name() == name {
			return s
		}
	}
	t.Fatalf("no scheme %s", name)
	return nil
}

// allSchemes returns every scheme, the ones with a0VariableTime included.
func allSchemes() []*pake.Scheme {
	var out []*pake.Scheme
	for _, level := range []int{512, 768, 1024} {
		for _, smp := range append([]pake.Sampler{paketest.A0VariableTime()}, pake.Samplers()...) {
			n, _ := paketest.NewNoIC(level, smp)
			tp, _ := paketest.NewTempo(level, smp)
			out = append(out, n, tp)
		}
	}
	return out
}

func runVector(t *testing.T, s *pake.Scheme, v *pakeVector) {
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

	// Intermediates the protocol computes internally.
	ms, r := pake.MaskSeeds(s, in.Pw, in.Sid, in.Nonce)
	eq("mask_seed", ms, v.Intermediate.MaskSeed)
	if s.Protocol() == pake.NoIC {
		eq("rho_mask", r, v.Intermediate.RhoMask)
	} else if v.Intermediate.RhoMask != nil {
		t.Fatal("Tempo vector with a rho_mask")
	}
	enc, first := pake.EncodedMaskVec(s, ms)
	hashEq("mask_vec_encoded_sha3_256", enc, v.Intermediate.MaskVecHash)
	if len(v.Intermediate.MaskVecFirst) == 0 {
		t.Fatal("mask_vec_poly0_first8: empty in the vector")
	}
	for i, c := range v.Intermediate.MaskVecFirst {
		if int(first[i]) != c {
			t.Fatalf("mask_vec_poly0_first8[%d] = %d, want %d", i, first[i], c)
		}
	}
	eq("nonce_mask", pake.NonceMask(s, in.Pw, in.Sid, v.Msg1), v.Intermediate.NonceMask)

	// The run, through paketest.
	st, msg1, err := paketest.Start(s, in.Pw, in.Sid, in.D, in.Z, in.Nonce)
	if err != nil {
		t.Fatal(err)
	}
	eq("ek", st.EncapsulationKey(), v.Intermediate.Ek)
	hashEq("dk_sha3_256", st.ExpandedDecapsulationKey(), v.Intermediate.DkHash)
	eq("msg1", msg1, v.Msg1)
	eq("recovered ek", pake.RecoverKey(s, in.Pw, in.Sid, msg1), v.Intermediate.Ek)
	K, _, err := pake.Encapsulate(s, st.EncapsulationKey(), in.M)
	if err != nil {
		t.Fatal(err)
	}
	eq("K", K, v.Intermediate.K)
	resp, msg2, err := paketest.Respond(s, in.Pw, in.Sid, msg1, in.M)
	if err != nil {
		t.Fatal(err)
	}
	eq("msg2", msg2, v.Msg2)
	eq("tag", msg2[:32], v.Intermediate.Tag)
	if !v.InitiatorAccepts {
		t.Fatal("vector says the initiator rejects the honest run")
	}
	ikey, msg3, err := st.Finish(msg2)
	if err != nil {
		t.Fatalf("Initiator.Finish: %v", err)
	}
	eq("initiator session_key", ikey, v.SessionKey)
	rkey, err := resp.Finish(msg3)
	if err != nil {
		t.Fatalf("Responder.Finish: %v", err)
	}
	eq("responder session_key", rkey, v.SessionKey)

	// The wrong-password run: the responder with pw_responder on the same
	// msg1 and m.
	w := v.WrongPassword
	if w.InitiatorAccepts || w.ArtifactReturn != 1 {
		t.Fatal("vector says the initiator accepts a wrong password")
	}
	ekw := pake.RecoverKey(s, w.PwResponder, in.Sid, msg1)
	hashEq("ek_recovered_sha3_256", ekw, w.EkRecoveredHash)
	Kw, _, err := pake.Encapsulate(s, ekw, in.M)
	if err != nil {
		t.Fatal(err)
	}
	eq("K_responder", Kw, w.KResponder)
	respw, msg2w, err := paketest.Respond(s, w.PwResponder, in.Sid, msg1, in.M)
	if err != nil {
		t.Fatal(err)
	}
	eq("wrong_password.msg2", msg2w, w.Msg2)
	eq("session_key_responder", respw.Key(), w.SessionKeyResponder)
	st2, _, err := paketest.Start(s, in.Pw, in.Sid, in.D, in.Z, in.Nonce)
	if err != nil {
		t.Fatal(err)
	}
	Ki, err := st2.Decapsulate(msg2w[32:])
	if err != nil {
		t.Fatal(err)
	}
	eq("K_initiator", Ki, w.KInitiator)
	if key, msg3, err := st2.Finish(msg2w); err != pake.ErrPasswordMismatch || key != nil || msg3 != nil {
		t.Fatalf("Finish with a wrong password: key %x, msg3 %x, error %v", key, msg3, err)
	}
	// The honest initiator's msg3 does not open the wrong responder's key.
	if key, err := respw.Finish(msg3); err != pake.ErrPasswordMismatch || key != nil {
		t.Fatalf("Responder.Finish with a wrong password: key %x, error %v", key, err)
	}
}
