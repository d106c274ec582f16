package main

import (
	"crypto/subtle"
	"fmt"
	"strings"
	"time"

	"github.com/pqkem/pqkem/internal/cpuid"
	"github.com/pqkem/pqkem/internal/dudect"
	"github.com/pqkem/pqkem/kem"
	"github.com/pqkem/pqkem/pake"
	"github.com/pqkem/pqkem/pake/paketest"
)

// The code paths a target runs on.
const (
	pathAVX2    = "avx2"
	pathGeneric = "generic"
	pathNone    = "-" // the target has no assembly path
)

// A target is one operation on two classes of inputs.
type target struct {
	Scheme    string    // "ML-KEM-768", "pake sampler", "control", ...
	Operation string    // "Decapsulate", "Sample A1", "Respond", ...
	Path      string    // pathAVX2, pathGeneric or pathNone
	Classes   [2]string // what the two classes are
	// ConstantTime is whether the operation is meant to run in time
	// independent of its class.
	ConstantTime bool
	// FixedInput marks a constant-time target whose class 0 is one fixed
	// input: one fixed input against random ones shows the data even in
	// constant-time code (SIDE_CHANNELS.md, "Fixed inputs see the
	// data"), so the target is reported, never asserted.
	FixedInput bool
	// Control marks a positive control: an operation that is variable
	// time on purpose, which the test must see leak (|t| above
	// dudect.LeakThreshold), to show that it can fail.
	Control bool
	// Cost is a rough time per operation relative to an ML-KEM-768
	// decapsulation, so that callers can scale sample counts.
	Cost float64

	// prepare makes the inputs and returns the operation to time: Setup
	// copies the class's input into the one buffer that Run reads.
	prepare func() (dudect.Split, error)
}

// name is "scheme/operation/path", unique among the targets.
func (t *target) name() string {
	return t.Scheme + "/" + t.Operation + "/" + t.Path
}

// samples scales n, the measurements per class for a target of cost 1,
// by the target's cost: cheaper targets get more measurements, up to 10n,
// dearer ones fewer, at least 1,000.
func (t *target) samples(n int) int {
	s := float64(n) / max(t.Cost, 0.1)
	return int(min(max(s, 1000), 10*float64(n)))
}

// run measures the target with n measurements per class, stopping early
// after limit (0: no limit), on the target's path.
func (t *target) run(n int, limit time.Duration) (dudect.Result, error) {
	restore := cpuid.ForceGeneric(t.Path == pathGeneric)
	defer restore()
	op, err := t.prepare()
	if err != nil {
		return dudect.Result{}, fmt.Errorf("%s: %w", t.name(), err)
	}
	return dudect.Analyze(dudect.MeasureSplit(n, limit, op)), nil
}

// check runs the target and, if a constant-time target gives |t| at or
// above dudect.Threshold, runs it once more with fresh inputs and a fresh
// order: on a shared machine a burst of load can cross the line once, a
// leak crosses it every time. It returns the result of each run, one or
// two. A positive control, or a target that is not asserted (variable
// time, or a fixed input), runs once.
func (t *target) check(n int, limit time.Duration) ([]dudect.Result, error) {
	res, err := t.run(n, limit)
	if err != nil {
		return nil, err
	}
	if !t.ConstantTime || t.FixedInput || !(res.T >= dudect.Threshold) {
		return []dudect.Result{res}, nil
	}
	again, err := t.run(n, limit)
	if err != nil {
		return nil, err
	}
	return []dudect.Result{res, again}, nil
}

// codePaths returns the code paths this process can run: avx2 and
// generic, or generic alone.
func codePaths() []string {
	if cpuid.HasAVX2() {
		return []string{pathAVX2, pathGeneric}
	}
	return []string{pathGeneric}
}

