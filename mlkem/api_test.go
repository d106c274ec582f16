package mlkem_test

// Tests of the public API that need no test vectors: sizes, round trips,
// length checks, the FIPS 203 input checks of sections 7.2 and 7.3, and
// implicit rejection.

import (
	"bytes"
	"crypto"
	stdmlkem "crypto/mlkem"
	"crypto/rand"
	"fmt"
	mathrand "math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/pqkem/pqkem/internal/mlkemlevel"
	"github.com/pqkem/pqkem/mlkem"
)

// Compile-time interface satisfaction, as crypto/mlkem's types have it.
var (
	_ crypto.Decapsulator = (*mlkem.DecapsulationKey512)(nil)
	_ crypto.Decapsulator = (*mlkem.DecapsulationKey768)(nil)
	_ crypto.Decapsulator = (*mlkem.DecapsulationKey1024)(nil)
	_ crypto.Encapsulator = (*mlkem.EncapsulationKey512)(nil)
	_ crypto.Encapsulator = (*mlkem.EncapsulationKey768)(nil)
	_ crypto.Encapsulator = (*mlkem.EncapsulationKey1024)(nil)
)

func TestConstantSizes(t *testing.T) {
	checkSize(t, "SharedKeySize", mlkem.SharedKeySize, 32, stdmlkem.SharedKeySize, mlkemlevel.SharedKeySize)
	checkSize(t, "SeedSize", mlkem.SeedSize, 64, stdmlkem.SeedSize, mlkemlevel.SeedSize)
	// The tests see the levels of the module's table, in its order.
	if len(mlkemlevel.All()) != len(kemLevels) {
		t.Fatalf("internal/mlkemlevel has %d levels, the tests %d", len(mlkemlevel.All()), len(kemLevels))
	}
	for i, l := range mlkemlevel.All() {
		if kemLevels[i].level != l {
			t.Errorf("kemLevels[%d] is %s, internal/mlkemlevel's level %d is %s", i, kemLevels[i].name, i, l.Name())
		}
	}
	for _, l := range kemLevels {
		t.Run(l.name, func(t *testing.T) {
			check := func(what string, got int, want ...int) {
				t.Helper()
				checkSize(t, what, got, want...)
			}
			// Written out, from the FIPS 203 formulas (384k + 32,
			// 768k + 96, 32(du k + dv)), and as CIRCL has them.
			check("EncapsulationKeySize", l.ekSize, l.expected[0], 384*l.k+32, l.circl.PublicKeySize(), l.level.EncapsulationKeySize())
			check("DecapsulationKeyExpandedSize", l.dkSize, l.expected[1], 768*l.k+96, l.circl.PrivateKeySize(), l.level.DecapsulationKeyExpandedSize())
			check("CiphertextSize", l.ctSize, l.expected[2], 32*(l.du*l.k+l.dv), l.circl.CiphertextSize(), l.level.CiphertextSize())
			check("rank", l.level.Params().K(), l.k)
			check("CIRCL SharedKeySize", l.circl.SharedKeySize(), mlkem.SharedKeySize)
			check("CIRCL SeedSize", l.circl.SeedSize(), mlkem.SeedSize)
			if l.std != nil {
				check("EncapsulationKeySize vs crypto/mlkem", l.ekSize, l.std.ekSize)
				check("CiphertextSize vs crypto/mlkem", l.ctSize, l.std.ctSize)
			}

			// And the encodings really have these sizes.
			dk, err := l.generateKey()
			if err != nil {
				t.Fatal(err)
			}
			K, c := dk.Encapsulator().Encapsulate()
			check("len(Bytes())", len(dk.Bytes()), mlkem.SeedSize)
			check("len(ExpandedBytes())", len(dk.ExpandedBytes()), l.dkSize)
			check("len(EncapsulationKey().Bytes())", len(dk.Encapsulator().Bytes()), l.ekSize)
			check("len(ciphertext)", len(c), l.ctSize)
			check("len(shared key)", len(K), mlkem.SharedKeySize)
		})
	}
}

func checkSize(t *testing.T, what string, got int, want ...int) {
	t.Helper()
	for _, w := range want {
		if got != w {
			t.Errorf("%s = %d, want %d (all of %v)", what, got, w, want)
		}
	}
}

