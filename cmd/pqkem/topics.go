package main

import "github.com/pqkem/pqkem/internal/cli"

// The help topics: what several commands share, which their own help
// names rather than repeats.
var topics = []*cli.Topic{topicKeys, topicOutputs, topicTunnel}

var topicKeys = &cli.Topic{
	Name:    "keys",
	Summary: "key files: formats, checks, fingerprints, ephemeral keys, names",
	Doc: `
Key files. Private keys are PKCS#8 and public keys SubjectPublicKeyInfo
("PUBLIC KEY", as OpenSSL 3.5 writes it), in PEM or DER, as RFC 9935 and
OpenSSL 3.5 have them for ML-KEM. An ML-KEM private key is written in RFC
9935's seed form (the 64-byte seed d || z, 86 bytes of DER), which
OpenSSL 3.5 reads; an X-Wing key as its 32-byte seed under its draft OID.
Schemes without an object identifier (FrodoKEM, the TLS hybrids) are
written in pqkem's own PEM format, a "PQKEM PRIVATE KEY" or "PQKEM PUBLIC
KEY" block with a "Scheme: NAME" header, and have no DER form. -format
raw is the scheme's own encoding with no container. Package
github.com/pqkem/pqkem/keyfile documents every scheme's encoding.

Reading. -inform auto (the default) reads PEM or DER; -inform raw needs
-alg, since a raw key does not name its scheme; with another format,
-alg, if given, is the scheme the key must have. -lenient also reads the
pre-RFC 9935 ML-KEM private key encodings (the bare seed or expanded key,
OpenSSL's bare-seed and bare-priv). encap, inspect and connect -pub also
take an X.509 certificate, for its subject key, without verifying it.

Checks. A private key is checked before it is used or anything is
written: an ML-KEM key in the expandedKey form must pass the FIPS 203
hash check and a pairwise consistency check, and in the both form its
seed and expanded key must agree. A public key must pass the scheme's
checks (for ML-KEM, the FIPS 203 modulus check). A key that fails is an
error (exit status 1).

Fingerprints. keygen, inspect, serve and connect name a public key by
its fingerprint: "SHA256:" and the first 16 bytes of the SHA-256 of the
encoded public key, in hex. It reveals nothing of the private key.

Ephemeral-only schemes. An eFrodoKEM key is for fewer than 2^8
ciphertexts: use it for one exchange or a few, never as a long-term key.
keygen writes one with a warning, and 'pqkem serve' and 'pqkem connect'
refuse it as a static key. The Frodo paper's key exchange
(Frodo-CCS2016-*) is passively secure and its keys serve one exchange:
they have no key files (keygen refuses it; 'pqkem demo' runs it).

Names. CIRCL's "FrodoKEM-640-SHAKE" is pqkem's eFrodoKEM-640-SHAKE (NIST
round 3, 9,720-byte ciphertexts), not pqkem's FrodoKEM-640-SHAKE (the
salted ISO version, 9,752 bytes): keys and ciphertexts of the two do not
mix.`,
}

var topicOutputs = &cli.Topic{
	Name:    "outputs",
	Summary: "how commands write files, and what a failure leaves",
	Doc: `
Outputs. A file is written to a temporary file beside it (named
.NAME.pqkem-tmp-XXXXXXXXXXXX, with the output's mode: 0600 for private
and shared keys, 0644 for public keys and ciphertexts, less what the
umask takes), synced, then renamed into place. An existing file is
replaced only with -force, and only if it is a regular file: never a
symbolic link, a directory, a device or a pipe. A character device or a
pipe (/dev/null, /dev/tty, /dev/stdout when it is a pipe, a FIFO) is
written into instead, never replaced, and needs no -force. No output may
be the same file as an input, or as another output, under any name (hard
links included). At most one output may be - (standard output).

On failure, exit status 1 or 2: no temporary file is left, on an error as
on SIGINT or SIGTERM, and no file the run created is either. The files
appear only after standard output and any device or pipe were written,
so a failure there (a closed pipe, a full disk) leaves every file as it
was. What cannot be undone: what standard output, a device or a pipe
received, and a file that -force had already replaced (which holds its
new contents). A leftover temporary file (after SIGKILL or a crash)
holds all or part of what was being written: remove it.`,
}

