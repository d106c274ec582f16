package fips203

import "github.com/pqkem/pqkem/internal/cpuid"

// Params is an ML-KEM parameter set (FIPS 203, section 8, Table 2).
//
// The three levels share one implementation: the algorithms loop to
// Params.k over views of k polynomials (encryptionKey, decryptionKey) of
// the fixed-size arrays the keys hold (storage.go), and scratch values are
// fixed-capacity arrays sized for the largest k (4). That keeps the hot
// path free of allocation, keeps every algorithm written once, and lets
// the PAKE code swap the matrix sampler without a second copy of K-PKE.
type Params struct {
	name   string
	k      int
	eta1   int
	du, dv uint8
	// sampleMatrix expands Â. The ML-KEM parameter sets use FIPS 203
	// SampleNTT (sampleMatrixFIPS, on the Keccak lanes); the PAKE
	// protocols plug in batched constant-time variants with WithSampler.
	sampleMatrix sampleMatrixFunc
	// fipsMatrix says that sampleMatrix is FIPS 203 SampleNTT, which the
	// four-lane schedule of key generation (schedule.go) can run itself.
	fipsMatrix bool
}

const (
	maxK = 4
	eta2 = 2

	// SharedKeySize is the size of an ML-KEM shared secret.
	SharedKeySize = 32
	// SeedSize is the size of the d || z decapsulation key seed.
	SeedSize = 64
	// MessageSize is the size of the encapsulation randomness m.
	MessageSize = 32
)

var (
	MLKEM512  = &Params{name: "ML-KEM-512", k: 2, eta1: 3, du: 10, dv: 4, sampleMatrix: sampleMatrixFIPS, fipsMatrix: true}
	MLKEM768  = &Params{name: "ML-KEM-768", k: 3, eta1: 2, du: 10, dv: 4, sampleMatrix: sampleMatrixFIPS, fipsMatrix: true}
	MLKEM1024 = &Params{name: "ML-KEM-1024", k: 4, eta1: 2, du: 11, dv: 5, sampleMatrix: sampleMatrixFIPS, fipsMatrix: true}
)

// Name is the parameter set's name as FIPS 203 writes it.
func (p *Params) Name() string { return p.name }

// K is the module rank.
func (p *Params) K() int { return p.k }

// EncapsulationKeySize is 384k + 32.
func (p *Params) EncapsulationKeySize() int { return encodingSize12*p.k + 32 }

// DecapsulationKeySize is the size of the expanded decapsulation key,
// 768k + 96.
func (p *Params) DecapsulationKeySize() int { return 2*encodingSize12*p.k + 96 }

// CiphertextSize is 32 (du k + dv).
func (p *Params) CiphertextSize() int { return 32 * (int(p.du)*p.k + int(p.dv)) }

func (p *Params) c1Size() int { return 32 * int(p.du) * p.k }

// level is the assembly level this package runs: cpuid.Max(), chosen once
// when the process starts (the CPU, the build, PQKEM_CPU). Tests lower it
// to run the generic path too (cpuLevels, internal/cpuid/cpuidtest);
// nothing else writes it.
// Only dispatch_amd64.go reads it.
var level = cpuid.Max()