func TestRoundTrip(t *testing.T) {
	for _, l := range kemLevels {
		t.Run(l.name, func(t *testing.T) {
			dk, err := l.generateKey()
			if err != nil {
				t.Fatal(err)
			}
			ek := l.encapsulationKey(dk)
			K, c := ek.Encapsulate()
			got, err := dk.Decapsulate(c)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, K) {
				t.Fatalf("Decapsulate = %x, want %x", got, K)
			}

			// Fresh randomness every time.
			dk2, _ := l.generateKey()
			if bytes.Equal(dk.Bytes(), dk2.Bytes()) || bytes.Equal(ek.Bytes(), dk2.Encapsulator().Bytes()) {
				t.Error("two generated keys are equal")
			}
			K2, c2 := ek.Encapsulate()
			if bytes.Equal(c, c2) || bytes.Equal(K, K2) {
				t.Error("two encapsulations are equal")
			}

			// A parsed encapsulation key encapsulates to the same key.
			ek2, err := l.newEK(ek.Bytes())
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(ek2.Bytes(), ek.Bytes()) {
				t.Error("NewEncapsulationKey(ek.Bytes()).Bytes() differs")
			}
			K3, c3 := ek2.Encapsulate()
			if got, err := dk.Decapsulate(c3); err != nil || !bytes.Equal(got, K3) {
				t.Errorf("decapsulating for a parsed encapsulation key: %x, %v; want %x", got, err, K3)
			}

			// Encapsulate is deterministic given m (mlkemtest).
			m := make([]byte, 32)
			rand.Read(m)
			Ka, ca, err1 := l.encapsulate(ek, m)
			Kb, cb, err2 := l.encapsulate(ek2, m)
			if err1 != nil || err2 != nil || !bytes.Equal(Ka, Kb) || !bytes.Equal(ca, cb) {
				t.Errorf("mlkemtest.Encapsulate is not deterministic: %v, %v", err1, err2)
			}
		})
	}
}

// sameKey checks that b behaves as a: the same encapsulation key, and the
// same decapsulation of a valid and of a tampered ciphertext.
func sameKey(t *testing.T, l *kemLevel, a, b ourDecapsulator) {
	t.Helper()
	if !bytes.Equal(a.Encapsulator().Bytes(), b.Encapsulator().Bytes()) {
		t.Error("encapsulation keys differ")
	}
	K, c := a.Encapsulator().Encapsulate()
	bad := bytes.Clone(c)
	bad[mathrand.IntN(len(bad))] ^= 0x10
	for _, ct := range [][]byte{c, bad} {
		Ka, errA := a.Decapsulate(ct)
		Kb, errB := b.Decapsulate(ct)
		if errA != nil || errB != nil || !bytes.Equal(Ka, Kb) {
			t.Errorf("decapsulations differ: %x, %v; %x, %v", Ka, errA, Kb, errB)
		}
	}
	if Kb, _ := b.Decapsulate(c); !bytes.Equal(Kb, K) {
		t.Errorf("%s: Decapsulate = %x, want %x", l.name, Kb, K)
	}
}

func TestSeedRoundTrip(t *testing.T) {
	for _, l := range kemLevels {
		t.Run(l.name, func(t *testing.T) {
			dk, _ := l.generateKey()
			seed := dk.Bytes()
			dk2, err := l.newKey(seed)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(dk2.Bytes(), seed) {
				t.Errorf("Bytes() = %x, want %x", dk2.Bytes(), seed)
			}
			if !bytes.Equal(dk2.ExpandedBytes(), dk.ExpandedBytes()) {
				t.Error("ExpandedBytes differ")
			}
			sameKey(t, l, dk, dk2)

			// The key does not alias the caller's seed.
			seed[0] ^= 1
			if bytes.Equal(dk2.Bytes(), seed) {
				t.Error("the key aliases the seed slice")
			}
		})
	}
}

func TestExpandedRoundTrip(t *testing.T) {
	for _, l := range kemLevels {
		t.Run(l.name, func(t *testing.T) {
			dk, _ := l.generateKey()
			exp := dk.ExpandedBytes()
			// The layout is ByteEncode12(s) || ek || H(ek) || z, and z is
			// the second half of the seed.
			if !bytes.Equal(l.ekPart(exp), dk.Encapsulator().Bytes()) {
				t.Error("ExpandedBytes does not embed the encapsulation key at 384k")
			}
			if !bytes.Equal(l.zPart(exp), dk.Bytes()[32:]) {
				t.Error("ExpandedBytes does not end in z")
			}
			dk2, err := l.newKeyExpanded(exp)
			if err != nil {
				t.Fatal(err)
			}
			// It has no seed, and Bytes returns the expanded form, as
			// the package documentation says.
			if got := dk2.Bytes(); !bytes.Equal(got, exp) {
				t.Errorf("Bytes() of an expanded-only key = %x, want the expanded form", got)
			}
			if !bytes.Equal(dk2.ExpandedBytes(), exp) {
				t.Error("ExpandedBytes does not round trip")
			}
			sameKey(t, l, dk, dk2)
			exp[0] ^= 1
			if bytes.Equal(dk2.ExpandedBytes(), exp) {
				t.Error("the key aliases the input slice")
			}
		})
	}
}

