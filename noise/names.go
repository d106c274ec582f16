package noise

import (
	"fmt"
	"strings"

	"github.com/pqkem/pqkem/kem"
)

// NoiseNamer is implemented by a scheme registered from outside this
// module to give its Noise KEM name, when its kem name is not usable as
// one (it has an underscore) or other implementations spell it otherwise.
type NoiseNamer interface {
	kem.Scheme
	// NoiseName is the KEM's name in a Noise protocol name: printable
	// ASCII, no underscore, not empty.
	NoiseName() string
}

// noiseNames are the schemes of package kem whose Noise names differ from
// their kem names: ML-KEM as nyquist and Clatter write it, X-Wing as
// katzenpost/hpqc does. Every other scheme of package kem keeps its name.
var noiseNames = map[string]string{
	"ML-KEM-512":  "MLKEM512",
	"ML-KEM-768":  "MLKEM768",
	"ML-KEM-1024": "MLKEM1024",
	"X-Wing":      "XWING",
}

// KEMName returns the name of s in a Noise protocol name (see the table in
// the package documentation): for ML-KEM the names nyquist and Clatter
// use ("MLKEM768"), "XWING" for X-Wing, and the kem name for the other
// schemes of package kem ("FrodoKEM-640-AES"). A scheme from elsewhere
// may give its own with a NoiseName method ([NoiseNamer]); otherwise its kem
// name is used if it is printable ASCII without an underscore.
func KEMName(s kem.Scheme) (string, error) {
	name := s.Name()
	if n, ok := s.(NoiseNamer); ok {
		name = n.NoiseName()
	} else if n, ok := noiseNames[name]; ok {
		return n, nil
	}
	if name == "" || strings.ContainsFunc(name, func(r rune) bool { return r == '_' || r <= ' ' || r > '~' }) {
		return "", fmt.Errorf("noise: scheme %q has no Noise name (it must be printable ASCII without spaces or underscores)", s.Name())
	}
	return name, nil
}

// KEMByName returns the scheme of package kem whose Noise name is name
// (see [KEMName]), comparing names exactly.
func KEMByName(name string) (kem.Scheme, error) {
	var names []string
	for _, s := range kem.All() {
		n, err := KEMName(s)
		if err != nil {
			continue
		}
		if n == name {
			return s, nil
		}
		names = append(names, n)
	}
	return nil, fmt.Errorf("noise: unknown KEM %q, want one of %s", name, strings.Join(names, ", "))
}
