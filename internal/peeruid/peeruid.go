// Package peeruid tells which user owns the far end of a TCP connection to
// an address of this machine (loopback, or one of its interfaces'): the
// socket the server accepted it on, asked of the kernel by its four-tuple
// (sock_diag, as ss(8) asks it).
//
// A client that is about to send a credential to a server on 127.0.0.1
// learns this way whether the listener is the server's, or a program of
// another user that bound the port while the server was down.
package peeruid

import (
	"encoding/binary"
	"errors"
	"fmt"
	"net"
	"net/netip"

	"golang.org/x/sys/unix"
)

// ErrNotLocal is returned for a connection whose far end is not an address
// of this machine: the kernel knows no owner for it.
var ErrNotLocal = errors.New("not a TCP connection to an address of this machine")

// Of returns the uid of the user whose socket is the far end of c, a TCP
// connection to an address of this machine: the accepted socket, or,
// before the server's kernel side has made it, the listener it will be
// accepted from.
func Of(c net.Conn) (uint32, error) {
	tc, ok := c.(*net.TCPConn)
	if !ok {
		return 0, ErrNotLocal
	}
	local, lok := tc.LocalAddr().(*net.TCPAddr)
	remote, rok := tc.RemoteAddr().(*net.TCPAddr)
	if !lok || !rok {
		return 0, ErrNotLocal
	}
	mine, err := IsLocal(remote.AddrPort().Addr())
	if err != nil {
		return 0, err
	}
	if !mine {
		return 0, ErrNotLocal
	}
	uid, state, err := lookup(local.AddrPort(), remote.AddrPort())
	if err != nil {
		return 0, err
	}
	if state != tcpSynRecv && state != tcpNewSynRecv {
		return uid, nil
	}
	// The server's side is still a request socket (a listener with
	// TCP_DEFER_ACCEPT keeps it one until data arrives, and a busy
	// machine may not have made the full socket yet): the kernel tells
	// no owner for it (uid 0). Its listener's owner is the one to judge:
	// asked by a peer port no connection has, the lookup finds it.
	uid, state, err = lookup(netip.AddrPortFrom(local.AddrPort().Addr(), 0), remote.AddrPort())
	if err != nil {
		return 0, err
	}
	if state != tcpListen {
		return 0, fmt.Errorf("sock_diag: the server's socket is in state %d, not listening", state)
	}
	return uid, nil
}

// TCP states (include/net/tcp_states.h).
const (
	tcpSynRecv    = 3
	tcpListen     = 10
	tcpNewSynRecv = 12
)

// IsLocal reports whether a is a loopback address or one of this machine's
// interfaces' (where a program of any user may listen).
func IsLocal(a netip.Addr) (bool, error) {
	a = a.Unmap()
	if a.IsLoopback() {
		return true, nil
	}
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		return false, fmt.Errorf("this machine's addresses: %w", err)
	}
	for _, ia := range addrs {
		if n, ok := ia.(*net.IPNet); ok {
			if ip, ok := netip.AddrFromSlice(n.IP); ok && ip.Unmap() == a.WithZone("") {
				return true, nil
			}
		}
	}
	return false, nil
}

// Lookup returns the uid owning the socket at server, an address of this
// machine, whose peer is client (or, with none, the listener there).
func Lookup(client, server netip.AddrPort) (uint32, error) {
	uid, _, err := lookup(client, server)
	return uid, err
}