// lengthInput is one length-checked input of the API.
type lengthInput struct {
	what   string
	size   int
	prefix string // of the error message
	valid  []byte
	// try calls the API and reports whether it returned a non-nil result.
	try func(b []byte) (result bool, err error)
}

func (l *kemLevel) lengthInputs(t *testing.T) []lengthInput {
	dk, err := l.generateKey()
	if err != nil {
		t.Fatal(err)
	}
	ek := dk.Encapsulator()
	_, c := ek.Encapsulate()
	nonNil := func(v any, err error) (bool, error) { return v != nil, err } // the adapter turns nil pointers into nil
	return []lengthInput{
		{"seed", mlkem.SeedSize, "mlkem: ", dk.Bytes(), func(b []byte) (bool, error) { return nonNil(l.newKey(b)) }},
		{"encapsulation key", l.ekSize, "mlkem: ", ek.Bytes(), func(b []byte) (bool, error) { return nonNil(l.newEK(b)) }},
		{"expanded decapsulation key", l.dkSize, "mlkem: ", dk.ExpandedBytes(), func(b []byte) (bool, error) { return nonNil(l.newKeyExpanded(b)) }},
		{"ciphertext", l.ctSize, "mlkem: ", c, func(b []byte) (bool, error) {
			K, err := dk.Decapsulate(b)
			return K != nil, err
		}},
		{"mlkemtest randomness", 32, "mlkemtest: ", make([]byte, 32), func(b []byte) (bool, error) {
			K, c, err := l.encapsulate(ek, b)
			return K != nil || c != nil, err
		}},
	}
}

// TestBadLengths tries every wrong length from 0 to size+1 for every
// length-checked input: each must be an error naming the length and the
// wanted length, never a panic or a result.
func TestBadLengths(t *testing.T) {
	for _, l := range kemLevels {
		t.Run(l.name, func(t *testing.T) {
			for _, in := range l.lengthInputs(t) {
				if _, err := in.try(in.valid); err != nil {
					t.Fatalf("%s of the right length: %v", in.what, err)
				}
				failures := 0
				for n := 0; n <= in.size+1 && failures < 5; n++ {
					if n == in.size {
						continue
					}
					if msg := checkBadLength(in, n); msg != "" {
						failures++
						t.Errorf("%s of length %d: %s", in.what, n, msg)
					}
				}
				if failures == 0 {
					if msg := checkBadLength(in, -1); msg != "" {
						t.Errorf("nil %s: %s", in.what, msg)
					}
				}
			}
		})
	}
}

// checkBadLength calls in.try with n bytes (nil for n < 0) and returns what
// was wrong, or "".
func checkBadLength(in lengthInput, n int) (msg string) {
	var b []byte
	if n >= 0 {
		b = make([]byte, n)
		copy(b, in.valid)
	}
	defer func() {
		if r := recover(); r != nil {
			msg = fmt.Sprintf("panic: %v", r)
		}
	}()
	result, err := in.try(b)
	switch {
	case err == nil:
		return "no error"
	case result:
		return fmt.Sprintf("a result as well as the error %q", err)
	case !strings.HasPrefix(err.Error(), in.prefix):
		return fmt.Sprintf("error %q does not start with %q", err, in.prefix)
	case !strings.Contains(err.Error(), fmt.Sprintf("length %d, want %d", len(b), in.size)):
		return fmt.Sprintf("error %q does not say \"length %d, want %d\"", err, len(b), in.size)
	}
	return ""
}

