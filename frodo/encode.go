package frodo

import "encoding/binary"

// pack writes the low p.logq bits of each entry of in to out, most
// significant bit first (Frodo.Pack). len(out) must be
// len(in)*logq/8, and len(in) a multiple of 8.
func (p *ParameterSet) pack(out []byte, in []uint16) {
	if p.logq == 16 {
		for i, v := range in {
			binary.BigEndian.PutUint16(out[2*i:], v)
		}
		return
	}
	// D = 15: eight entries make 15 bytes, written as two big-endian
	// 64-bit words; the second's last byte is the next group's first,
	// which the next group writes over, so where no group follows (the
	// end of out) the words go through a buffer.
	const m = 0x7fff
	for len(in) >= 8 {
		v := in[:8]
		// 120 bits: hi holds the top 60, lo the low 60.
		hi := uint64(v[0]&m)<<45 | uint64(v[1]&m)<<30 | uint64(v[2]&m)<<15 | uint64(v[3]&m)
		lo := uint64(v[4]&m)<<45 | uint64(v[5]&m)<<30 | uint64(v[6]&m)<<15 | uint64(v[7]&m)
		w0, w1 := hi<<4|lo>>56, lo<<8
		if len(out) >= 16 {
			binary.BigEndian.PutUint64(out[0:8], w0)
			binary.BigEndian.PutUint64(out[8:16], w1)
		} else {
			var b [16]byte
			binary.BigEndian.PutUint64(b[0:], w0)
			binary.BigEndian.PutUint64(b[8:], w1)
			copy(out[:15], b[:15])
		}
		out, in = out[15:], in[8:]
	}
}

// unpack is the inverse of pack (Frodo.Unpack): every entry of out gets
// logq bits of in, so every input decodes, to values below q.
func (p *ParameterSet) unpack(out []uint16, in []byte) {
	if p.logq == 16 {
		for i := range out {
			out[i] = binary.BigEndian.Uint16(in[2*i:])
		}
		return
	}
	const m = 0x7fff
	for len(out) >= 8 {
		var x, y uint64
		if len(in) >= 16 {
			x = binary.BigEndian.Uint64(in[0:8])
			y = binary.BigEndian.Uint64(in[8:16]) // its last byte is not this group's
		} else {
			var b [16]byte
			copy(b[:15], in[:15])
			x = binary.BigEndian.Uint64(b[0:])
			y = binary.BigEndian.Uint64(b[8:])
		}
		hi := x >> 4             // the first 60 bits
		lo := (x&0xf)<<56 | y>>8 // the last 60 bits
		o := out[:8]
		o[0], o[1], o[2], o[3] = uint16(hi>>45&m), uint16(hi>>30&m), uint16(hi>>15&m), uint16(hi&m)
		o[4], o[5], o[6], o[7] = uint16(lo>>45&m), uint16(lo>>30&m), uint16(lo>>15&m), uint16(lo&m)
		out, in = out[8:], in[15:]
	}
}

// encodeKey sets out (n̄ x n̄) to Frodo.Encode(mu): each B bits of mu, read
// as a little-endian bit string, become the top B bits of one entry.
func (p *ParameterSet) encodeKey(out *[nbar * nbar]uint16, mu []byte) {
	shift := p.logq - uint(p.b)
	mask := uint64(1)<<p.b - 1
	for i := range nbar {
		var t uint64
		for j := range p.b {
			t |= uint64(mu[i*p.b+j]) << (8 * j)
		}
		for j := range 8 {
			out[8*i+j] = uint16((t & mask) << shift)
			t >>= p.b
		}
	}
}

// decodeKey writes Frodo.Decode(w) to mu: each entry rounded to its top
// B bits. It runs in constant time.
func (p *ParameterSet) decodeKey(mu []byte, w *[nbar * nbar]uint16) {
	shift := p.logq - uint(p.b)
	maskex := uint64(1)<<p.b - 1
	q1 := uint64(p.q1())
	for i := range nbar {
		var t uint64
		for j := range 8 {
			v := ((uint64(w[8*i+j]) & q1) + 1<<(shift-1)) >> shift
			t |= (v & maskex) << (p.b * j)
		}
		for j := range p.b {
			mu[i*p.b+j] = byte(t >> (8 * j))
		}
	}
}

// sampleGeneric replaces each entry of s, 16 uniformly random bits, with a sample
// of the error distribution (Frodo.SampleMatrix with the table p.cdf). The
// comparison runs against the whole table, without branches or indexes that
// depend on the sample.
func (p *ParameterSet) sampleGeneric(s []uint16) {
	cdf := p.cdf[:len(p.cdf)-1] // no need to compare with the last value
	for i, r := range s {
		prnd := r >> 1
		sign := r & 1
		var e uint16
		for _, c := range cdf {
			// 1 if c < prnd: both are 15-bit values, so the difference's
			// sign bit is the comparison.
			e += (c - prnd) >> 15
		}
		s[i] = (-sign ^ e) + sign
	}
}

// leUint16s decodes little-endian 16-bit values: len(out) from 2*len(out)
// bytes of in.
func leUint16s(out []uint16, in []byte) {
	in = in[:2*len(out)]
	for i := range out {
		out[i] = binary.LittleEndian.Uint16(in[2*i:])
	}
}
