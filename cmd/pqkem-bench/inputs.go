package main

import (
	"bytes"
	"crypto/sha3"
	"fmt"
	"unsafe"

	"github.com/pqkem/pqkem/internal/dudect"
	"github.com/pqkem/pqkem/kem"
	"github.com/pqkem/pqkem/kem/kemtest"
	"github.com/pqkem/pqkem/pake"
)

// The inputs of the targets: for each, two classes of inputs placed alike
// in memory, and the operation that reads them.

// poolSize is how many distinct inputs of size bytes each class draws
// from: 4096, or 1024 for inputs above 4 KiB (FrodoKEM ciphertexts).
//
// Two finite pools of inputs of one kind differ a little in time (where
// each input lies, what it makes the code do), and with 10^5 measurements
// and more that difference shows: two pools of 256 valid ML-KEM-512
// ciphertexts gave |t| up to 5.5 here. The difference of the pools' means
// shrinks as 1/sqrt(poolSize).
func poolSize(size int) int {
	if size > 4096 {
		return 1024
	}
	return 4096
}

// slots returns 2 * poolSize(size) buffers of size bytes, class by class,
// each at the start of its own run of whole 4 KiB pages in one allocation,
// the runs dealt to the two classes in a random order.
//
// Where an input lies can change the time of an operation on it, and that
// must not differ between the classes. Two classes allocated one after
// the other differ systematically in address (an early version of this
// package saw |t| near 50 for ML-KEM-512 decapsulation from that alone);
// with every input at the same offset in a page they use the same L1
// sets; and dealing the pages at random, not alternately, keeps the
// classes from differing in a bit of the physical address (with huge
// pages, alternate 4 KiB pages differ in bit 12, an L2 set-index bit).
//
// Each input still sat on its own page, with its own fixed timing offset,
// and a class's pool of 4096 does not average those away at 10^6
// measurements (|t| from that grows as sqrt(n / 4096)): the likeliest
// cause of the |t| between 4.5 and 10 that some constant-time targets
// showed (SIDE_CHANNELS.md). So the operations now read every input from
// one buffer, into which dudect.Split's untimed Setup copies it.
func slots(size int) [2][][]byte {
	stride := (size + 4095) &^ 4095
	count := poolSize(size)
	arena := make([]byte, 2*count*stride+4096)
	// Align the first slot to a page.
	off := 0
	if r := int(uintptr(unsafe.Pointer(&arena[0])) & 4095); r != 0 {
		off = 4096 - r
	}
	// A random balanced dealing of the 2 * count slots.
	deal := make([]int, 2*count)
	for i := range deal {
		deal[i] = i % 2
	}
	for i := len(deal) - 1; i > 0; i-- {
		j := dudect.RandomIndex(i + 1)
		deal[i], deal[j] = deal[j], deal[i]
	}
	var out [2][][]byte
	for i, c := range deal {
		b := arena[off+i*stride : off+i*stride+size : off+i*stride+size]
		out[c] = append(out[c], b)
	}
	return out
}

// aaOp is the A/A control: ML-KEM-768 decapsulation of the same inputs
// in both classes. Whatever |t| it gives is the harness's noise floor on
// this machine and path.
func aaOp() (dudect.Split, error) {
	s, err := kem.ByName("ML-KEM-768")
	if err != nil {
		return dudect.Split{}, err
	}
	dk, err := s.GenerateKey()
	if err != nil {
		return dudect.Split{}, err
	}
	ek := dk.EncapsulationKey()
	op, err := decapOp(func() ([]byte, error) {
		_, ct := ek.Encapsulate()
		return ct, nil
	}, dk.Decapsulate)
	if err != nil {
		return dudect.Split{}, err
	}
	setup := op.Setup
	op.Setup = func(_, i int) { setup(0, i) }
	return op, nil
}