// TestImplicitRejection checks that a well-formed ciphertext that was not
// made for the key decapsulates, without an error, to K̄ = SHAKE256(z || c),
// with z taken from the expanded key, both for a key made from a seed and
// for one imported in the expanded form.
func TestImplicitRejection(t *testing.T) {
	n := 200
	if testing.Short() {
		n = 20
	}
	for _, l := range kemLevels {
		t.Run(l.name, func(t *testing.T) {
			dk, _ := l.generateKey()
			exp := dk.ExpandedBytes()
			xdk, err := l.newKeyExpanded(exp)
			if err != nil {
				t.Fatal(err)
			}
			z := l.zPart(exp)
			K, c := dk.Encapsulator().Encapsulate()

			var cts [][]byte
			for _, bit := range []int{0, 7, 8*l.ctSize - 1, 8 * 32 * l.du * l.k} { // first, last, first bit of c2
				cts = append(cts, flipBit(c, bit))
			}
			for range n {
				cts = append(cts, flipBit(c, mathrand.IntN(8*l.ctSize)))
			}
			random := make([]byte, l.ctSize)
			rand.Read(random)
			cts = append(cts, make([]byte, l.ctSize), bytes.Repeat([]byte{0xff}, l.ctSize), random)

			for _, bad := range cts {
				want := rejectionKey(z, bad)
				for _, key := range []ourDecapsulator{dk, xdk} {
					got, err := key.Decapsulate(bad)
					if err != nil {
						t.Fatalf("tampered ciphertext: error %v, want the implicit-rejection key", err)
					}
					if !bytes.Equal(got, want) {
						t.Fatalf("tampered ciphertext %s: got %x, want SHAKE256(z||c) = %x", abbrev(bad), got, want)
					}
				}
				if bytes.Equal(want, K) {
					t.Fatal("implicit-rejection key equals the real key")
				}
			}
			// And the real ciphertext still gives the real key, not K̄.
			if got, _ := dk.Decapsulate(c); !bytes.Equal(got, K) || bytes.Equal(got, rejectionKey(z, c)) {
				t.Errorf("Decapsulate(c) = %x, want %x", got, K)
			}
		})
	}
}

func flipBit(b []byte, bit int) []byte {
	b = bytes.Clone(b)
	b[bit/8] ^= 1 << (bit % 8)
	return b
}

// TestInvalidEncapsulationKey checks the modulus check of FIPS 203,
// section 7.2: an encapsulation key with a 12-bit value q or more in t̂ is
// rejected, in every polynomial, at even and odd positions, and q - 1 is
// accepted. crypto/mlkem and CIRCL must agree.
func TestInvalidEncapsulationKey(t *testing.T) {
	for _, l := range kemLevels {
		t.Run(l.name, func(t *testing.T) {
			dk, _ := l.generateKey()
			valid := dk.Encapsulator().Bytes()
			for poly := range l.k {
				for _, j := range []int{0, 1, 2, 3, 128, 129, 254, 255, 2 * mathrand.IntN(128), 2*mathrand.IntN(128) + 1} {
					idx := 256*poly + j
					for _, v := range []uint16{modulusQ - 1, modulusQ, modulusQ + 1, 4095} {
						b := bytes.Clone(valid)
						setCoefficient(b, idx, v)
						if coefficient(b, idx) != v {
							t.Fatal("setCoefficient is broken")
						}
						ek, err := l.newEK(b)
						_, circlErr := l.circl.UnmarshalBinaryPublicKey(b)
						wantOK := v < modulusQ
						if (err == nil) != wantOK || (circlErr == nil) != wantOK {
							t.Errorf("coefficient %d = %d: error %v (CIRCL: %v), want accepted = %v", idx, v, err, circlErr, wantOK)
							continue
						}
						if l.std != nil {
							if _, stdErr := l.std.newEK(b); (stdErr == nil) != wantOK {
								t.Errorf("coefficient %d = %d: crypto/mlkem error %v", idx, v, stdErr)
							}
						}
						if !wantOK {
							if ek != nil {
								t.Error("a rejected key was returned")
							}
							if !strings.HasPrefix(err.Error(), "mlkem: ") || !strings.Contains(err.Error(), "encapsulation key") {
								t.Errorf("error %q does not say it is about the encapsulation key", err)
							}
						} else if !bytes.Equal(ek.Bytes(), b) {
							t.Error("an accepted key does not round trip")
						}
					}
				}
			}
			// rho is not checked: any 32 bytes are fine.
			b := bytes.Clone(valid)
			copy(b[l.ekSize-32:], bytes.Repeat([]byte{0xff}, 32))
			if _, err := l.newEK(b); err != nil {
				t.Errorf("rho of 0xff bytes: %v", err)
			}
		})
	}
}

