package fips203

// The arrays of the parsed keys, sized for one rank.
//
// The algorithms are written once, on views (encryptionKey, decryptionKey)
// of k polynomials each; the keys hold fixed-size arrays, and the key types
// are generic in which arrays they hold, so that an ML-KEM-512 key is 5 KiB
// instead of the 13 KiB an ML-KEM-1024 key needs (allocation and garbage
// collection are a good part of key generation). EncapsulationKey and
// DecapsulationKey hold arrays for any rank up to maxK (package pake uses
// them); package mlkem uses the per-level types below. The arrays hold no
// pointers, so the garbage collector never scans a key.

// ekArrays is the constraint on the array set E of an encapsulation key.
type ekArrays[E any] interface {
	*E
	// arrays returns t̂ and Â (transposed), at their full capacity.
	arrays() (t, a []nttElement)
}

// dkArrays is the constraint on the array set D of a decapsulation key.
type dkArrays[D any] interface {
	*D
	// arrays returns ŝ and its cache, at their full capacity.
	arrays() (s []nttElement, sCache []nttCache)
}

type (
	ekArrays2 struct {
		t [2]nttElement
		a [2 * 2]nttElement
	}
	ekArrays3 struct {
		t [3]nttElement
		a [3 * 3]nttElement
	}
	ekArrays4 struct {
		t [4]nttElement
		a [4 * 4]nttElement
	}
	dkArrays2 struct {
		s [2]nttElement
		c [2]nttCache
	}
	dkArrays3 struct {
		s [3]nttElement
		c [3]nttCache
	}
	dkArrays4 struct {
		s [4]nttElement
		c [4]nttCache
	}
)

func (e *ekArrays2) arrays() (t, a []nttElement)        { return e.t[:], e.a[:] }
func (e *ekArrays3) arrays() (t, a []nttElement)        { return e.t[:], e.a[:] }
func (e *ekArrays4) arrays() (t, a []nttElement)        { return e.t[:], e.a[:] }
func (d *dkArrays2) arrays() ([]nttElement, []nttCache) { return d.s[:], d.c[:] }
func (d *dkArrays3) arrays() ([]nttElement, []nttCache) { return d.s[:], d.c[:] }
func (d *dkArrays4) arrays() ([]nttElement, []nttCache) { return d.s[:], d.c[:] }

// The key types: for any rank, and for each ML-KEM parameter set.
type (
	EncapsulationKey     = EncapsulationKeyOf[ekArrays4, *ekArrays4]
	DecapsulationKey     = DecapsulationKeyOf[ekArrays4, dkArrays4, *ekArrays4, *dkArrays4]
	EncapsulationKey512  = EncapsulationKeyOf[ekArrays2, *ekArrays2]
	DecapsulationKey512  = DecapsulationKeyOf[ekArrays2, dkArrays2, *ekArrays2, *dkArrays2]
	EncapsulationKey768  = EncapsulationKeyOf[ekArrays3, *ekArrays3]
	DecapsulationKey768  = DecapsulationKeyOf[ekArrays3, dkArrays3, *ekArrays3, *dkArrays3]
	EncapsulationKey1024 = EncapsulationKeyOf[ekArrays4, *ekArrays4]
	DecapsulationKey1024 = DecapsulationKeyOf[ekArrays4, dkArrays4, *ekArrays4, *dkArrays4]
)
