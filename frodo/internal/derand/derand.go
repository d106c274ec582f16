// Package derand connects package frodo to package frodotest without
// making derandomized encapsulation part of frodo's public API.
package derand

// Encapsulate is set by package frodo: it encapsulates to ek, a
// *frodo.EncapsulationKey, with random as mu (|| salt).
var Encapsulate func(ek any, random []byte) (sharedKey, ciphertext []byte, err error)
