// Package serverid is the server's identity: an Ed25519 key kept in its data
// directory (which every command of every mode has masked), and the proof a
// client asks for before it sends a credential.
//
// A listener's owner is not enough on this machine: a socket a full_access
// command creates belongs to the server's user wherever it goes, so a process
// of the agent handed it over a unix socket binds the server's port with it
// while the server is down and passes a check of the owner (review 198). The
// key is the one thing such a process cannot have. The client sends a fresh
// nonce; the server signs it with the addresses it listens on, so that a
// proof relayed from the real server at another address does not count
// where the client dialed.
package serverid

import (
	"bytes"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
)

const (
	// KeyFile holds the private key (its 32-byte seed, hex) in the data
	// directory, mode 0600.
	KeyFile = "server-key"
	// PubFile holds the public key as clients take it, mode 0644.
	PubFile = "server-key.pub"
	// Prefix starts a public key's text form.
	Prefix = "ed25519:"
	// NonceBytes is the size of a client's nonce.
	NonceBytes = 32
	// Path is the endpoint that answers a nonce with a proof.
	Path = "/v1/server/identity"
	// MaxProofBytes bounds the answer a client reads.
	MaxProofBytes = 16 << 10
	// maxAddresses bounds the addresses a proof names.
	maxAddresses = 16
)

// domainTag separates this signature from any other use of the key.
const domainTag = "turnstile server identity v2\x00"

// Identity is the server's key and the addresses it listens on.
type Identity struct {
	priv ed25519.PrivateKey
	key  string

	mu    sync.RWMutex
	addrs []string
}

// Proof is the answer to a nonce.
type Proof struct {
	Key       string   `json:"key"`
	Addresses []string `json:"addresses"`
	Signature string   `json:"signature"`
}

// FormatKey is pub's text form: "ed25519:" and base64url without padding.
func FormatKey(pub ed25519.PublicKey) string {
	return Prefix + base64.RawURLEncoding.EncodeToString(pub)
}

// ParseKey reads a public key's text form.
func ParseKey(s string) (ed25519.PublicKey, error) {
	s = strings.TrimSpace(s)
	rest, ok := strings.CutPrefix(s, Prefix)
	if !ok {
		return nil, fmt.Errorf("a server key starts with %q (serve prints it at start, and writes it to DATA/%s)", Prefix, PubFile)
	}
	b, err := base64.RawURLEncoding.Strict().DecodeString(rest)
	if err != nil || len(b) != ed25519.PublicKeySize {
		return nil, fmt.Errorf("%q is not a server key: %s and %d bytes in unpadded base64url", s, Prefix, ed25519.PublicKeySize)
	}
	return ed25519.PublicKey(b), nil
}

// LoadOrCreate reads the key in dir, or makes one (created true). The key
// file is opened without following a link and must be a regular file of
// this process's user that no one else may read.
func LoadOrCreate(dir string) (id *Identity, created bool, err error) {
	path := filepath.Join(dir, KeyFile)
	seed, err := readSeed(path)
	if errors.Is(err, os.ErrNotExist) {
		seed = make([]byte, ed25519.SeedSize)
		if _, err := rand.Read(seed); err != nil {
			return nil, false, err
		}
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL|syscall.O_NOFOLLOW, 0o600)
		if errors.Is(err, os.ErrExist) {
			// Another start made it first: take that one.
			return LoadOrCreate(dir)
		}
		if err != nil {
			return nil, false, fmt.Errorf("making the server key %s: %w", path, err)
		}
		_, werr := io.WriteString(f, hex.EncodeToString(seed)+"\n")
		if err := errors.Join(werr, f.Sync(), f.Close()); err != nil {
			os.Remove(path)
			return nil, false, fmt.Errorf("writing the server key %s: %w", path, err)
		}
		created = true
	} else if err != nil {
		return nil, false, err
	}
	priv := ed25519.NewKeyFromSeed(seed)
	id = &Identity{priv: priv, key: FormatKey(priv.Public().(ed25519.PublicKey))}
	if err := id.writePub(dir); err != nil {
		return nil, false, err
	}
	return id, created, nil
}