// lookup returns the uid and TCP state of the socket Lookup finds.
func lookup(client, server netip.AddrPort) (uint32, uint8, error) {
	sa, ca := server.Addr().Unmap().WithZone(""), client.Addr().Unmap().WithZone("")
	family := uint8(unix.AF_INET6)
	if sa.Is4() {
		family = unix.AF_INET
		if !ca.Is4() {
			return 0, 0, ErrNotLocal
		}
	} else if ca.Is4() {
		ca = netip.AddrFrom16(ca.As16())
	}
	fd, err := unix.Socket(unix.AF_NETLINK, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, unix.NETLINK_SOCK_DIAG)
	if err != nil {
		return 0, 0, fmt.Errorf("sock_diag: %w", err)
	}
	defer unix.Close(fd)
	if err := unix.Sendto(fd, request(family, server.Port(), client.Port(), sa, ca), 0, &unix.SockaddrNetlink{Family: unix.AF_NETLINK}); err != nil {
		return 0, 0, fmt.Errorf("sock_diag: %w", err)
	}
	buf := make([]byte, 8192)
	n, _, err := unix.Recvfrom(fd, buf, 0)
	if err != nil {
		return 0, 0, fmt.Errorf("sock_diag: %w", err)
	}
	return parse(buf[:n])
}

// The sizes of the kernel's structures (linux/inet_diag.h, netlink.h).
const (
	nlmsgHdrLen = 16
	sockIDLen   = 48 // inet_diag_sockid
	reqLen      = 8 + sockIDLen
	// inet_diag_msg: family, state, timer, retrans, the sockid, then
	// expires, rqueue, wqueue, uid, inode.
	msgUIDOff = 4 + sockIDLen + 12
	msgLen    = msgUIDOff + 8
)

// request is an exact-socket SOCK_DIAG_BY_FAMILY request for TCP.
func request(family uint8, sport, dport uint16, src, dst netip.Addr) []byte {
	b := make([]byte, nlmsgHdrLen+reqLen)
	ne := binary.NativeEndian
	ne.PutUint32(b[0:], uint32(len(b)))
	ne.PutUint16(b[4:], unix.SOCK_DIAG_BY_FAMILY)
	ne.PutUint16(b[6:], unix.NLM_F_REQUEST)
	ne.PutUint32(b[8:], 1) // sequence
	r := b[nlmsgHdrLen:]
	r[0], r[1] = family, unix.IPPROTO_TCP
	ne.PutUint32(r[4:], 0xffffffff) // every state
	id := r[8:]
	binary.BigEndian.PutUint16(id[0:], sport)
	binary.BigEndian.PutUint16(id[2:], dport)
	if family == unix.AF_INET {
		s, d := src.As4(), dst.As4()
		copy(id[4:], s[:])
		copy(id[20:], d[:])
	} else {
		s, d := src.As16(), dst.As16()
		copy(id[4:], s[:])
		copy(id[20:], d[:])
	}
	// idiag_if 0; the cookie INET_DIAG_NOCOOKIE: any socket with this tuple.
	ne.PutUint32(id[40:], 0xffffffff)
	ne.PutUint32(id[44:], 0xffffffff)
	return b
}

// parse reads the answer: the socket's uid and state, or an error.
func parse(b []byte) (uint32, uint8, error) {
	ne := binary.NativeEndian
	if len(b) < nlmsgHdrLen {
		return 0, 0, errors.New("sock_diag: short answer")
	}
	l, typ := ne.Uint32(b[0:]), ne.Uint16(b[4:])
	if int(l) > len(b) || l < nlmsgHdrLen {
		return 0, 0, errors.New("sock_diag: malformed answer")
	}
	body := b[nlmsgHdrLen:l]
	switch typ {
	case unix.NLMSG_ERROR:
		if len(body) < 4 {
			return 0, 0, errors.New("sock_diag: malformed error")
		}
		if code := int32(ne.Uint32(body)); code != 0 {
			return 0, 0, fmt.Errorf("sock_diag: %w", unix.Errno(-code))
		}
		return 0, 0, errors.New("sock_diag: no socket in the answer")
	case unix.SOCK_DIAG_BY_FAMILY:
		if len(body) < msgLen {
			return 0, 0, errors.New("sock_diag: short socket message")
		}
		return ne.Uint32(body[msgUIDOff:]), body[1], nil
	}
	return 0, 0, fmt.Errorf("sock_diag: unexpected message type %d", typ)
}
