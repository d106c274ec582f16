package mlkem_test

// Allocation counts of the public API: each call allocates only the values
// it returns (the key struct, the shared key, the ciphertext); all working
// state lives on the stack.
//
// The calls go through the kemLevels adapter, that is through interface
// methods and function values, so the compiler cannot inline them into the
// measured closure and keep a result that the closure drops on the stack
// (a direct ek.Encapsulate() whose results are discarded measures 0).

import (
	"testing"
)

func TestAllocations(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector's instrumentation changes allocation counts")
	}
	for _, l := range kemLevels {
		t.Run(l.name, func(t *testing.T) {
			dk, err := l.generateKey()
			if err != nil {
				t.Fatal(err)
			}
			seed, exp := dk.Bytes(), dk.ExpandedBytes()
			ek := l.encapsulationKey(dk)
			ekBytes := ek.Bytes()
			_, c := ek.Encapsulate()
			bad := flipBit(c, 0)
			m := make([]byte, 32)

			for _, tc := range []struct {
				what string
				want float64
				f    func()
			}{
				{"GenerateKey", 1, func() { l.generateKey() }},                       // the key
				{"NewDecapsulationKey", 1, func() { l.newKey(seed) }},                // the key
				{"NewDecapsulationKeyExpanded", 1, func() { l.newKeyExpanded(exp) }}, // the key
				{"NewEncapsulationKey", 1, func() { l.newEK(ekBytes) }},              // the key
				{"EncapsulationKey.Encapsulate", 2, func() { ek.Encapsulate() }},     // K and c
				{"DecapsulationKey.Decapsulate", 1, func() { dk.Decapsulate(c) }},    // K
				{"DecapsulationKey.Decapsulate (rejected)", 1, func() { dk.Decapsulate(bad) }},
				{"DecapsulationKey.EncapsulationKey", 1, func() { l.encapsulationKey(dk) }},
				{"DecapsulationKey.Encapsulator", 1, func() { dk.Encapsulator() }},
				{"DecapsulationKey.Bytes", 1, func() { dk.Bytes() }},
				{"DecapsulationKey.ExpandedBytes", 1, func() { dk.ExpandedBytes() }},
				{"EncapsulationKey.Bytes", 1, func() { ek.Bytes() }},
				{"mlkemtest.Encapsulate", 2, func() { l.encapsulate(ek, m) }}, // K and c
			} {
				got := testing.AllocsPerRun(100, tc.f)
				t.Logf("%-40s %v allocs", tc.what, got)
				if got != tc.want {
					t.Errorf("%s: %v allocations, want %v", tc.what, got, tc.want)
				}
			}
		})
	}
}
