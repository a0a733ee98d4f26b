package main

import (
	"bufio"
	"crypto/ed25519"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"turnstile/internal/peeruid"
	"turnstile/internal/serverid"
)

// A listener's owner does not prove it is the server: a socket a full_access
// command creates belongs to the server's user wherever it goes, and a
// process of the agent it was handed to binds the server's port with it
// while the server is down (review 198). Before a client sends a credential
// on a connection to an http:// server it asks that connection for a proof:
// the server's key signs a fresh nonce and the addresses it listens on
// (internal/serverid). The key is pinned: --server-key / TURNSTILE_SERVER_KEY,
// else the data directory's server-key.pub (the directory the admin token
// comes from); the hook takes it from its command line only (hook install
// writes it). A server on this machine whose key is unknown gets nothing.

// errNoServerKey marks a server on this machine the client has no key for.
var errNoServerKey = errors.New("the server's key is not known")

// errUnproven marks a program that did not prove it holds the pinned key.
var errUnproven = errors.New("not proven to be the server")

// unproven is a proof refused, as errUnproven.
type unproven string

func (e unproven) Error() string { return string(e) }
func (e unproven) Unwrap() error { return errUnproven }

// noKeyError is a server on this machine the client cannot check: nothing
// was sent to it.
type noKeyError struct{ addr, hint string }

func (e *noKeyError) Error() string {
	return fmt.Sprintf("the key of the server at %s is not known, so nothing was sent to it (a program of the server's user could hold its port while it is down): %s", e.addr, e.hint)
}

func (e *noKeyError) Unwrap() error { return errNoServerKey }

// keyHintCLI says how a command-line client is given the key.
const keyHintCLI = "give --server-key (TURNSTILE_SERVER_KEY) the key `turnstile serve` printed at start (ed25519:…, also in DATA/" + serverid.PubFile + "), or --data for a data directory you may read"

// keyHintHook says how the hook is given the key.
const keyHintHook = "run `turnstile hook install claude-code` again, which writes --server-key into the hook's command (or add --server-key ed25519:… there, as `turnstile serve` printed it)"

// prove asks the connection for the server's proof before anything else is
// sent on it.
func (su serverUsers) prove(c net.Conn, addr string) error {
	if su.key == nil {
		return &noKeyError{addr: addr, hint: su.keyHint}
	}
	nonce := serverid.NewNonce()
	p, err := fetchProof(c, addr, nonce)
	if err != nil {
		return unproven(fmt.Sprintf("the program at %s did not prove it is the server (%v): nothing was sent to it", addr, err))
	}
	if err := p.Verify(su.key, nonce, c.RemoteAddr()); err != nil {
		return unproven(fmt.Sprintf("the program at %s is not the server whose key you pinned (%v): nothing was sent to it", addr, err))
	}
	return nil
}

// fetchProof sends the identity request on c and reads the answer, leaving
// the connection at the end of it for the requests that follow.
func fetchProof(c net.Conn, addr string, nonce []byte) (serverid.Proof, error) {
	var p serverid.Proof
	if err := c.SetDeadline(time.Now().Add(10 * time.Second)); err != nil {
		return p, err
	}
	defer c.SetDeadline(time.Time{})
	req := "GET " + serverid.Path + "?nonce=" + hex.EncodeToString(nonce) + " HTTP/1.1\r\nHost: " + addr + "\r\nUser-Agent: turnstile\r\n\r\n"
	if _, err := io.WriteString(c, req); err != nil {
		return p, err
	}
	// Unbuffered past the answer: what the reader holds beyond it would be
	// lost to the client that uses the connection next.
	br := bufio.NewReaderSize(c, 4096)
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		return p, fmt.Errorf("no HTTP answer: %v", err)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, serverid.MaxProofBytes+1))
	resp.Body.Close()
	switch {
	case err != nil:
		return p, err
	case len(body) > serverid.MaxProofBytes:
		return p, fmt.Errorf("an answer larger than %d bytes", serverid.MaxProofBytes)
	case resp.StatusCode != http.StatusOK:
		return p, fmt.Errorf("HTTP %d to %s", resp.StatusCode, serverid.Path)
	case br.Buffered() > 0:
		return p, errors.New("more than one answer to one request")
	case resp.Close:
		return p, errors.New("it closes the connection after the proof")
	}
	if err := json.Unmarshal(body, &p); err != nil {
		return p, fmt.Errorf("the answer is not a proof: %v", err)
	}
	return p, nil
}

