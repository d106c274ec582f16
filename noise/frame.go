package noise

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
)

// Framing on a stream: every Noise message, handshake or transport, is
// sent as a 2-byte big-endian length and the message (Noise section 3
// suggests it). The length cannot exceed MaxMessageSize, so a frame is at
// most 65,537 bytes, and that is all the memory a peer can make a
// connection hold for reading.

const (
	frameHeaderSize = 2
	maxFrameSize    = frameHeaderSize + MaxMessageSize
	initialBufSize  = 8 << 10
)

// frameReader reads frames from r, keeping the bytes read past the
// current frame. After an error that may be temporary (a deadline), the
// bytes read so far are kept and a later call goes on where it left.
type frameReader struct {
	r        io.Reader
	buf      []byte // held data is buf[off:end]
	off, end int
}

// reserve makes the buffer, if there is none yet, hold at least n bytes
// (at most a whole frame), so that frames up to n bytes need no growing.
func (f *frameReader) reserve(n int) {
	if f.buf == nil {
		f.buf = make([]byte, min(max(n, initialBufSize), maxFrameSize))
	}
}

// next returns the next frame's message, which stays valid until the
// following call; it may be modified in place. check is called with the
// length from the header before the message is read, and its error is
// returned. At a frame boundary, end of input is io.EOF; inside a frame it
// is an error wrapping [ErrTruncated] (and so io.ErrUnexpectedEOF).
func (f *frameReader) next(check func(n int) error) ([]byte, error) {
	checked := false
	for {
		held := f.end - f.off
		if held >= frameHeaderSize {
			n := int(binary.BigEndian.Uint16(f.buf[f.off:]))
			if !checked {
				if err := check(n); err != nil {
					return nil, err
				}
				checked = true
			}
			if held >= frameHeaderSize+n {
				msg := f.buf[f.off+frameHeaderSize : f.off+frameHeaderSize+n]
				f.off += frameHeaderSize + n
				return msg, nil
			}
			if len(f.buf) < frameHeaderSize+n {
				// Grow to hold this frame, at least doubling, so that
				// frames of growing sizes grow the buffer a few times
				// only, and never past the largest frame; the held bytes
				// move to the front. A handshake of large KEM messages
				// (FrodoKEM's, up to 64,960 bytes) holds what it needs.
				buf := make([]byte, min(max(frameHeaderSize+n, 2*len(f.buf)), maxFrameSize))
				f.end = copy(buf, f.buf[f.off:f.end])
				f.buf, f.off = buf, 0
			}
		}
		f.reserve(initialBufSize)
		if f.off > 0 {
			f.end = copy(f.buf, f.buf[f.off:f.end])
			f.off = 0
		}
		m, err := f.r.Read(f.buf[f.end:])
		f.end += m
		if err != nil && m == 0 {
			if errors.Is(err, io.EOF) {
				if f.end == f.off {
					return nil, io.EOF
				}
				return nil, fmt.Errorf("%w: closed inside a frame (%d bytes of it read)", ErrTruncated, f.end-f.off)
			}
			return nil, err
		}
	}
}

// appendFrameHeader appends room for a frame header to out.
func appendFrameHeader(out []byte) []byte { return append(out, 0, 0) }

// finishFrame writes the length of the message that follows the header at
// frame[0:2].
func finishFrame(frame []byte) []byte {
	binary.BigEndian.PutUint16(frame, uint16(len(frame)-frameHeaderSize))
	return frame
}
