package sandbox

import (
	"encoding/binary"
	"errors"
	"net/netip"

	"golang.org/x/sys/unix"
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
	fam, bits := unix.AF_INET, 32
	if a.Is6() {
		fam, bits = unix.AF_INET6, 128
	}
	addr := a.AsSlice()
	attrLen := unix.SizeofRtAttr + len(addr)
	msg := make([]byte, unix.NLMSG_HDRLEN+unix.SizeofRtMsg+attrLen)
	ne := binary.NativeEndian
	ne.PutUint32(msg[0:], uint32(len(msg)))
	ne.PutUint16(msg[4:], unix.RTM_GETROUTE)
	ne.PutUint16(msg[6:], unix.NLM_F_REQUEST)
	ne.PutUint32(msg[8:], 1) // sequence
	rt := msg[unix.NLMSG_HDRLEN:]
	rt[0], rt[1] = byte(fam), byte(bits) // rtm_family, rtm_dst_len
	at := rt[unix.SizeofRtMsg:]
	ne.PutUint16(at[0:], uint16(attrLen))
	ne.PutUint16(at[2:], unix.RTA_DST)
	copy(at[unix.SizeofRtAttr:], addr)

	fd, err := unix.Socket(unix.AF_NETLINK, unix.SOCK_RAW|unix.SOCK_CLOEXEC, unix.NETLINK_ROUTE)
	if err != nil {
		return false, err
	}
	defer unix.Close(fd)
	if err := unix.Sendto(fd, msg, 0, &unix.SockaddrNetlink{Family: unix.AF_NETLINK}); err != nil {
		return false, err
	}
	buf := make([]byte, 8192)
	for {
		n, from, err := unix.Recvfrom(fd, buf, 0)
		if err != nil {
			return false, err
		}
		if nl, ok := from.(*unix.SockaddrNetlink); !ok || nl.Pid != 0 {
			continue // only the kernel answers
		}
		for b := buf[:n]; len(b) >= unix.NLMSG_HDRLEN; {
			l := int(ne.Uint32(b[0:]))
			if l < unix.NLMSG_HDRLEN || l > len(b) {
				return false, errors.New("malformed netlink message")
			}
			typ, seq, data := ne.Uint16(b[4:]), ne.Uint32(b[8:]), b[unix.NLMSG_HDRLEN:l]
			b = b[min((l+3)&^3, len(b)):]
			if seq != 1 {
				continue
			}
			switch typ {
			case unix.NLMSG_ERROR:
				if len(data) < 4 {
					return false, errors.New("short netlink error")
				}
				code := -int32(ne.Uint32(data))
				if code == 0 {
					continue
				}
				if errno := unix.Errno(code); errno != unix.ENETUNREACH && errno != unix.EHOSTUNREACH {
					return false, errno
				}
				return false, nil // no route: nothing here answers either
			case unix.RTM_NEWROUTE:
				if len(data) < unix.SizeofRtMsg {
					return false, errors.New("short route message")
				}
				return data[7] == unix.RTN_LOCAL, nil // rtm_type
			}
		}
	}
}