// readServerKey reads a key given as its text (ed25519:…) or as a file
// holding it.
func readServerKey(v, source string) (ed25519.PublicKey, error) {
	v = strings.TrimSpace(v)
	if !strings.HasPrefix(v, serverid.Prefix) {
		b, _, err := readSmallFile(v)
		if err != nil {
			return nil, fmt.Errorf("%s %q: neither a key (%s…) nor a file holding one: %v", source, v, serverid.Prefix, err)
		}
		v = string(b)
	}
	k, err := serverid.ParseKey(v)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", source, err)
	}
	return k, nil
}

// readSmallFile reads at most 4 KiB of a regular file (a FIFO there does not
// hang the client), with its owner as the open file has it.
func readSmallFile(path string) ([]byte, uint32, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, 0, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() {
		return nil, 0, errors.New("not a regular file")
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return nil, 0, errors.New("no owner")
	}
	b, err := io.ReadAll(io.LimitReader(f, 4096))
	return b, st.Uid, err
}

// pinKey sets the key the client checks: value (a flag or TURNSTILE_SERVER_KEY)
// if given, else the data directory's public key where it can be read.
func (su *serverUsers) pinKey(value, data string) error {
	su.keyHint = keyHintCLI
	if strings.TrimSpace(value) != "" {
		k, err := readServerKey(value, "--server-key")
		su.key = k
		return err
	}
	if data == "" {
		return nil
	}
	path := filepath.Join(data, serverid.PubFile)
	b, owner, err := readSmallFile(path)
	if err != nil {
		if !errors.Is(err, os.ErrNotExist) && !errors.Is(err, os.ErrPermission) {
			return fmt.Errorf("the server's key %s: %v", path, err)
		}
		return nil
	}
	k, err := serverid.ParseKey(string(b))
	if err != nil {
		return fmt.Errorf("the server's key %s: %v", path, err)
	}
	if !su.accepts(owner) {
		return fmt.Errorf("the server's key %s belongs to uid %d, not a user this client trusts as the server's (root or you, else --server-user): not used", path, owner)
	}
	su.key = k
	return nil
}

// hookKey is the key hook install was given or found, if any.
type hookKey struct {
	key ed25519.PublicKey // nil: learn it from the server
	// from names where it came from, for the messages.
	from string
	// named: the person named it (--server-key, --data), so it is written
	// also when no server answers to confirm it. A key found in the
	// default data directory is confirmed by the server first: the
	// installing user is Claude Code's, whose files the agent writes
	// (review 199).
	named bool
}