func readSeed(path string) ([]byte, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if err != nil {
		if errors.Is(err, syscall.ELOOP) {
			return nil, fmt.Errorf("the server key %s is a symbolic link: refused", path)
		}
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	st, _ := fi.Sys().(*syscall.Stat_t)
	switch {
	case !fi.Mode().IsRegular():
		return nil, fmt.Errorf("the server key %s is not a regular file: refused", path)
	case st != nil && st.Uid != uint32(os.Geteuid()):
		return nil, fmt.Errorf("the server key %s belongs to uid %d, not this server's user: refused", path, st.Uid)
	case fi.Mode().Perm()&0o077 != 0:
		return nil, fmt.Errorf("the server key %s may be read by others (mode %04o): refused; chmod 600 it, or remove it for a new key (clients that pinned the old one then refuse the server)", path, fi.Mode().Perm())
	}
	b, err := io.ReadAll(io.LimitReader(f, 256))
	if err != nil {
		return nil, err
	}
	seed, err := hex.DecodeString(string(bytes.TrimSpace(b)))
	if err != nil || len(seed) != ed25519.SeedSize {
		return nil, fmt.Errorf("the server key %s is not %d bytes of hex", path, ed25519.SeedSize)
	}
	return seed, nil
}

// writePub writes the public key beside the private one, for the people
// who pin it (replaced whole, never followed).
func (id *Identity) writePub(dir string) error {
	path := filepath.Join(dir, PubFile)
	if b, err := os.ReadFile(path); err == nil && strings.TrimSpace(string(b)) == id.key {
		if fi, err := os.Lstat(path); err == nil && fi.Mode().IsRegular() {
			return nil
		}
	}
	tmp, err := os.CreateTemp(dir, PubFile+".tmp*")
	if err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	_, werr := tmp.WriteString(id.key + "\n")
	if err := errors.Join(werr, tmp.Chmod(0o644), tmp.Close()); err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return nil
}

// Key is the public key's text form.
func (id *Identity) Key() string { return id.key }

// SetAddresses names the addresses the server listens on (host:port, as the
// listeners report them).
func (id *Identity) SetAddresses(addrs []string) {
	id.mu.Lock()
	id.addrs = append([]string(nil), addrs...)
	id.mu.Unlock()
}

// Sign answers nonce (NonceBytes long: the endpoint refuses another size).
func (id *Identity) Sign(nonce []byte) Proof {
	id.mu.RLock()
	addrs := append([]string(nil), id.addrs...)
	id.mu.RUnlock()
	sig := ed25519.Sign(id.priv, message(nonce, addrs))
	return Proof{Key: id.key, Addresses: addrs, Signature: base64.RawURLEncoding.EncodeToString(sig)}
}

// message is what the key signs: the tag, then the nonce and each address
// with its length before it, so that no choice of nonce (the asker's) reads
// as another nonce followed by addresses (review 199: a relay had the server
// sign the client's nonce with the relay's address spliced on).
func message(nonce []byte, addrs []string) []byte {
	var b bytes.Buffer
	b.WriteString(domainTag)
	field := func(p []byte) {
		b.Write(binary.BigEndian.AppendUint32(nil, uint32(len(p))))
		b.Write(p)
	}
	field(nonce)
	b.Write(binary.BigEndian.AppendUint32(nil, uint32(len(addrs))))
	for _, a := range addrs {
		field([]byte(a))
	}
	return b.Bytes()
}

// NewNonce is a fresh random nonce.
func NewNonce() []byte {
	n := make([]byte, NonceBytes)
	if _, err := rand.Read(n); err != nil {
		panic(err) // crypto/rand does not fail on Linux
	}
	return n
}

// ErrWrongKey marks a proof of another key than the one pinned.
var ErrWrongKey = errors.New("the server's key is not the one pinned")

// Verify checks p answers nonce, is signed by want, and names remote (the
// address the client's connection reached) among the server's addresses.
func (p Proof) Verify(want ed25519.PublicKey, nonce []byte, remote net.Addr) error {
	if len(nonce) != NonceBytes {
		return fmt.Errorf("a nonce of %d bytes, not %d", len(nonce), NonceBytes)
	}
	got, err := ParseKey(p.Key)
	if err != nil {
		return err
	}
	if !got.Equal(want) {
		return fmt.Errorf("%w: it answered with %s, not %s", ErrWrongKey, p.Key, FormatKey(want))
	}
	if len(p.Addresses) > maxAddresses {
		return fmt.Errorf("the proof names %d addresses (at most %d)", len(p.Addresses), maxAddresses)
	}
	sig, err := base64.RawURLEncoding.Strict().DecodeString(p.Signature)
	if err != nil || !ed25519.Verify(want, message(nonce, p.Addresses), sig) {
		return errors.New("the proof's signature does not verify: this is not the server, or it relayed another's answer")
	}
	if !Covers(p.Addresses, remote) {
		return fmt.Errorf("the server signed for %s, not %s, where this connection reached: a program there relayed the server's answer", strings.Join(p.Addresses, ", "), remote)
	}
	return nil
}

// Covers says whether remote is one of addrs: the same port and address, or
// an unspecified address of its family (0.0.0.0 holds IPv4's only, :: both).
func Covers(addrs []string, remote net.Addr) bool {
	r, ok := remote.(*net.TCPAddr)
	if !ok {
		return false
	}
	rip, ok := netip.AddrFromSlice(r.IP)
	if !ok {
		return false
	}
	rip = rip.Unmap().WithZone(r.Zone) // a link-local address is its interface's (review 200)
	for _, a := range addrs {
		ap, err := netip.ParseAddrPort(a)
		if err != nil || int(ap.Port()) != r.Port {
			continue
		}
		ip := ap.Addr().Unmap()
		switch {
		case ip == rip:
			return true
		case ip == netip.IPv4Unspecified() && rip.Is4():
			return true
		case ip == netip.IPv6Unspecified():
			return true
		}
	}
	return false
}
