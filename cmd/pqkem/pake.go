package main

import (
	"bytes"
	"context"
	"crypto/sha3"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"strings"
	"time"

	"golang.org/x/term"

	"github.com/pqkem/pqkem/internal/cli"
	"github.com/pqkem/pqkem/pake"
)

var cmdPake = &cli.Command{
	Name:    "pake",
	Summary: "agree on a key with a peer who knows the same password (over TCP)",
	Args:    "listen|connect [-addr HOST:PORT] [-password-file FILE] [flags]",
	Doc: `
Pake runs a password-authenticated key exchange over TCP: two parties
who share only a password (a pairing code, a passphrase) get a common
session key, and nobody on the path learns anything that would let them
test passwords offline. The protocols are NoIC and Tempo on ML-KEM
(package github.com/pqkem/pqkem/pake; its doc gives the wire format).
'pqkem pake listen' is the responder, 'pqkem pake connect' the
initiator. Both read the password from the terminal (without echo) or
the first line of -password-file, and hash it with Argon2id with a salt
bound to the scheme and both identities (-client and -server, the same
on both sides).

The listener serves up to 4 connections at once, each within -timeout,
and stops at the first verdict: the passwords match (status 0) or not
(status 1). A peer that fails before a verdict is reported and the
listener goes on, but each msg2 it sends lets a peer test one password,
so after 3 exchanges that got one and failed it stops (status 1). On
success both sides print the same fingerprint of the session key;
-out writes the key itself ('pqkem help outputs').`,
	Example: `
pqkem pake listen -addr 127.0.0.1:7000
pqkem pake connect -addr 127.0.0.1:7000
pqkem pake connect -addr 192.0.2.7:7000 -password-file pw.txt -client alice -server printer -out key.bin`,
	New: func() cli.Runner { return new(pakeFlags) },
}

// pakeFlags are the flags of pqkem pake, and one run of it.
type pakeFlags struct {
	fs                                              *flag.FlagSet
	addr, passwordFile, scheme, client, server, out string
	force                                           bool
	timeout                                         time.Duration
	argonTime, argonMemory                          uint
	argonThreads                                    uint
}

func (f *pakeFlags) Flags(fs *flag.FlagSet) {
	f.fs = fs
	fs.StringVar(&f.addr, "addr", "127.0.0.1:7000", "TCP `address` to listen on or dial")
	fs.StringVar(&f.passwordFile, "password-file", "", "the password: the first line of `FILE`, not the terminal")
	fs.StringVar(&f.scheme, "scheme", pake.Default().Name(), "<NoIC|Tempo>-<A1|B0|C1>-ML-KEM-<N>, as 'pqkem-bench pake'")
	fs.StringVar(&f.client, "client", "client", "dialer's `name` (same both sides)")
	fs.StringVar(&f.server, "server", "server", "listener's `name` (same both sides)")
	fs.StringVar(&f.out, "out", "", "write the session key to `FILE` (0600), - for stdout")
	fs.BoolVar(&f.force, "force", false, "replace -out if it is an existing regular file")
	fs.DurationVar(&f.timeout, "timeout", 2*time.Minute, "limit on an exchange, and on waiting")
	kdf := pake.DefaultArgon2()
	fs.UintVar(&f.argonTime, "argon2-time", uint(kdf.Time), "Argon2id passes (same both sides)")
	fs.UintVar(&f.argonMemory, "argon2-memory", uint(kdf.Memory), "Argon2id `KiB` (same both sides)")
	fs.UintVar(&f.argonThreads, "argon2-threads", uint(kdf.Threads), "Argon2id lanes (same both sides)")
}

