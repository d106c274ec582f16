package noise

import (
	"fmt"
	"strings"

	"github.com/pqkem/pqkem/kem"
)

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
// keeps its kem name if it is printable ASCII without an underscore.
func KEMName(s kem.Scheme) (string, error) {
	name := s.Name()
	if n, ok := noiseNames[name]; ok {
		return n, nil
	}
	if name == "" || strings.ContainsFunc(name, func(r rune) bool { return r == '_' || r <= ' ' || r > '~' }) {
		return "", fmt.Errorf("noise: KEM name %q not usable in Noise", s.Name())
	}
	return name, nil
}

// kemByName returns the scheme of package kem whose Noise name is name
// (see [KEMName]), comparing names exactly.
func kemByName(name string) (kem.Scheme, error) {
	for _, s := range kem.All() {
		if n, err := KEMName(s); err == nil && n == name {
			return s, nil
		}
	}
	return nil, fmt.Errorf("noise: unknown KEM %q", name)
}
