package vzeroupper

//go:generate go run -C _asm . -out ../vzeroupper_amd64.s -stubs ../vzeroupper_stub_amd64.go -pkg vzeroupper