// decapOp prepares poolSize valid ciphertexts and as many copies with one
// random bit flipped, checks that decapsulation tells them apart (the
// valid ones give the encapsulated key, or at least keys that differ from
// those of the tampered ones), and returns the decapsulation of class 0
// (valid) or 1 (tampered) input i, copied first (untimed) into the one
// buffer that every decapsulation reads.
func decapOp(encapsulate func() ([]byte, error), decapsulate func([]byte) ([]byte, error)) (dudect.Split, error) {
	var pool [2][][]byte
	for i := 0; i == 0 || i < len(pool[0]); i++ {
		ct, err := encapsulate()
		if err != nil {
			return dudect.Split{}, err
		}
		if i == 0 {
			pool = slots(len(ct))
		}
		good, bad := pool[0][i], pool[1][i]
		copy(good, ct)
		// The tampered ciphertext must be well formed, so that it takes
		// the implicit-rejection path and not an early error: a flipped
		// bit in the elliptic-curve point of a hybrid usually takes the
		// point off the curve, which Decapsulate reports at once. That
		// is public (anyone can check the point), but it would make the
		// classes differ for a reason that is not the secret's. Draw
		// again until Decapsulate accepts the ciphertext.
		for try := 0; ; try++ {
			copy(bad, ct)
			bit := dudect.RandomIndex(8 * len(bad))
			bad[bit/8] ^= 1 << (bit % 8)
			if _, err := decapsulate(bad); err == nil {
				break
			}
			if try == 1000 {
				return dudect.Split{}, fmt.Errorf("no one-bit change of a ciphertext decapsulates without an error")
			}
		}
	}
	k0, err := decapsulate(pool[0][0])
	if err != nil {
		return dudect.Split{}, err
	}
	k1, err := decapsulate(pool[1][0])
	if err != nil {
		return dudect.Split{}, err
	}
	if bytes.Equal(k0, k1) {
		return dudect.Split{}, fmt.Errorf("a tampered ciphertext decapsulates to the valid one's key")
	}
	buf := make([]byte, len(pool[0][0]))
	return dudect.Split{
		Setup: func(class, i int) { copy(buf, pool[class][i%len(pool[class])]) },
		Run:   func() { decapsulate(buf) },
	}, nil
}

// singleUseDecapOp is decapOp for a single-use scheme (the CCS 2016 Frodo
// key exchange), whose key serves one decapsulation: the untimed Setup
// makes a fresh key from one fixed seed (through kemtest.GenerateKey: the
// scheme makes no key from bytes), so that class 0's valid ciphertexts are
// all for it, and class 1 is random ciphertexts of the same length, which
// Alice1 reconciles all the same.
func singleUseDecapOp(s kem.Scheme) (dudect.Split, error) {
	seed := dudect.RandomBytes(kemtest.KeySeedSize(s))
	dk, err := kemtest.GenerateKey(s, seed)
	if err != nil {
		return dudect.Split{}, err
	}
	ek := dk.EncapsulationKey()
	pool := slots(s.CiphertextSize())
	var want []byte
	for i := range pool[0] {
		K, ct := ek.Encapsulate()
		if i == 0 {
			want = K
		}
		copy(pool[0][i], ct)
		copy(pool[1][i], dudect.RandomBytes(len(ct)))
	}
	if K, err := dk.Decapsulate(pool[0][0]); err != nil || !bytes.Equal(K, want) {
		return dudect.Split{}, fmt.Errorf("a valid ciphertext does not decapsulate to its key: %v", err)
	}
	buf := make([]byte, s.CiphertextSize())
	return dudect.Split{
		Setup: func(class, i int) {
			copy(buf, pool[class][i%len(pool[class])])
			dk, _ = kemtest.GenerateKey(s, seed)
		},
		Run: func() { dk.Decapsulate(buf) },
	}, nil
}

// alice0Op times the key generation of a single-use scheme (Alice0 of the
// CCS 2016 key exchange, derandomized through kemtest.GenerateKey) from
// one fixed seed (class 0) and from seeds that keep its first 16 bytes,
// seedA, and draw the rest, the sampler keys of S and E, at random (class
// 1): the classes differ only in the secrets.
func alice0Op(s kem.Scheme) (dudect.Split, error) {
	n := kemtest.KeySeedSize(s)
	fixed := dudect.RandomBytes(n)
	seeds := slots(n)
	for i := range seeds[0] {
		copy(seeds[0][i], fixed)
		copy(seeds[1][i], fixed[:16])
		copy(seeds[1][i][16:], dudect.RandomBytes(n-16))
	}
	if _, err := kemtest.GenerateKey(s, fixed); err != nil {
		return dudect.Split{}, err
	}
	buf := make([]byte, n)
	return dudect.Split{
		Setup: func(class, i int) { copy(buf, seeds[class][i%len(seeds[class])]) },
		Run:   func() { kemtest.GenerateKey(s, buf) },
	}, nil
}

