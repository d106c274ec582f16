package noise

import (
	"bytes"
	"testing"
	"testing/iotest"
)

// TestFrameReaderGrowth reads frames of growing and shrinking sizes, whole
// and one byte at a time, and checks every message and that the buffer
// grows to what the frames need, never past the largest frame. In the
// second sequence, doubling the buffer would pass the largest frame: the
// first frame grows it to exactly its own size, which doubles twice to
// more than 64 KiB.
func TestFrameReaderGrowth(t *testing.T) {
	for _, sizes := range [][]int{
		{0, 5, initialBufSize - frameHeaderSize, initialBufSize, 19386, 9770, MaxMessageSize, 3, MaxMessageSize},
		{19386, 30000, 40000, MaxMessageSize},
	} {
		var stream []byte
		for i, n := range sizes {
			frame := finishFrame(append(appendFrameHeader(nil), bytes.Repeat([]byte{byte(i + 1)}, n)...))
			stream = append(stream, frame...)
		}
		for _, oneByte := range []bool{false, true} {
			f := frameReader{r: bytes.NewReader(stream)}
			if oneByte {
				f.r = iotest.OneByteReader(bytes.NewReader(stream))
			}
			for i, n := range sizes {
				msg, err := f.next(func(int) error { return nil })
				if err != nil {
					t.Fatalf("frame %d: %v", i, err)
				}
				if !bytes.Equal(msg, bytes.Repeat([]byte{byte(i + 1)}, n)) {
					t.Fatalf("frame %d: got %d bytes, want %d bytes of %d", i, len(msg), n, i+1)
				}
				if len(f.buf) > maxFrameSize {
					t.Fatalf("frame %d of %d bytes: buffer of %d bytes, over the largest frame's %d", i, n, len(f.buf), maxFrameSize)
				}
				if n == 19386 && len(f.buf) >= maxFrameSize {
					t.Errorf("a %d-byte frame grew the buffer to %d bytes, the largest frame's size", n, len(f.buf))
				}
			}
			if _, err := f.next(func(int) error { return nil }); err == nil {
				t.Fatal("no error at the end of the stream")
			}
		}
	}
}