var topicTunnel = &cli.Topic{
	Name:    "tunnel",
	Summary: "serve and connect: protocol, keys, limits, ends, signals, log",
	Doc: `
A tunnel is 'pqkem serve' at one end and 'pqkem connect' at the other,
as stunnel and ghostunnel are for TLS: connect forwards its standard
input and output, or each connection to its -listen, over PQNoise to
serve, which forwards it to the service at its -to, the bytes unchanged
both ways. docs/tunnel.md is the operator's guide.

Addresses. A -listen is HOST:PORT, unix:PATH, fd:N (an inherited
listening socket) or systemd (socket activation, LISTEN_FDS); a -to is
HOST:PORT or unix:PATH. Both are checked at the start, and a -to that is
the -listen itself is refused.

Protocol. PQNoise (package github.com/pqkem/pqkem/noise): pqNK, in which
the client knows the server's static public key beforehand (as a pinned
certificate), or pqIK, in which the client also has a static key, sent
encrypted in its first message, and the server accepts only the client
keys it lists. The KEM is the scheme of the server's key (see 'pqkem
list'; eFrodoKEM is refused: its keys are not safe as long-term keys;
DHKEM-X25519-HKDF-SHA256 runs, as the classical baseline, but is not
post-quantum); the cipher and hash default to AESGCM and SHA256, and both
sides must use the same -cipher and -hash. With -ephemeral, the
ephemeral keys are of another KEM than the server key's (a
FrodoKEM-640-AES server key with ML-KEM-768 ephemeral keys, say: forward
secrecy at ML-KEM's cost), and both sides must give the same -ephemeral.
The protocol name, such as Noise_pqNK_MLKEM768_AESGCM_SHA256, is printed
at the start.

Keys. The server is authenticated: a server whose key is not connect's
-pub cannot complete the handshake. Without -allow, any client that
knows the server's public key may connect (pqNK: the client is not
authenticated). With serve -allow FILE, a file of one or more client
public keys (PEM blocks, as 'pqkem pub' writes them, of the server key's
scheme), the tunnel is mutually authenticated (pqIK): a client must
prove it holds the private key of one of them (connect -key, a private
key of the same scheme as -pub); any other is refused, with its key's
fingerprint in serve's log. A server does not say why it ends a
handshake: a wrong -pub, a client key it does not list, or another
protocol all show to the client as the server closing the connection
during the handshake; the server's log says which.

Serve connects to -to only once the client has proven that it completed
the handshake (its first message after the handshake, which connect
sends at once), so a replayed handshake message opens no connection to
the service, and services that speak first (SSH, SMTP) work. With
-proxy-protocol, each connection to -to starts with a PROXY protocol v2
header: the client's address and, in pqIK, the SHA-256 fingerprint of
its key (the 16 bytes 'pqkem inspect' shows) in a TLV of type 0xE0.

Handshakes (serve). Connections in their handshake have a pool of their
own, apart from the -max forwarded ones: at most -max-handshakes at
once, -max-per-source of them from one address (an IPv4 address or an
IPv6 /64); a new one takes the place of the oldest that has sent nothing
yet, or else of the oldest, so idle sockets cannot lock clients out. An
address whose handshakes fail more than -rate times a second (after a
burst of -burst) has its new connections reset at once until it is
under -rate again; handshakes that succeed do not count, so a client is
never limited, but random bytes, replays and idle sockets are.

Reloads and status. On SIGHUP, serve reads -key and -allow
again, connect -listen -pub and -key: new connections use them, open
ones go on. If a file does not
parse, or the keys do not match, the old ones stay, and the log says
why. With -status ADDR (a loopback HOST:PORT or unix:PATH; for connect,
with -listen only), GET /healthz answers "ok" and GET /metrics gives the
counters in the Prometheus text format.

Ends. Each direction of a forwarded connection ends cleanly only when
its source ended cleanly: a TCP or Unix half-close, or PQNoise's
authenticated end marker; the end is passed on (a half-close, or the end
marker), so that a request and its response both get through. Any
failure (a message that fails authentication, a PQNoise stream that
ends without its end marker, a reset, -idle, a cut at shutdown) ends
both sides with a failure: a TCP connection is reset (RST, never a FIN)
and a PQNoise one ends without its end marker, so that neither peer can
take it for a complete stream. (A Unix socket cannot be reset: its peer
sees an end.)

Limits. A handshake must complete within -timeout, which also bounds the
wait for a place among the -max forwarded connections and connecting to
-to. With -idle, a forwarded connection on which nothing has been read
or written for that long is ended, as a failure.

Signals. On SIGINT or SIGTERM a listening command (serve, connect
-listen) stops accepting connections, lets those open finish for -grace,
then cuts them (a failure, reset), and exits with status 0; a second
signal cuts them at once, and a third ends the command at once (exit
status 130 or 143). Connect without -listen ends at once on the first
(exit status 130 or 143); -max and -grace do not apply to it.

Log. Standard error has one line per event, with the UTC time and the
remote address: the start (listening address, protocol, key
fingerprints), each connection opened (with the client key's fingerprint
in pqIK) and closed (its duration and the bytes each way), each failure,
and the stop. -quiet leaves out the lines of connections that succeed;
failures are always logged, but at most the first of each cause in a
minute in full, then one line a minute with the count of each cause. No
key material and no forwarded data are logged: a fingerprint is the
first 16 bytes of the SHA-256 of a public key, in hex.`,
}