func (f *pakeFlags) Run(out *cli.Output, args []string) error {
	if len(args) == 0 {
		return cli.Usagef("pake needs a subcommand: listen or connect")
	}
	sub := args[0]
	// Flags may also follow the subcommand. Their errors are reported
	// once, by the frame.
	f.fs.SetOutput(io.Discard)
	if err := f.fs.Parse(args[1:]); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return cli.Usage(err)
	}
	if err := cli.NoArgs(f.fs.Args()); err != nil {
		return err
	}
	switch sub {
	case "listen", "connect":
	default:
		return cli.Usagef("unknown pake subcommand %q, want listen or connect", sub)
	}
	s, err := pake.ByName(f.scheme) // refuses A0, which leaks the password through timing
	if err != nil {
		// "pqkem pake: -scheme: unknown scheme ...", not "pake: pake: ...".
		return cli.Usagef("-scheme: %s", strings.TrimPrefix(err.Error(), "pake: "))
	}
	if f.timeout <= 0 {
		return cli.Usagef("-timeout must be positive, got %v", f.timeout)
	}
	if f.argonThreads < 1 || f.argonThreads > 255 || f.argonTime < 1 || f.argonTime > 1<<20 || f.argonMemory < 8*f.argonThreads || f.argonMemory > 1<<22 {
		return cli.Usagef("invalid Argon2id costs: -argon2-time %d, -argon2-memory %d, -argon2-threads %d", f.argonTime, f.argonMemory, f.argonThreads)
	}
	outs := outputs{force: f.force}
	if f.passwordFile != "" {
		outs.inputs = []string{f.passwordFile}
	}
	if err := outs.check(out, outFile{name: f.out}); err != nil {
		return err
	}
	password, err := pakeReadPassword(out, f.passwordFile)
	if err != nil {
		return err
	}
	kdf := &pake.Argon2Params{Time: uint32(f.argonTime), Memory: uint32(f.argonMemory), Threads: uint8(f.argonThreads)}
	creds, err := pake.NewCredentials(s, password, f.client, f.server, kdf)
	clear(password)
	if err != nil {
		return err
	}
	defer creds.Destroy()
	var key []byte
	var peer net.Addr
	if sub == "listen" {
		key, peer, err = pakeListen(out, creds, f)
	} else {
		key, peer, err = pakeConnect(creds, f)
	}
	if err != nil {
		return err
	}
	defer clear(key)
	if err := outs.write(out, outFile{f.out, key, modeSecret}); err != nil {
		return err
	}
	w := out.Stdout
	if f.out == "-" {
		w = out.Stderr
	}
	fmt.Fprintf(w, "%s with %v: passwords match\n", s.Name(), peer)
	fmt.Fprintf(w, "session key fingerprint: %s\n", pakeFingerprint(key))
	return nil
}

// maxPassword is the longest password, in bytes, that pake takes: far
// more than any passphrase or pairing code.
const maxPassword = 1024

// pakeReadPassword reads the password from the first line of file, or
// from the terminal without echo.
func pakeReadPassword(out *cli.Output, file string) ([]byte, error) {
	var pw []byte
	if file != "" {
		var err error
		if pw, err = readFirstLine(file, maxPassword); err != nil {
			return nil, fmt.Errorf("-password-file %w", err)
		}
	} else {
		fd := int(os.Stdin.Fd())
		if !term.IsTerminal(fd) {
			return nil, cli.Usagef("standard input is not a terminal: give the password with -password-file")
		}
		fmt.Fprint(out.Stderr, "Password: ")
		var err error
		pw, err = term.ReadPassword(fd)
		fmt.Fprintln(out.Stderr)
		if err != nil {
			return nil, fmt.Errorf("reading the password: %w", err)
		}
		if len(pw) > maxPassword {
			clear(pw)
			return nil, fmt.Errorf("the password is longer than %d bytes", maxPassword)
		}
	}
	if len(pw) == 0 {
		return nil, errors.New("empty password")
	}
	return pw, nil
}

// readFirstLine reads the first line of the file name (without its "\n"
// or "\r\n"), of at most limit bytes, and no more of the file than that.
func readFirstLine(name string, limit int64) ([]byte, error) {
	data, err := readUpTo(name, limit+2)
	if err != nil {
		return nil, err
	}
	defer clear(data)
	line, _, _ := bytes.Cut(data, []byte("\n"))
	line = bytes.TrimSuffix(line, []byte("\r"))
	if int64(len(line)) > limit {
		return nil, fmt.Errorf("%s: the first line is longer than %d bytes", displayName(name), limit)
	}
	return bytes.Clone(line), nil
}

// pakeFPLabel starts the input of the key's fingerprint.
const pakeFPLabel = "pqkem pake v1 fingerprint"

// errPakeMismatch is what both sides report when the key exchange
// shows that the passwords differ.
var errPakeMismatch = errors.New("password mismatch")

// The listener's bounds (the command's doc explains them).
const (
	pakeMaxPeers    = 4 // exchanges served at once
	pakeMaxAttempts = 3 // exchanges that got a msg2 and ended without a verdict
)

// pakeExchange is how one connection to the listener ended.
type pakeExchange struct {
	peer    net.Addr
	key     []byte // on success
	err     error
	verdict bool // the exchange decided: success (err == nil) or a password mismatch
}

// pakeListener is the listener's state shared by the connections.
type pakeListener struct {
	creds         *pake.Credentials
	timeout       time.Duration
	limit         *pake.AttemptLimit // the msg2s left
	stopAccepting func()             // called when the last attempt is spent
}

