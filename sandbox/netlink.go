package sandbox

import (
	"encoding/binary"
	"errors"

	"golang.org/x/sys/unix"
)

// netlinkRequest sends one request of type typ (with flags, and body after
// the header) on a netlink socket of protocol proto and hands each message
// of the kernel's answer (its type and payload) to each until each says it
// is done. An NLMSG_ERROR answer is the error it carries (NLMSG_DONE ends a
// dump: each sees it too); a zero error (an acknowledgement) is skipped.
func netlinkRequest(proto int, typ, flags uint16, body []byte, each func(typ uint16, data []byte) (done bool, err error)) error {
	ne := binary.NativeEndian
	msg := make([]byte, unix.NLMSG_HDRLEN+len(body))
	ne.PutUint32(msg[0:], uint32(len(msg)))
	ne.PutUint16(msg[4:], typ)
	ne.PutUint16(msg[6:], flags)
	ne.PutUint32(msg[8:], 1) // sequence
	copy(msg[unix.NLMSG_HDRLEN:], body)

	fd, err := unix.Socket(unix.AF_NETLINK, unix.SOCK_RAW|unix.SOCK_CLOEXEC, proto)
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	if err := unix.Sendto(fd, msg, 0, &unix.SockaddrNetlink{Family: unix.AF_NETLINK}); err != nil {
		return err
	}
	buf := make([]byte, 64<<10)
	for {
		n, from, err := unix.Recvfrom(fd, buf, 0)
		if err != nil {
			return err
		}
		if nl, ok := from.(*unix.SockaddrNetlink); !ok || nl.Pid != 0 {
			continue // only the kernel answers
		}
		for b := buf[:n]; len(b) >= unix.NLMSG_HDRLEN; {
			l := int(ne.Uint32(b[0:]))
			if l < unix.NLMSG_HDRLEN || l > len(b) {
				return errors.New("malformed netlink message")
			}
			typ, seq, data := ne.Uint16(b[4:]), ne.Uint32(b[8:]), b[unix.NLMSG_HDRLEN:l]
			b = b[min((l+3)&^3, len(b)):]
			if seq != 1 {
				continue
			}
			if typ == unix.NLMSG_ERROR {
				if len(data) < 4 {
					return errors.New("short netlink error")
				}
				if code := -int32(ne.Uint32(data)); code != 0 {
					return unix.Errno(code)
				}
				continue
			}
			if done, err := each(typ, data); done || err != nil {
				return err
			}
		}
	}
}
