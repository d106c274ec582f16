package main

import (
	"bufio"
	encbin "encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"

	"github.com/pqkem/pqkem/pake"
)

// A frozen copy of the command's own implementation of the exchange
// before it called pake.Client and pake.Server, kept so that
// TestPakeWireCompat checks that today's code speaks the same wire format
// as the pqkem pake already in users' hands. Do not change it.

const (
	pakeHelloV1    = "pqkem pake v1\x00"
	pakeMaxFrameV1 = 1 << 16
	pakeAbortV1    = 0x00
	pakeAcceptV1   = 0x01
)

func pakeRespondCompat(conn net.Conn, creds *pake.Credentials) ([]byte, error) {
	return pakeRespondV1(conn, creds, func() error { return nil })
}

func pakeInitiateCompat(conn net.Conn, creds *pake.Credentials) ([]byte, error) {
	return pakeInitiateV1(conn, creds)
}

// pakeRespondV1 runs the listener's side of the exchange on conn, whose
// deadline is set. It calls attempt before it sends msg2, and sends it
// only if attempt returns nil.
func pakeRespondV1(conn net.Conn, creds *pake.Credentials, attempt func() error) ([]byte, error) {
	s := creds.Scheme()
	rw := &pakeFramerV1{conn: conn, r: bufio.NewReader(conn)}
	hello, err := rw.read(len(pakeHelloV1) + 64)
	if err != nil {
		return nil, err
	}
	name, ok := strings.CutPrefix(string(hello), pakeHelloV1)
	if !ok {
		return nil, errors.New("the peer does not speak pqkem pake v1")
	}
	if name != s.Name() {
		return nil, fmt.Errorf("scheme mismatch: the peer uses %q, this side %q (see -scheme)", name, s.Name())
	}
	msg1, err := rw.read(s.Msg1Size())
	if err != nil {
		return nil, err
	}
	if len(msg1) != s.Msg1Size() {
		return nil, fmt.Errorf("invalid msg1 length %d, want %d", len(msg1), s.Msg1Size())
	}
	if err := attempt(); err != nil {
		return nil, err
	}
	r, msg2, err := creds.Respond(msg1)
	if err != nil {
		return nil, err
	}
	if err := rw.write(msg2); err != nil {
		return nil, err
	}
	msg3, err := rw.read(pake.Msg3Size)
	if err != nil {
		return nil, fmt.Errorf("waiting for key confirmation: %w", err)
	}
	if len(msg3) == 1 && msg3[0] == pakeAbortV1 {
		// The initiator's check of msg2 failed.
		return nil, errPakeMismatch
	}
	key, err := r.Finish(msg3)
	if errors.Is(err, pake.ErrPasswordMismatch) {
		rw.write([]byte{pakeAbortV1}) // tell the initiator; best effort
		return nil, errPakeMismatch
	}
	if err != nil {
		return nil, err
	}
	if err := rw.write([]byte{pakeAcceptV1}); err != nil {
		clear(key)
		return nil, err
	}
	return key, nil
}

// pakeInitiateV1 runs the connecting side of the exchange on conn, whose
// deadline is set.
func pakeInitiateV1(conn net.Conn, creds *pake.Credentials) ([]byte, error) {
	s := creds.Scheme()
	rw := &pakeFramerV1{conn: conn, r: bufio.NewReader(conn)}
	if err := rw.write([]byte(pakeHelloV1 + s.Name())); err != nil {
		return nil, err
	}
	st, msg1, err := creds.Start()
	if err != nil {
		return nil, err
	}
	if err := rw.write(msg1); err != nil {
		return nil, err
	}
	msg2, err := rw.read(s.Msg2Size())
	if err != nil {
		return nil, err
	}
	if len(msg2) != s.Msg2Size() {
		return nil, fmt.Errorf("invalid msg2 length %d, want %d", len(msg2), s.Msg2Size())
	}
	key, msg3, err := st.Finish(msg2)
	if errors.Is(err, pake.ErrPasswordMismatch) {
		rw.write([]byte{pakeAbortV1}) // tell the listener; best effort
		return nil, errPakeMismatch
	}
	if err != nil {
		return nil, err
	}
	if err := rw.write(msg3); err != nil {
		clear(key)
		return nil, err
	}
	ack, err := rw.read(1)
	if err != nil {
		clear(key)
		return nil, fmt.Errorf("waiting for the listener's acknowledgement: %w", err)
	}
	if len(ack) != 1 || ack[0] != pakeAcceptV1 {
		clear(key)
		return nil, errPakeMismatch
	}
	return key, nil
}

// pakeFramerV1 reads and writes length-prefixed frames, within the
// deadline of the whole exchange set on the connection.
type pakeFramerV1 struct {
	conn net.Conn
	r    *bufio.Reader
}

func (f *pakeFramerV1) write(payload []byte) error {
	buf := encbin.BigEndian.AppendUint32(make([]byte, 0, 4+len(payload)), uint32(len(payload)))
	_, err := f.conn.Write(append(buf, payload...))
	if ne, ok := err.(net.Error); ok && ne.Timeout() {
		return errors.New("timed out sending to the peer (-timeout is for the whole exchange)")
	}
	if err != nil {
		return fmt.Errorf("sending to the peer: %w", err)
	}
	return nil
}

// read reads one frame of at most max bytes.
func (f *pakeFramerV1) read(max int) ([]byte, error) {
	var hdr [4]byte
	if _, err := io.ReadFull(f.r, hdr[:]); err != nil {
		return nil, pakeReadErrorV1(err)
	}
	n := encbin.BigEndian.Uint32(hdr[:])
	if n == 0 || n > uint32(max) || n > pakeMaxFrameV1 {
		return nil, fmt.Errorf("invalid message from the peer: frame length %d, want 1 to %d", n, max)
	}
	buf := make([]byte, n)
	if _, err := io.ReadFull(f.r, buf); err != nil {
		return nil, pakeReadErrorV1(err)
	}
	return buf, nil
}

func pakeReadErrorV1(err error) error {
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return errors.New("the peer closed the connection")
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return errors.New("timed out waiting for the peer (-timeout is for the whole exchange)")
	}
	return fmt.Errorf("reading from the peer: %w", err)
}
