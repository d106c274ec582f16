package pake

// Tempo's KEM is stock FIPS 203 ML-KEM: internal/fips203, the
// implementation package mlkem wraps, with the standard parameter sets, as
// NoIC-A0 runs it.

// tempoKey is the initiator's ephemeral ML-KEM key.
type tempoKey struct{ fipsKey }