// allTargets lists what pqkem-bench ct measures: every secret-dependent
// operation of every scheme, as a pair of input classes for the dudect
// method of package github.com/pqkem/pqkem/internal/dudect, together with
// positive controls that must fail it, in a fixed order: decapsulation of
// each KEM, the pake samplers and Respond, then the controls. The list
// builds itself from the registries, so a scheme added to package kem (or
// a FrodoKEM parameter set, or a pake scheme) is measured without a change
// here:
//
//   - Decapsulate, for every scheme of kem.All() (FrodoKEM's twelve
//     parameter sets included): valid ciphertexts against
//     ciphertexts with one random bit flipped that still decapsulate
//     without an error (they take the implicit-rejection path; a flip that
//     makes a hybrid's elliptic-curve point invalid is drawn again, since
//     that error is public and fast), with one fixed key;
//   - for a single-use scheme (the CCS 2016 Frodo key exchange),
//     Decapsulate is Alice1 on a fresh key from one fixed seed, made in
//     the untimed setup, of valid ciphertexts against random ones (there
//     is no implicit rejection: Alice1 reconciles whatever it gets); and
//     its Alice0 (the sampler and A S + E: one fixed seed against seeds
//     with the same seedA and random sampler keys) and Bob (the sampler,
//     S' A + E', S' B + E”, the hint and the rounding: one fixed
//     randomness against random ones, through kemtest) are targets too,
//     reported but not asserted, since one fixed input against random
//     ones shows the data even in constant-time code;
//   - Sample, for every pake sampler: 34-byte XOF inputs for which FIPS 203
//     SampleNTT (A0) reads few SHAKE128 bytes against inputs for which it
//     reads many (a fourth block). A0 is variable time: it is a positive
//     control;
//   - Respond, for every pake scheme at ML-KEM-768: one fixed password
//     against random passwords, on one fixed msg1;
//   - controls: an A/A test on each path (ML-KEM-768 decapsulation with
//     the very same inputs in both classes: whatever |t| it gives is the
//     harness's noise on this machine), and on 1 KiB inputs an
//     early-exit compare (a positive control: equal inputs against inputs
//     that differ in the first byte) and crypto/subtle.ConstantTimeCompare
//     on the same inputs.
//
// Each target that can run on two code paths (the assembly and the
// generic Go, switched with cpuid.ForceGeneric in the same binary, which
// caps the level of every package with assembly at generic: FrodoKEM's AES
// rows keep AES-NI there, which is no vector level) is listed once per
// path; on a CPU or build without AVX2 only the generic path exists. The
// packages' levels are unexported, so ForceGeneric is the one switch that
// reaches them all from here.
func allTargets() []*target {
	var out []*target
	for _, d := range decapsulators() {
		for _, path := range codePaths() {
			out = append(out, &target{
				Scheme: d.name, Operation: "Decapsulate", Path: path,
				Classes:      d.classes,
				ConstantTime: true, Cost: d.cost,
				prepare: d.prepare,
			})
		}
	}
	for _, s := range kem.All() {
		if !kem.SingleUse(s) {
			continue
		}
		for _, path := range codePaths() {
			out = append(out,
				&target{
					Scheme: s.Name(), Operation: "Alice0", Path: path,
					Classes:      [2]string{"one fixed seed", "seeds with its seedA, random sampler keys"},
					ConstantTime: true, FixedInput: true, Cost: 10,
					prepare: func() (dudect.Split, error) { return alice0Op(s) },
				},
				&target{
					Scheme: s.Name(), Operation: "Bob", Path: path,
					Classes:      [2]string{"one fixed randomness", "random randomness"},
					ConstantTime: true, FixedInput: true, Cost: 12,
					prepare: func() (dudect.Split, error) { return bobOp(s) },
				})
		}
	}
	for _, smp := range pakeSamplers {
		for _, path := range codePaths() {
			out = append(out, &target{
				Scheme: "pake sampler", Operation: "Sample " + smp.String(), Path: path,
				Classes:      [2]string{"inputs A0 reads few bytes for", "inputs A0 reads a 4th block for"},
				ConstantTime: smp.ConstantTime(), Control: !smp.ConstantTime(), Cost: 0.1,
				prepare: func() (dudect.Split, error) { return samplerOp(smp) },
			})
		}
	}
	var respondSchemes []*pake.Scheme // at 768, A0 included
	for _, newScheme := range []func(int, pake.Sampler) (*pake.Scheme, error){paketest.NewNoIC, paketest.NewTempo} {
		for _, smp := range pakeSamplers {
			s, _ := newScheme(768, smp)
			respondSchemes = append(respondSchemes, s)
		}
	}
	for _, s := range respondSchemes {
		for _, path := range codePaths() {
			out = append(out, &target{
				Scheme: s.Name(), Operation: "Respond", Path: path,
				Classes: [2]string{"one fixed password", "random passwords"},
				// A0 is variable time, but whether fixed-against-random
				// passwords shows it depends on the fixed one: it is
				// reported, never asserted either way.
				ConstantTime: s.Sampler().ConstantTime(), Cost: 3,
				prepare: func() (dudect.Split, error) { return respondOp(s) },
			})
		}
	}
	for _, path := range codePaths() {
		out = append(out, &target{
			Scheme: "control", Operation: "A/A ML-KEM-768 Decapsulate", Path: path,
			Classes:      [2]string{"valid ciphertexts", "the same valid ciphertexts"},
			ConstantTime: true, Cost: 1,
			prepare: aaOp,
		})
	}
	out = append(out,
		&target{
			Scheme: "control", Operation: "early-exit compare", Path: pathNone,
			Classes:      [2]string{"inputs differing in byte 0", "equal inputs"},
			ConstantTime: false, Control: true, Cost: 0.01,
			prepare: func() (dudect.Split, error) { return compareOp(earlyExitEqual), nil },
		},
		&target{
			Scheme: "control", Operation: "subtle.ConstantTimeCompare", Path: pathNone,
			Classes:      [2]string{"inputs differing in byte 0", "equal inputs"},
			ConstantTime: true, Cost: 0.01,
			prepare: func() (dudect.Split, error) {
				return compareOp(func(a, b []byte) bool { return subtle.ConstantTimeCompare(a, b) == 1 }), nil
			},
		},
	)
	return out
}