// hookLearn is the uid and key hook install writes into the hook's command:
// the user named, else the one the server at server runs as now; the key
// given or found (hk), which a server answering there must prove it holds,
// else the one it proves it holds now. Both are learned on one connection
// (a listener bound between two dials would be learned as the other's), and
// never from a listener of the installing user unless root: that is
// Claude Code's user, the agent's (review 200). uid "" for a server that is
// not on this machine, or none answering: the hook then trusts root and its
// own user.
func hookLearn(server, named string, hk hookKey, stderr io.Writer) (uid, key string, err error) {
	if server == "" {
		server = defaultServer
	}
	var su serverUsers
	if named != "" {
		if su, err = parseServerUser(named, "--server-user"); err != nil {
			return "", "", err
		}
		uid = strconv.FormatUint(uint64(su.named), 10)
	}
	addr, ok := plainAddr(server)
	if !ok {
		return uid, "", nil // https: TLS names the server
	}
	c, err := net.DialTimeout("tcp", addr, 2*time.Second)
	if err != nil {
		if uid == "" {
			fmt.Fprintf(stderr, "warning: nothing answers at %s, so the hook will send its credential to a server on this machine running as root or as the user Claude Code runs as (the agent's own); give --server-user to name the server's user\n", server)
		}
		key, err := unansweredKey(server, hk, stderr)
		return uid, key, err
	}
	defer c.Close()
	owner, err := peeruid.Of(c)
	switch {
	case errors.Is(err, peeruid.ErrNotLocal):
	case err != nil:
		return "", "", fmt.Errorf("cannot tell which user the server at %s runs as (%v): give --server-user", server, err)
	case named != "":
		if !su.accepts(owner) {
			return "", "", &wrongServerError{addr: addr, uid: owner, su: su}
		}
	case owner != 0 && owner == uint32(os.Getuid()):
		return "", "", fmt.Errorf("the program listening at %s runs as you (uid %d), the user hook install runs as, Claude Code's: it may be the agent's, holding the port while the server is down, and a server run as Claude Code's user gives the agent its admin token anyway; run the server as another user, or name this one yourself: --server-user %d --server-key KEY (the key serve printed)", server, owner, owner)
	default:
		uid = strconv.FormatUint(uint64(owner), 10)
		who := "uid " + uid
		if u, err := user.LookupId(uid); err == nil {
			who += " (" + u.Username + ")"
		}
		fmt.Fprintf(stderr, "the hook sends its credential only to a server at %s running as %s, as the one there does now (--server-user names another)\n", server, who)
	}
	nonce := serverid.NewNonce()
	p, err := fetchProof(c, addr, nonce)
	if err != nil {
		return "", "", fmt.Errorf("the program at %s did not prove which key it holds (%v): give --server-key", server, err)
	}
	k, err := serverid.ParseKey(p.Key)
	if err != nil {
		return "", "", err
	}
	if err := p.Verify(k, nonce, c.RemoteAddr()); err != nil {
		return "", "", fmt.Errorf("the program at %s: %v", server, err)
	}
	if hk.key != nil && !k.Equal(hk.key) {
		return "", "", fmt.Errorf("the server at %s holds the key %s, not %s (%s): nothing was written; if the server's key changed, give --server-key", server, p.Key, serverid.FormatKey(hk.key), hk.from)
	}
	how := "as the one there does now (--server-key names another)"
	if hk.key != nil {
		how = "the key of " + hk.from + ", which the server there proved it holds"
	}
	fmt.Fprintf(stderr, "the hook sends its credential only to a server at %s holding the key %s, %s\n", server, p.Key, how)
	return uid, p.Key, nil
}

// unansweredKey is the key hook install writes when no server answers: only
// one the person named.
func unansweredKey(server string, hk hookKey, stderr io.Writer) (string, error) {
	switch {
	case hk.key != nil && hk.named:
		fmt.Fprintf(stderr, "the hook sends its credential only to a server at %s that proves it holds the key %s (%s; nothing answers there now)\n", server, serverid.FormatKey(hk.key), hk.from)
		return serverid.FormatKey(hk.key), nil
	case hk.key != nil:
		return "", fmt.Errorf("nothing answers at %s to confirm the key in %s (a file this user, Claude Code's, may write): start the server, or name the key with --server-key or the data directory with --data", server, hk.from)
	}
	return "", fmt.Errorf("nothing answers at %s to say which key the server holds: start it, or give --server-key (the key `turnstile serve` printed, ed25519:…)", server)
}

// plainAddr is the host:port of an http:// server URL.
func plainAddr(server string) (string, bool) {
	if server == "" {
		server = defaultServer
	}
	u, err := url.Parse(server)
	if err != nil || u.Scheme != "http" || u.Host == "" {
		return "", false
	}
	if u.Port() == "" {
		return net.JoinHostPort(u.Hostname(), "80"), true
	}
	return u.Host, true
}
