package proxyproto

import "encoding/binary"

// A TLV is a typed value that a header carries after the addresses
// (section 2.2.7 of the specification): one byte of type, two bytes of
// length and the value.
type TLV struct {
	Type  byte
	Value []byte
}

// Types of TLVs (section 2.2.7).
const (
	// TypeUniqueID is PP2_TYPE_UNIQUE_ID: an opaque id of the connection,
	// up to 128 bytes, unique to it.
	TypeUniqueID byte = 0x05

	// TypeMinCustom and TypeMaxCustom bound PP2_TYPE_MIN_CUSTOM to
	// PP2_TYPE_MAX_CUSTOM, the range the specification keeps for
	// application-specific data; no other application or proxy uses it.
	TypeMinCustom byte = 0xE0
	TypeMaxCustom byte = 0xEF
)

// tlvHeaderLen is the length of a TLV's type and length fields.
const tlvHeaderLen = 1 + 2

// append appends t to b. Its value must not be longer than 65,535 bytes.
func (t TLV) append(b []byte) []byte {
	b = append(b, t.Type)
	b = binary.BigEndian.AppendUint16(b, uint16(len(t.Value)))
	return append(b, t.Value...)
}