// pakeListen serves peers until one exchange ends in a verdict, and
// returns the key and the peer of a successful one.
func pakeListen(out *cli.Output, creds *pake.Credentials, f *pakeFlags) ([]byte, net.Addr, error) {
	ln, err := net.Listen("tcp", f.addr)
	if err != nil {
		return nil, nil, err
	}
	defer ln.Close()
	fmt.Fprintf(out.Stderr, "pqkem pake: listening on %v (%s)\n", ln.Addr(), creds.Scheme().Name())
	if tl, ok := ln.(*net.TCPListener); ok {
		tl.SetDeadline(time.Now().Add(f.timeout)) // the time to wait for peers
	}
	results := make(chan pakeExchange)
	pool := newConnPool(pakeMaxPeers)
	l := &pakeListener{creds: creds, timeout: f.timeout, limit: pake.NewAttemptLimit(pakeMaxAttempts), stopAccepting: pool.stopAccepting}
	accepting := pool.start(ln, func(conn net.Conn) { results <- l.serve(conn) })
	// stop ends the accept loop and the connections still served, and
	// waits for them; their results are dropped.
	stop := func() {
		l.limit.Stop()
		pool.stopAccepting()
		pool.closeAll()
		go func() {
			for r := range results {
				clear(r.key)
			}
		}()
		pool.wait()
		close(results)
	}
	var acceptErr error
	served, failed := 0, 0
	for {
		select {
		case acceptErr = <-accepting:
			accepting = nil
		case r := <-results:
			served++
			if r.verdict {
				stop()
				return r.key, r.peer, r.err
			}
			failed++
			fmt.Fprintf(out.Stderr, "pqkem pake: %v: %v\n", r.peer, r.err)
		}
		exhausted := l.limit.Remaining() == 0
		if !exhausted && accepting != nil || served < pool.acceptedCount() {
			continue
		}
		stop()
		switch {
		case exhausted:
			return nil, nil, fmt.Errorf("%d peers got msg2 and did not confirm a key: stopped, as each could test one password", pakeMaxAttempts)
		case failed > 0:
			return nil, nil, fmt.Errorf("no peer completed the exchange in %v (%d failed)", f.timeout, failed)
		}
		if ne, ok := errors.AsType[net.Error](acceptErr); ok && ne.Timeout() {
			return nil, nil, fmt.Errorf("waiting for a peer: no connection in %v", f.timeout)
		}
		return nil, nil, fmt.Errorf("waiting for a peer: %w", acceptErr)
	}
}

// serve runs the exchange with one peer, within l.timeout from now.
func (l *pakeListener) serve(conn net.Conn) pakeExchange {
	r := pakeExchange{peer: conn.RemoteAddr()}
	key, err := pake.Server(context.Background(), conn, &pake.Config{Credentials: l.creds, Timeout: l.timeout, Attempt: l.attempt})
	r.key, r.err = key, pakeError(err)
	r.verdict = err == nil || errors.Is(err, pake.ErrPasswordMismatch)
	return r
}

// attempt reports whether another msg2 may be sent, and counts it. With
// the last one, the listener stops accepting connections: no later peer
// could get a msg2.
func (l *pakeListener) attempt() error {
	if err := l.limit.Take(); err != nil {
		return errors.New("no more attempts: the listener is stopping")
	}
	if l.limit.Remaining() == 0 {
		l.stopAccepting()
	}
	return nil
}

// pakeConnect runs the connecting side, within -timeout for the
// connection and the whole exchange.
func pakeConnect(creds *pake.Credentials, f *pakeFlags) ([]byte, net.Addr, error) {
	ctx, cancel := context.WithTimeout(context.Background(), f.timeout)
	defer cancel()
	var d net.Dialer
	conn, err := d.DialContext(ctx, "tcp", f.addr)
	if err != nil {
		return nil, nil, err
	}
	defer conn.Close()
	key, err := pake.Client(ctx, conn, &pake.Config{Credentials: creds, Timeout: -1})
	if err != nil {
		return nil, nil, pakeError(err)
	}
	return key, conn.RemoteAddr(), nil
}

// pakeError says an error of pake.Client or pake.Server as the command
// reports it: without the package's prefix, "password mismatch" for a
// mismatch, and a reminder of the flag that matters for a timeout or
// another scheme.
func pakeError(err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, pake.ErrPasswordMismatch):
		return errPakeMismatch
	}
	msg := strings.TrimPrefix(err.Error(), "pake: ")
	switch {
	case errors.Is(err, pake.ErrTimeout):
		msg += " (-timeout is for the whole exchange)"
	case errors.Is(err, pake.ErrProtocol) && strings.HasPrefix(msg, "scheme mismatch"):
		msg += " (see -scheme)"
	}
	return errors.New(msg)
}

// fingerprint is what both sides print: the first 8 bytes of SHA3-256 of a
// label and the session key, in hex, in groups of four digits.
func pakeFingerprint(key []byte) string {
	h := sha3.Sum256(append([]byte(pakeFPLabel), key...))
	x := hex.EncodeToString(h[:8])
	return x[0:4] + " " + x[4:8] + " " + x[8:12] + " " + x[12:16]
}