// bobOp times the derandomized encapsulation of a single-use scheme (Bob
// of the CCS 2016 key exchange) to one encapsulation key, with one fixed
// randomness (class 0) against random ones (class 1).
func bobOp(s kem.Scheme) (dudect.Split, error) {
	dk, err := s.GenerateKey()
	if err != nil {
		return dudect.Split{}, err
	}
	ek := dk.EncapsulationKey()
	n := s.EncapsulationSeedSize()
	fixed := dudect.RandomBytes(n)
	rs := slots(n)
	for i := range rs[0] {
		copy(rs[0][i], fixed)
		copy(rs[1][i], dudect.RandomBytes(n))
	}
	if _, _, err := kemtest.Encapsulate(ek, fixed); err != nil {
		return dudect.Split{}, err
	}
	buf := make([]byte, n)
	return dudect.Split{
		Setup: func(class, i int) { copy(buf, rs[class][i%len(rs[class])]) },
		Run:   func() { kemtest.Encapsulate(ek, buf) },
	}, nil
}

// a0Bytes returns the number of SHAKE128 bytes FIPS 203 SampleNTT
// (Algorithm 7) reads for seed before it has 256 coefficients: the
// position after the last three-byte group it parses.
func a0Bytes(seed *[34]byte) int {
	h := sha3.NewSHAKE128()
	h.Write(seed[:])
	var buf [168]byte
	read, got := 0, 0
	for {
		h.Read(buf[:])
		for j := 0; j < len(buf); j += 3 {
			d1 := uint16(buf[j]) | uint16(buf[j+1]&0x0f)<<8
			d2 := uint16(buf[j+1])>>4 | uint16(buf[j+2])<<4
			if d1 < 3329 {
				got++
			}
			if d2 < 3329 && got < 256 {
				got++
			}
			if got == 256 {
				return read + j + 3
			}
		}
		read += len(buf)
	}
}

// samplerSeeds returns poolSize inputs for which SampleNTT reads at most
// 3 blocks less 60 bytes (class 0) and as many that need a fourth block
// (class 1, about 1 input in 120).
func samplerSeeds() [2][]*[34]byte {
	sl := slots(34)
	size := len(sl[0])
	var pool [2][]*[34]byte
	for len(pool[0]) < size || len(pool[1]) < size {
		var s [34]byte
		copy(s[:], dudect.RandomBytes(34))
		switch b := a0Bytes(&s); {
		case b <= 3*168-60 && len(pool[0]) < size:
			p := (*[34]byte)(sl[0][len(pool[0])])
			*p = s
			pool[0] = append(pool[0], p)
		case b > 3*168 && len(pool[1]) < size:
			p := (*[34]byte)(sl[1][len(pool[1])])
			*p = s
			pool[1] = append(pool[1], p)
		}
	}
	return pool
}

func samplerOp(smp pake.Sampler) (dudect.Split, error) {
	pool := samplerSeeds()
	var out [256]uint16
	var seed [34]byte
	return dudect.Split{
		Setup: func(class, i int) { seed = *pool[class][i%len(pool[class])] },
		Run:   func() { smp.Sample(&out, &seed) },
	}, nil
}

func respondOp(s *pake.Scheme) (dudect.Split, error) {
	pw0, sid := dudect.RandomBytes(pake.PasswordSize), dudect.RandomBytes(32)
	_, msg1, err := s.Start(pw0, sid)
	if err != nil {
		return dudect.Split{}, err
	}
	// Class 0 is copies of pw0, placed as class 1's random passwords are
	// (see slots).
	pws := slots(pake.PasswordSize)
	for i := range pws[0] {
		copy(pws[0][i], pw0)
		copy(pws[1][i], dudect.RandomBytes(pake.PasswordSize))
	}
	if _, _, err := s.Respond(pw0, sid, msg1); err != nil {
		return dudect.Split{}, err
	}
	pw := make([]byte, pake.PasswordSize)
	return dudect.Split{
		Setup: func(class, i int) { copy(pw, pws[class][i%len(pws[class])]) },
		Run:   func() { s.Respond(pw, sid, msg1) },
	}, nil
}

// earlyExitEqual is the compare the CRYPTO 2020 attack on FrodoKEM
// exploited: it returns at the first difference. Variable time on purpose.
//
//go:noinline
func earlyExitEqual(a, b []byte) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// compareOp compares a with b, a copy of a whose first byte the class
// sets: different (class 0) or equal (class 1). Both classes use the same
// two buffers, so that no difference of address or alignment between the
// classes' inputs can show up as a difference in time.
func compareOp(equal func(a, b []byte) bool) dudect.Split {
	a := dudect.RandomBytes(1024)
	b := bytes.Clone(a)
	first := [2]byte{a[0] ^ 1, a[0]}
	return dudect.Split{
		Setup: func(class, i int) { b[0] = first[class] },
		Run:   func() { equal(a, b) },
	}
}