// TestInvalidExpandedKey checks the input check of FIPS 203, section 7.3 on
// NewDecapsulationKeyExpanded: a wrong H(ek) is rejected, and so is an
// embedded encapsulation key that fails the section 7.2 modulus check even
// when H(ek) matches it.
//
// FIPS 203 requires no check on the secret vector ŝ, but this package, like
// crypto/mlkem's internal expanded-key parser, rejects a key with a 12-bit
// value of q or more in ŝ (KeyGen never makes one, and ExpandedBytes could
// not return the input). CIRCL accepts such a key.
func TestInvalidExpandedKey(t *testing.T) {
	for _, l := range kemLevels {
		t.Run(l.name, func(t *testing.T) {
			dk, _ := l.generateKey()
			valid := dk.ExpandedBytes()
			reject := func(what string, b []byte) {
				t.Helper()
				k, err := l.newKeyExpanded(b)
				if err == nil || k != nil {
					t.Errorf("%s: accepted", what)
				} else if !strings.HasPrefix(err.Error(), "mlkem: ") {
					t.Errorf("%s: error %q does not start with \"mlkem: \"", what, err)
				}
			}

			// Every single-bit change of H(ek).
			for bit := range 256 {
				b := bytes.Clone(valid)
				l.hPart(b)[bit/8] ^= 1 << (bit % 8)
				reject(fmt.Sprintf("H(ek) bit %d flipped", bit), b)
			}
			// A changed encapsulation key (rho or t̂) without a new H.
			for _, off := range []int{0, 383, 384*l.k - 1, 384 * l.k, 384*l.k + 31} {
				b := bytes.Clone(valid)
				l.ekPart(b)[off] ^= 0x01
				reject(fmt.Sprintf("ek byte %d changed, H not updated", off), b)
			}
			// A coefficient q or more in the embedded t̂, with H updated.
			for _, idx := range []int{0, 1, 256*l.k - 1, mathrand.IntN(256 * l.k)} {
				for _, v := range []uint16{modulusQ, 4095} {
					b := bytes.Clone(valid)
					setCoefficient(l.ekPart(b), idx, v)
					l.fixH(b)
					reject(fmt.Sprintf("ek coefficient %d = %d, H updated", idx, v), b)
				}
			}

			// z is not checked, and is the z of implicit rejection.
			b := bytes.Clone(valid)
			rand.Read(l.zPart(b))
			if k, err := l.newKeyExpanded(b); err != nil {
				t.Errorf("random z: %v", err)
			} else {
				_, c := k.Encapsulator().Encapsulate()
				c[0] ^= 1
				if got, _ := k.Decapsulate(c); !bytes.Equal(got, rejectionKey(l.zPart(b), c)) {
					t.Error("implicit rejection does not use the imported z")
				}
			}

			// ŝ with a value q or more is rejected; q - 1 is accepted.
			for _, idx := range []int{0, 1, 256*l.k - 1, mathrand.IntN(256 * l.k)} {
				for _, v := range []uint16{modulusQ, modulusQ + coefficient(l.sPart(valid), idx)%(4096-modulusQ), 4095} {
					b := bytes.Clone(valid)
					setCoefficient(l.sPart(b), idx, v)
					reject(fmt.Sprintf("s coefficient %d = %d", idx, v), b)
				}
				b := bytes.Clone(valid)
				setCoefficient(l.sPart(b), idx, modulusQ-1)
				if k, err := l.newKeyExpanded(b); err != nil {
					t.Errorf("s coefficient %d = q - 1: %v", idx, err)
				} else if !bytes.Equal(k.ExpandedBytes(), b) {
					t.Errorf("s coefficient %d = q - 1: ExpandedBytes does not round trip", idx)
				}
			}
		})
	}
}

// TestInterfaces checks that the keys work through crypto.Decapsulator and
// crypto.Encapsulator, and that Encapsulator returns the same
// *EncapsulationKeyN as EncapsulationKey.
func TestInterfaces(t *testing.T) {
	for _, l := range kemLevels {
		t.Run(l.name, func(t *testing.T) {
			dk, _ := l.generateKey()
			var d crypto.Decapsulator = dk
			e := d.Encapsulator()
			concrete := l.encapsulationKey(dk)
			if reflect.TypeOf(e) != reflect.TypeOf(concrete) {
				t.Errorf("Encapsulator() is a %T, want %T", e, concrete)
			}
			if !bytes.Equal(e.Bytes(), concrete.Bytes()) {
				t.Error("Encapsulator() and EncapsulationKey() differ")
			}
			if reflect.TypeOf(concrete).String() != strings.Replace(reflect.TypeOf(dk).String(), "Decapsulation", "Encapsulation", 1) {
				t.Errorf("EncapsulationKey of a %T is a %T", dk, concrete)
			}
			K, c := e.Encapsulate()
			if got, err := d.Decapsulate(c); err != nil || !bytes.Equal(got, K) {
				t.Errorf("through the interfaces: %x, %v; want %x", got, err, K)
			}
		})
	}
}

