package keccak

//go:generate go run -C _asm . -out ../keccakx4_amd64.s -stubs ../keccakx4_stub_amd64.go -pkg keccak
