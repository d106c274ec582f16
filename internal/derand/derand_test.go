package derand

import (
	"strings"
	"testing"
)

func TestRegisterLookup(t *testing.T) {
	Register("test.double", func(x int) int { return 2 * x })
	f, err := Lookup[func(int) int]("test.double")
	if err != nil {
		t.Fatal(err)
	}
	if got := f(21); got != 42 {
		t.Errorf("hook returned %d, want 42", got)
	}
	// The same name with another type, and another name, are not found.
	if _, err := Lookup[func(int) int64]("test.double"); err == nil || !strings.HasPrefix(err.Error(), "derand: ") {
		t.Errorf("Lookup with the wrong type: error %v", err)
	}
	if _, err := Lookup[func(int) int]("test.triple"); err == nil {
		t.Error("Lookup of an unregistered name succeeded")
	}
	defer func() {
		if recover() == nil {
			t.Error("registering a hook twice did not panic")
		}
	}()
	Register("test.double", func(x int) int { return x })
}
