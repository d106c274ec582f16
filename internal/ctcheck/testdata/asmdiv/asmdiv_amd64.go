package asmdiv

// vexClean has AVX2 instructions only, one of them a VPBROADCASTW whose
// displacement bytes, F7 F1, are the encoding of DIVL CX.
//
//go:noescape
func vexClean(p *[64]byte)

// vexDivide has a DIVQ among AVX2 instructions.
//
//go:noescape
func vexDivide(p *[64]byte, d uint64) uint64

// evexClean has AVX-512 instructions only.
//
//go:noescape
func evexClean(p *[64]byte)

// evexDivide has a DIVQ and a masked VDIVPS among AVX-512 instructions.
// The DIVQ follows a VPTERNLOGQ whose bytes lead go tool objdump's
// decoder into an ANDQ with an immediate that swallows the DIVQ's first
// two bytes.
//
//go:noescape
func evexDivide(p *[64]byte, d uint64) uint64
