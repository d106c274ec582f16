package kem

// This file only registers FrodoKEM (see frodo.go). It is a separate file,
// named to sort after mlkem.go, because init functions run in the order of
// their files' names and kem.All promises ML-KEM-512, ML-KEM-768 and
// ML-KEM-1024 first.
func init() { registerFrodo() }
