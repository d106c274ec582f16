package pake

import (
	"crypto/sha3"
	"encoding/binary"
	"errors"
	"fmt"

	"golang.org/x/crypto/argon2"

	"github.com/pqkem/pqkem/internal/secret"
)

// Argon2Params are the Argon2id costs of the password hash.
type Argon2Params struct {
	Time    uint32 // passes over memory
	Memory  uint32 // KiB
	Threads uint8  // lanes
}

// DefaultArgon2 returns the second recommended option of RFC 9106
// (section 4): Argon2id with t = 3 passes, m = 64 MiB and p = 4 lanes,
// the costs [NewCredentials] uses when given none. Both parties must use
// the same costs; different costs give different pw, which looks like a
// wrong password.
func DefaultArgon2() Argon2Params { return Argon2Params{Time: 3, Memory: 64 * 1024, Threads: 4} }

// The labels of the derivation; see NewCredentials.
const (
	saltLabel = "pqkem pake v1 argon2id salt"
	sidLabel  = "pqkem pake v1 sid"
)

// Credentials are the low-level pw and sid of one scheme, derived from a
// human password and the two parties' identities by [NewCredentials]. A
// value may start or answer any number of sessions (each with fresh
// randomness); the expensive password hash runs once, in NewCredentials.
type Credentials struct {
	scheme *Scheme
	pw     [PasswordSize]byte
	sid    [SessionIDSize]byte
}

// NewCredentials derives the 32-byte pw and sid of scheme s from a human
// password and the identities of the initiator and the responder (any
// strings the two parties agree on, such as user and server names; they
// may be empty), with the Argon2id costs kdf (nil means [DefaultArgon2]).
// Both parties pass the identities in the same order: initiator first.
//
// The derivation, with lp(x) = the 4-byte big-endian length of x ‖ x:
//
//	ctx  = lp(s.Name()) ‖ lp(initiatorID) ‖ lp(responderID)
//	salt = SHA3-256(lp("pqkem pake v1 argon2id salt") ‖ ctx)
//	pw   = Argon2id(password, salt, kdf.Time, kdf.Memory, kdf.Threads, 32 bytes)
//	sid  = SHA3-256(lp("pqkem pake v1 sid") ‖ ctx)
//
// so pw is a memory-hard, salted hash bound to the protocol, the level, the
// sampler and both identities (a dictionary precomputed for one pair of
// identities or one scheme is useless for another), and sid is public,
// agreed without a message, and binds the transcript hash to the same
// context. The password is used as given (no Unicode normalization).
func NewCredentials(s *Scheme, password []byte, initiatorID, responderID string, kdf *Argon2Params) (*Credentials, error) {
	if s == nil {
		return nil, errors.New("pake: nil scheme")
	}
	if len(password) == 0 {
		return nil, errors.New("pake: empty password")
	}
	if kdf == nil {
		d := DefaultArgon2()
		kdf = &d
	}
	if kdf.Time < 1 || kdf.Threads < 1 || kdf.Memory < 8*uint32(kdf.Threads) {
		return nil, fmt.Errorf("pake: invalid Argon2id costs t=%d, m=%d KiB, p=%d (want t >= 1, p >= 1, m >= 8p)", kdf.Time, kdf.Memory, kdf.Threads)
	}
	salt, sid := saltAndSID(s, initiatorID, responderID)
	c := &Credentials{scheme: s, sid: sid}
	secret.Do(func() {
		pw := argon2.IDKey(password, salt[:], kdf.Time, kdf.Memory, kdf.Threads, PasswordSize)
		copy(c.pw[:], pw)
		clear(pw)
	})
	return c, nil
}

func saltAndSID(s *Scheme, initiatorID, responderID string) (salt, sid [32]byte) {
	var ctx []byte
	for _, f := range []string{s.Name(), initiatorID, responderID} {
		ctx = lp(ctx, f)
	}
	salt = sha3.Sum256(append(lp(nil, saltLabel), ctx...))
	sid = sha3.Sum256(append(lp(nil, sidLabel), ctx...))
	return salt, sid
}

func lp(b []byte, s string) []byte {
	b = binary.BigEndian.AppendUint32(b, uint32(len(s)))
	return append(b, s...)
}

// Scheme returns the scheme the credentials were derived for.
func (c *Credentials) Scheme() *Scheme { return c.scheme }

// SessionID returns the derived 32-byte sid (public).
func (c *Credentials) SessionID() []byte { return append([]byte(nil), c.sid[:]...) }

// Start is [Scheme.Start] with the derived pw and sid.
func (c *Credentials) Start() (*Initiator, []byte, error) {
	if c.scheme == nil {
		return nil, nil, errDestroyed
	}
	return c.scheme.Start(c.pw[:], c.sid[:])
}

// Respond is [Scheme.Respond] with the derived pw and sid.
func (c *Credentials) Respond(msg1 []byte) (*Responder, []byte, error) {
	if c.scheme == nil {
		return nil, nil, errDestroyed
	}
	return c.scheme.Respond(c.pw[:], c.sid[:], msg1)
}

var errDestroyed = errors.New("pake: the credentials were destroyed")

// Destroy overwrites the derived password hash. [Credentials.Start] and
// [Credentials.Respond] return an error afterwards.
func (c *Credentials) Destroy() {
	clear(c.pw[:])
	c.scheme = nil
}
