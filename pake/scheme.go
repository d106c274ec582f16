package pake

import (
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/pqkem/pqkem/internal/derand"
	"github.com/pqkem/pqkem/internal/fips203"
)

// Sizes of the low-level inputs, of the session key and of the
// confirmation message.
const (
	// PasswordSize is the size of the low-level password pw: 32 bytes,
	// already hashed (see [NewCredentials] for how a human password
	// becomes pw).
	PasswordSize = 32
	// SessionIDSize is the size of the low-level session identifier sid.
	SessionIDSize = 32
	// SessionKeySize is the size of the session key both parties output.
	SessionKeySize = 32
	// Msg3Size is the size of msg3, the initiator's key confirmation.
	Msg3Size = 32
)

// Protocol is [NoIC] or [Tempo].
type Protocol uint8

const (
	// NoIC[ML-KEM]: the sampler expands the matrix inside the KEM (key
	// generation, encapsulation, and the re-encryption in decapsulation)
	// and the password mask; ρ is masked too. With B0 or C1 the KEM is not
	// FIPS 203 ML-KEM.
	NoIC Protocol = iota + 1
	// Tempo[ML-KEM]: stock FIPS 203 ML-KEM, ρ in the clear; the sampler
	// only makes the password mask.
	Tempo
)

func (p Protocol) String() string {
	switch p {
	case NoIC:
		return "NoIC"
	case Tempo:
		return "Tempo"
	}
	return fmt.Sprintf("Protocol(%d)", uint8(p))
}

// Scheme is one protocol at one ML-KEM level with one sampler, such as
// Tempo-C1-ML-KEM-768 (the default). Schemes are fixed values, safe for
// concurrent use; get them from [Default], [NewNoIC], [NewTempo], [ByName]
// or [All].
type Scheme struct {
	proto   Protocol
	sampler Sampler
	level   int // 512, 768 or 1024
	k       int
	name    string
	// params is the KEM: the FIPS 203 parameter set for Tempo and
	// NoIC-A0, one with the sampler for the matrix for the other NoIC
	// schemes.
	params *fips203.Params
	// confirmContext is lp(confirmLabel) ‖ lp(name), the start of the
	// confirmation's input (see confirmation).
	confirmContext []byte
}

// Name returns the scheme's name, "<protocol>-<sampler>-ML-KEM-<level>",
// for example "Tempo-C1-ML-KEM-768".
func (s *Scheme) Name() string { return s.name }

func (s *Scheme) String() string { return s.name }

// Protocol returns [NoIC] or [Tempo].
func (s *Scheme) Protocol() Protocol { return s.proto }

// Sampler returns the SampleNTT variant the scheme uses.
func (s *Scheme) Sampler() Sampler { return s.sampler }

// Level returns the ML-KEM level: 512, 768 or 1024.
func (s *Scheme) Level() int { return s.level }

// Msg1Size is the size of the initiator's first message, 384k + 64 bytes.
func (s *Scheme) Msg1Size() int { return 384*s.k + 64 }

// Msg2Size is the size of the responder's message, 32 bytes of tag and
// the ciphertext.
func (s *Scheme) Msg2Size() int { return 32 + s.params.CiphertextSize() }

var (
	schemesOnce sync.Once
	schemes     []*Scheme
)

// allSchemes returns every scheme, the ones with a0VariableTime
// included: NoIC then Tempo, each at 512, 768 and 1024, each with A0, A1,
// B0 and C1.
func allSchemes() []*Scheme {
	schemesOnce.Do(func() {
		for _, proto := range []Protocol{NoIC, Tempo} {
			for _, level := range []int{512, 768, 1024} {
				for _, smp := range []Sampler{a0VariableTime, A1, B0, C1} {
					schemes = append(schemes, newScheme(proto, level, smp))
				}
			}
		}
	})
	return schemes
}

