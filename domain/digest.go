package domain

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
)

// DigestKeyStream is the event stream that holds the store's digest key:
// one event, written by the first server to start on the store. Like the
// credential stream it is no turn's: nothing that shows events reads it.
const DigestKeyStream = "digest-key"

// DigestKeyCreated is the type of the digest key stream's one event.
const DigestKeyCreated = "DigestKeyCreated"

// DigestKeySize is the length of a digest key in bytes.
const DigestKeySize = 32

// DigestKey keys the digests turnstile records of what it does not show: an
// exec's environment values and standard input, a URL's query, the
// arguments of a tool it binds only by a hash, a tool's result, and the
// values its redaction hides in a scope. An unkeyed SHA-256 of a redacted
// password bound it for anyone who reads the digest beside the redacted
// text (another runtime credential of the workspace, an auditor, an export
// of the log): a guess hashed to it offline (the twenty-fifth attack
// review). Keyed with HMAC-SHA-256 under a key only the server holds, a
// digest still binds a grant to the exact call, and tells a reader
// nothing. The zero key digests with plain SHA-256 (tools and tests that
// compute scopes without a server); an engine always has a key.
//
// One key for the whole store still made the server an oracle: a runtime
// credential read another's pending request's scope_hash and decided, in a
// turn of its own, the same command with one guess after another in place
// of the redacted password until a scope_hash matched (the twenty-eighth
// review). A turn's digests are therefore keyed with a key of the turn's
// and the deciding principal's own, derived from the store's (ForTurn): a
// digest binds a grant to the exact call within its turn and principal,
// which is where grants and retries compare them, and no other turn or
// principal reproduces it.
type DigestKey struct {
	// root is the store's key; key the one Sum uses (root, or the key
	// ForTurn derived from it).
	root, key []byte
}

// NewDigestKey returns the key of b, which must be DigestKeySize bytes.
func NewDigestKey(b []byte) (DigestKey, error) {
	if len(b) != DigestKeySize {
		return DigestKey{}, fmt.Errorf("a digest key is %d bytes, not %d", DigestKeySize, len(b))
	}
	b = append([]byte(nil), b...)
	return DigestKey{root: b, key: b}, nil
}

// RandomDigestKey returns a new random key.
func RandomDigestKey() DigestKey {
	b := make([]byte, DigestKeySize)
	if _, err := rand.Read(b); err != nil {
		panic(err) // crypto/rand.Read does not fail on Linux
	}
	return DigestKey{root: b, key: b}
}

// ForTurn returns the key of the digests of principal's calls in the turn
// turnID: HMAC-SHA-256 of both under the store's key (whatever k was
// derived for). The principal is in it because a runtime credential may
// decide in another's turn of its workspace: deciding there the command of
// another's pending request with one guess after another, it matched the
// request's scope_hash (the thirtieth review). The zero key stays zero.
func (k DigestKey) ForTurn(turnID, principal string) DigestKey {
	if k.IsZero() {
		return k
	}
	m := hmac.New(sha256.New, k.root)
	m.Write([]byte("turnstile turn digest key\x00" + turnID + "\x00" + principal))
	return DigestKey{root: k.root, key: m.Sum(nil)}
}

// DerivedFrom reports whether k was derived from (or is) the store's key
// store holds.
func (k DigestKey) DerivedFrom(store DigestKey) bool {
	return hmac.Equal(k.root, store.root)
}

// IsZero reports whether k is the zero key (plain SHA-256).
func (k DigestKey) IsZero() bool { return len(k.key) == 0 }

// Bytes returns a copy of the store's key's bytes (what is stored).
func (k DigestKey) Bytes() []byte { return append([]byte(nil), k.root...) }

// String never shows the key.
func (k DigestKey) String() string { return "[digest key]" }

// Sum returns the lowercase hex HMAC-SHA-256 of b under k (SHA-256 of b
// for the zero key).
func (k DigestKey) Sum(b []byte) string {
	if k.IsZero() {
		return hashHex(b)
	}
	m := hmac.New(sha256.New, k.key)
	m.Write(b)
	return hex.EncodeToString(m.Sum(nil))
}

// SumHex keys a digest a client computed itself (the SHA-256 of a
// command's standard input, or of a tool's result, as lowercase hex): the
// key's Sum of it, so that the client's digest and one computed here of
// the content agree. Empty stays empty.
func (k DigestKey) SumHex(clientHex string) string {
	if clientHex == "" || k.IsZero() {
		return clientHex
	}
	return k.Sum([]byte(clientHex))
}
