package main

import (
	"cmp"
	"context"
	"crypto/ed25519"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/user"
	"strconv"
	"time"

	"turnstile/internal/peeruid"
)

// A server on this machine (loopback, or an address of one of its
// interfaces) is known by the user its socket belongs to. The port is
// anyone's while the server is down: an agent that binds 127.0.0.1:8740
// then would receive every credential a client sends there, and answer the
// hook "allow". Before a client sends anything on a connection to this
// machine it asks the kernel who owns the far end, and goes on only for
// root, itself, or the user --server-user names (TURNSTILE_SERVER_USER; the
// hook takes it from its command line alone, which hook install writes).

// serverUsers is what a client accepts as the owner of a server on this
// machine, and the key it must prove it holds (serverkey.go).
type serverUsers struct {
	// named is the one user --server-user gave; set, it is the only one.
	named   uint32
	isNamed bool
	// flag is how the person names it, for the message.
	flag string
	// key is the server's public key the client pinned (nil: unknown, and
	// a server on this machine is refused); keyHint says how to give one.
	key     ed25519.PublicKey
	keyHint string
	// plain is an http:// server: the proof is asked on the connection
	// itself (over https, TLS names the server).
	plain bool
}

// parseServerUser reads a user name or uid; "" accepts root and the caller.
func parseServerUser(s, flag string) (serverUsers, error) {
	su := serverUsers{flag: flag}
	if s == "" {
		return su, nil
	}
	if n, err := strconv.ParseUint(s, 10, 32); err == nil {
		su.named, su.isNamed = uint32(n), true
		return su, nil
	}
	u, err := user.Lookup(s)
	if err != nil {
		return su, fmt.Errorf("%s %q: no such user (give a name /etc/passwd knows, or the uid)", flag, s)
	}
	n, err := strconv.ParseUint(u.Uid, 10, 32)
	if err != nil {
		return su, fmt.Errorf("%s %q: uid %q is not a number", flag, s, u.Uid)
	}
	su.named, su.isNamed = uint32(n), true
	return su, nil
}

func (su serverUsers) accepts(uid uint32) bool {
	if su.isNamed {
		return uid == su.named
	}
	return uid == 0 || uid == uint32(os.Getuid())
}

// errUnverifiedServer marks a listener on this machine whose owner the kernel
// did not tell.
var errUnverifiedServer = errors.New("the server's user is unknown")

// wrongServerError is a listener on this machine of a user the client does not
// accept: nothing was sent to it.
type wrongServerError struct {
	addr string
	uid  uint32
	su   serverUsers
}

func (e *wrongServerError) Error() string {
	who := "uid " + strconv.FormatUint(uint64(e.uid), 10)
	if u, err := user.LookupId(strconv.FormatUint(uint64(e.uid), 10)); err == nil {
		who += " (" + u.Username + ")"
	}
	want := "root or you"
	if e.su.isNamed {
		want = "uid " + strconv.FormatUint(uint64(e.su.named), 10) + ", which " + e.su.flag + " names"
	}
	return fmt.Sprintf("the program listening at %s runs as %s, not %s: nothing was sent to it "+
		"(another program may have taken the server's port while the server was down; "+
		"if it is the turnstile server, name its user with %s)", e.addr, who, want, e.su.flag)
}

// dial connects to addr and, on this machine, checks the listener's owner
// before the connection is used.
func (su serverUsers) dial(ctx context.Context, network, addr string) (net.Conn, error) {
	d := net.Dialer{Timeout: 10 * time.Second}
	c, err := d.DialContext(ctx, network, addr)
	if err != nil {
		return nil, err
	}
	// The proof is asked within the request's time: a listener that never
	// answers holds the client no longer than the request would.
	stop := context.AfterFunc(ctx, func() { c.SetDeadline(time.Unix(1, 0)) })
	err = su.check(c, addr)
	if !stop() || err != nil {
		c.Close()
		return nil, cmp.Or(ctx.Err(), err)
	}
	return c, nil
}

func (su serverUsers) check(c net.Conn, addr string) error {
	uid, err := peeruid.Of(c)
	local := true
	switch {
	case errors.Is(err, peeruid.ErrNotLocal):
		local = false // another machine's: TLS names it, not a uid
	case err != nil:
		return fmt.Errorf("cannot tell which user listens at %s (%v): nothing was sent to it: %w", addr, err, errUnverifiedServer)
	case !su.accepts(uid):
		return &wrongServerError{addr: addr, uid: uid, su: su}
	}
	if !su.plain || (!local && su.key == nil) {
		return nil
	}
	return su.prove(c, addr)
}

// transport is http.DefaultTransport's settings with the checked dial.
func (su serverUsers) transport() *http.Transport {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.DialContext = su.dial
	return tr
}