func newScheme(proto Protocol, level int, smp Sampler) *Scheme {
	s := &Scheme{proto: proto, sampler: smp, level: level, k: level / 256}
	s.name = fmt.Sprintf("%v-%v-ML-KEM-%d", proto, smp, level)
	s.confirmContext = lp(lp(nil, confirmLabel), s.name)
	s.params = stockParams(level)
	if proto == NoIC && smp != a0VariableTime {
		// A0 is FIPS 203 SampleNTT: NoIC-A0's KEM is ML-KEM.
		s.params = fips203.WithSampler(s.params, s.name, smp.sampleBatch)
	}
	return s
}

// stockParams returns the FIPS 203 parameter set ML-KEM-level.
func stockParams(level int) *fips203.Params {
	switch level {
	case 512:
		return fips203.MLKEM512
	case 768:
		return fips203.MLKEM768
	}
	return fips203.MLKEM1024
}

// All returns the schemes with a constant-time sampler: NoIC then Tempo,
// each at 512, 768 and 1024, each with A1, B0 and C1. The schemes with
// variable-time sampler A0 exist for comparisons only, in package
// paketest.
func All() []*Scheme {
	var out []*Scheme
	for _, s := range allSchemes() {
		if s.sampler.ConstantTime() {
			out = append(out, s)
		}
	}
	return out
}

// Default returns Tempo with C1 at ML-KEM-768: stock ML-KEM with a
// constant-time mask, the fastest timing-safe choice.
func Default() *Scheme { return lookup(Tempo, 768, C1) }

// NewNoIC returns NoIC[ML-KEM-level] with the sampler smp, A1, B0 or C1
// (level is 512, 768 or 1024). It returns the same value for the same
// arguments.
func NewNoIC(level int, smp Sampler) (*Scheme, error) { return find(NoIC, level, smp, false) }

// NewTempo returns Tempo[ML-KEM-level] with the sampler smp for the mask.
// It returns the same value for the same arguments.
func NewTempo(level int, smp Sampler) (*Scheme, error) { return find(Tempo, level, smp, false) }

// find returns the scheme; withA0 lets it return one with a0VariableTime
// (package paketest's NewNoIC and NewTempo).
func find(proto Protocol, level int, smp Sampler, withA0 bool) (*Scheme, error) {
	if level != 512 && level != 768 && level != 1024 {
		return nil, fmt.Errorf("pake: invalid ML-KEM level %d, want 512, 768 or 1024", level)
	}
	if smp == a0VariableTime && !withA0 {
		return nil, errors.New("pake: sampler A0 is variable time and leaks the password through timing; want A1, B0 or C1")
	}
	if !smp.valid() {
		return nil, fmt.Errorf("pake: invalid sampler %v, want A1, B0 or C1", smp)
	}
	return lookup(proto, level, smp), nil
}

// The schemes with the variable-time sampler, for package paketest and
// nothing else.
func init() {
	derand.Register("pake.A0VariableTime", a0VariableTime)
	derand.Register("pake.Find", func(proto Protocol, level int, smp Sampler) (*Scheme, error) {
		return find(proto, level, smp, true)
	})
}

func lookup(proto Protocol, level int, smp Sampler) *Scheme {
	for _, s := range allSchemes() {
		if s.proto == proto && s.level == level && s.sampler == smp {
			return s
		}
	}
	panic("pake: no such scheme")
}

// ByName returns the scheme with the given name, such as
// "NoIC-C1-ML-KEM-1024" (case-insensitive; C0 is taken as C1, whose
// output it is). It refuses the names of the schemes with the
// variable-time sampler A0.
func ByName(name string) (*Scheme, error) {
	for _, s := range allSchemes() {
		if !strings.EqualFold(s.name, name) && !strings.EqualFold(strings.Replace(s.name, "-C1-", "-C0-", 1), name) {
			continue
		}
		if !s.sampler.ConstantTime() {
			return nil, fmt.Errorf("pake: scheme %s uses the variable-time sampler A0, which leaks the password through timing; use A1, B0 or C1", s.name)
		}
		return s, nil
	}
	return nil, fmt.Errorf("pake: unknown scheme %q, want <NoIC|Tempo>-<A1|B0|C1>-ML-KEM-<512|768|1024>", name)
}