// selectTargets returns the targets whose name contains any of the
// comma-separated patterns, compared without regard to case; "" or "all"
// selects every target.
func selectTargets(targets []*target, patterns string) []*target {
	if patterns == "" || patterns == "all" {
		return targets
	}
	var out []*target
	for _, t := range targets {
		name := strings.ToLower(t.name())
		for p := range strings.SplitSeq(patterns, ",") {
			if p = strings.ToLower(strings.TrimSpace(p)); p != "" && strings.Contains(name, p) {
				out = append(out, t)
				break
			}
		}
	}
	return out
}

type decapsulator struct {
	name    string
	cost    float64
	classes [2]string
	prepare func() (dudect.Split, error)
}

// decapsulators lists every KEM of the registry (FrodoKEM's twelve sets
// included).
func decapsulators() []decapsulator {
	var out []decapsulator
	for _, s := range kem.All() {
		if kem.SingleUse(s) {
			out = append(out, decapsulator{s.Name(), kemCost(s.Name()),
				[2]string{"valid ciphertexts (one key, remade from its seed for each)", "random ciphertexts"},
				func() (dudect.Split, error) { return singleUseDecapOp(s) }})
			continue
		}
		out = append(out, decapsulator{s.Name(), kemCost(s.Name()), [2]string{"valid ciphertexts", "ciphertexts with one bit flipped"}, func() (dudect.Split, error) {
			dk, err := s.GenerateKey()
			if err != nil {
				return dudect.Split{}, err
			}
			ek := dk.EncapsulationKey()
			return decapOp(func() ([]byte, error) {
				_, ct := ek.Encapsulate()
				return ct, nil
			}, dk.Decapsulate)
		}})
	}
	return out
}

// kemCost guesses the cost of a decapsulation from the scheme's name.
func kemCost(name string) float64 {
	switch {
	case strings.HasPrefix(name, "Frodo-CCS2016-"):
		return 10 // Alice1, and Alice0 in the untimed setup
	case strings.Contains(name, "Frodo") && strings.Contains(name, "1344"):
		return 120
	case strings.Contains(name, "Frodo") && strings.Contains(name, "976"):
		return 70
	case strings.Contains(name, "Frodo"):
		return 30
	case name == "ML-KEM-768" || name == "ML-KEM-512" || name == "ML-KEM-1024":
		return 1
	default: // hybrids: ML-KEM plus an elliptic-curve decapsulation
		return 4
	}
}
