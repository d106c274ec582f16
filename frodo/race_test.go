//go:build race

package frodo_test

const raceEnabled = true
