package pake

import (
	"errors"

	"github.com/pqkem/pqkem/mlkem"
)

// Tempo's KEM is stock FIPS 203 ML-KEM from package mlkem: the initiator's
// key is an mlkem.DecapsulationKeyNNN, and the responder parses the
// recovered key with mlkem.NewEncapsulationKeyNNN.

// tempoDeterministic, set by the tests, encapsulates with a fixed m
// (mlkemtest.EncapsulateNNN), for the known-answer tests. Package mlkem
// offers no derandomized encapsulation outside mlkemtest, which production
// code should not link.
var tempoDeterministic func(level int, ek []byte, m []byte) (K, ct []byte, err error)

type tempoKey struct {
	ek       []byte
	dec      func(ct []byte) ([]byte, error)
	expanded func() []byte
}

func (k *tempoKey) encapsulationKey() []byte              { return k.ek }
func (k *tempoKey) decapsulate(ct []byte) ([]byte, error) { return k.dec(ct) }
func (k *tempoKey) expandedBytes() []byte                 { return k.expanded() }

func tempoBackend(level int) backend {
	b := backend{}
	var enc func(ek []byte) (K, ct []byte, err error)
	switch level {
	case 512:
		b.ctSize = mlkem.CiphertextSize512
		b.newKey = func(seed []byte, _ *presampled) (initKey, error) {
			dk, err := mlkem.NewDecapsulationKey512(seed)
			if err != nil {
				return nil, err
			}
			return &tempoKey{ek: dk.EncapsulationKey().Bytes(), dec: dk.Decapsulate, expanded: dk.ExpandedBytes}, nil
		}
		enc = func(b []byte) ([]byte, []byte, error) {
			ek, err := mlkem.NewEncapsulationKey512(b)
			if err != nil {
				return nil, nil, err
			}
			K, ct := ek.Encapsulate()
			return K, ct, nil
		}
	case 768:
		b.ctSize = mlkem.CiphertextSize768
		b.newKey = func(seed []byte, _ *presampled) (initKey, error) {
			dk, err := mlkem.NewDecapsulationKey768(seed)
			if err != nil {
				return nil, err
			}
			return &tempoKey{ek: dk.EncapsulationKey().Bytes(), dec: dk.Decapsulate, expanded: dk.ExpandedBytes}, nil
		}
		enc = func(b []byte) ([]byte, []byte, error) {
			ek, err := mlkem.NewEncapsulationKey768(b)
			if err != nil {
				return nil, nil, err
			}
			K, ct := ek.Encapsulate()
			return K, ct, nil
		}
	case 1024:
		b.ctSize = mlkem.CiphertextSize1024
		b.newKey = func(seed []byte, _ *presampled) (initKey, error) {
			dk, err := mlkem.NewDecapsulationKey1024(seed)
			if err != nil {
				return nil, err
			}
			return &tempoKey{ek: dk.EncapsulationKey().Bytes(), dec: dk.Decapsulate, expanded: dk.ExpandedBytes}, nil
		}
		enc = func(b []byte) ([]byte, []byte, error) {
			ek, err := mlkem.NewEncapsulationKey1024(b)
			if err != nil {
				return nil, nil, err
			}
			K, ct := ek.Encapsulate()
			return K, ct, nil
		}
	}
	b.encapsulate = func(ek []byte, m *[32]byte, _ *presampled) ([]byte, []byte, error) {
		if m == nil {
			return enc(ek)
		}
		if tempoDeterministic == nil {
			return nil, nil, errors.New("pake: derandomized Tempo encapsulation is for tests only")
		}
		return tempoDeterministic(level, ek, m[:])
	}
	return b
}