// The module's table of levels (internal/mlkemlevel), which packages kem,
// hybrid and keyfile use, and this package's generated per-level API are
// two adapters of the same code: they must agree byte for byte.
func TestLevelTableAgrees(t *testing.T) {
	for _, l := range kemLevels {
		t.Run(l.name, func(t *testing.T) {
			for range 20 {
				seed, m := make([]byte, mlkem.SeedSize), make([]byte, 32)
				rand.Read(seed)
				rand.Read(m)
				dk, err := l.newKey(seed)
				if err != nil {
					t.Fatal(err)
				}
				tdk, err := l.level.NewDecapsulationKey(seed)
				if err != nil {
					t.Fatal(err)
				}
				if tdk.Level() != l.level || tdk.EncapsulationKey().Level() != l.level {
					t.Fatal("the table's keys do not know their level")
				}
				tek := tdk.EncapsulationKey()
				if !bytes.Equal(tdk.Bytes(), seed) || !bytes.Equal(tdk.ExpandedBytes(), dk.ExpandedBytes()) ||
					!bytes.Equal(tek.Bytes(), dk.Encapsulator().Bytes()) {
					t.Fatal("the table's key encodings differ from this package's")
				}
				K, c, err := l.encapsulate(dk.Encapsulator(), m)
				if err != nil {
					t.Fatal(err)
				}
				tK, tc := tek.EncapsulateInternal((*[32]byte)(m))
				if !bytes.Equal(K, tK) || !bytes.Equal(c, tc) {
					t.Fatal("the table's EncapsulateInternal differs from mlkemtest")
				}
				rK, rc := tek.Encapsulate()
				if got, err := dk.Decapsulate(rc); err != nil || !bytes.Equal(got, rK) {
					t.Fatalf("this package does not decapsulate the table's ciphertext: %v", err)
				}
				bad := flipBit(c, mathrand.IntN(8*l.ctSize))
				xdk, err := l.level.NewDecapsulationKeyExpanded(dk.ExpandedBytes())
				if err != nil {
					t.Fatal(err)
				}
				if xdk.Bytes() != nil {
					t.Fatal("the table's key parsed from the expanded form has a seed")
				}
				want, _ := dk.Decapsulate(bad)
				for _, k := range []mlkemlevel.DecapsulationKey{tdk, xdk} {
					if got, err := k.Decapsulate(c); err != nil || !bytes.Equal(got, K) {
						t.Fatalf("the table's key does not decapsulate: %v", err)
					}
					if got, err := k.Decapsulate(bad); err != nil || !bytes.Equal(got, want) {
						t.Fatalf("the table's implicit rejection differs: %v", err)
					}
				}
				if tpk, err := l.level.NewEncapsulationKey(tek.Bytes()); err != nil || !bytes.Equal(tpk.Bytes(), tek.Bytes()) {
					t.Fatalf("the table's NewEncapsulationKey does not round-trip: %v", err)
				}
			}
			// The table's constructors check what this package's check.
			for _, c := range []struct {
				what string
				err  error
			}{
				{"NewDecapsulationKey", second(l.level.NewDecapsulationKey(make([]byte, mlkem.SeedSize-1)))},
				{"NewDecapsulationKeyExpanded", second(l.level.NewDecapsulationKeyExpanded(make([]byte, l.dkSize)))},
				{"NewEncapsulationKey", second(l.level.NewEncapsulationKey(make([]byte, l.ekSize+1)))},
				{"Decapsulate", second(l.level.GenerateKey().Decapsulate(make([]byte, l.ctSize-1)))},
			} {
				if c.err == nil || !strings.HasPrefix(c.err.Error(), "mlkem: ") {
					t.Errorf("the table's %s of a bad input: error %v, want an mlkem error", c.what, c.err)
				}
			}
		})
	}
}

func second[T any](_ T, err error) error { return err }
