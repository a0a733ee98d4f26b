package sandbox

import (
	"encoding/binary"
	"errors"
	"net/netip"

	"golang.org/x/sys/unix"

	"turnstile/domain"
)

// localRoute reports whether the kernel delivers packets for a to this
// host: its route is of type RTN_LOCAL, as for every address of the host's
// own interfaces (its public address among them) and any local route. A
// service bound on 0.0.0.0 listens on all of them, so each is the server's
// own "localhost" (an attack review reached one through an allowed name
// that resolved to the host's interface address). It asks the routing
// table of the caller's network namespace (RTM_GETROUTE for a).
func localRoute(a netip.Addr) (bool, error) {
	a = a.WithZone("").Unmap()
	if !a.IsValid() {
		return false, errors.New("no address")
	}
	// An IPv6 address that embeds an IPv4 one (NAT64, 6to4, IPv4-
	// compatible) reaches that address where a gateway translates it:
	// it is this host's when either is.
	if v4, _, ok := domain.EmbeddedIPv4(a); ok {
		if local, err := localRoute(v4); err != nil || local {
			return local, err
		}
	}
	fam, bits := unix.AF_INET, 32
	if a.Is6() {
		fam, bits = unix.AF_INET6, 128
	}
	addr := a.AsSlice()
	attrLen := unix.SizeofRtAttr + len(addr)
	body := make([]byte, unix.SizeofRtMsg+attrLen)
	body[0], body[1] = byte(fam), byte(bits) // rtm_family, rtm_dst_len
	at := body[unix.SizeofRtMsg:]
	binary.NativeEndian.PutUint16(at[0:], uint16(attrLen))
	binary.NativeEndian.PutUint16(at[2:], unix.RTA_DST)
	copy(at[unix.SizeofRtAttr:], addr)
	var local bool
	err := netlinkRequest(unix.NETLINK_ROUTE, unix.RTM_GETROUTE, unix.NLM_F_REQUEST, body, func(typ uint16, data []byte) (bool, error) {
		if typ != unix.RTM_NEWROUTE {
			return false, nil
		}
		if len(data) < unix.SizeofRtMsg {
			return true, errors.New("short route message")
		}
		local = data[7] == unix.RTN_LOCAL // rtm_type
		return true, nil
	})
	if errors.Is(err, unix.ENETUNREACH) || errors.Is(err, unix.EHOSTUNREACH) {
		return false, nil // no route: nothing here answers either
	}
	return local, err
}
