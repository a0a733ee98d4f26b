package sandbox

import (
	"encoding/binary"
	"errors"
	"strings"

	"golang.org/x/sys/unix"
)

// fileID names a file by its device (as stat reports st_dev) and inode.
type fileID struct{ dev, ino uint64 }

// unix_diag (linux/unix_diag.h); x/sys/unix does not name these.
const (
	udiagShowName = 0x1 // UDIAG_SHOW_NAME
	udiagShowVFS  = 0x2 // UDIAG_SHOW_VFS
	unixDiagName  = 0   // UNIX_DIAG_NAME
	unixDiagVFS   = 1   // UNIX_DIAG_VFS
	unixDiagReq   = 24  // sizeof(struct unix_diag_req)
	unixDiagMsg   = 16  // sizeof(struct unix_diag_msg)
)

// hostSocketFiles returns the unix sockets bound to a file in this network
// namespace, by their socket file's identity, with the name they were bound
// at (relative, or stale after a rename, as /proc/net/unix shows it): what
// the kernel knows of every listener, wherever its file lies now
// (NETLINK_SOCK_DIAG, UDIAG_SHOW_VFS).
func hostSocketFiles() (map[fileID]string, error) {
	ne := binary.NativeEndian
	msg := make([]byte, unix.NLMSG_HDRLEN+unixDiagReq)
	ne.PutUint32(msg[0:], uint32(len(msg)))
	ne.PutUint16(msg[4:], unix.SOCK_DIAG_BY_FAMILY)
	ne.PutUint16(msg[6:], unix.NLM_F_REQUEST|unix.NLM_F_DUMP)
	ne.PutUint32(msg[8:], 1)
	req := msg[unix.NLMSG_HDRLEN:]
	req[0] = unix.AF_UNIX
	ne.PutUint32(req[4:], 0xffffffff) // every state
	ne.PutUint32(req[12:], udiagShowName|udiagShowVFS)

	fd, err := unix.Socket(unix.AF_NETLINK, unix.SOCK_RAW|unix.SOCK_CLOEXEC, unix.NETLINK_SOCK_DIAG)
	if err != nil {
		return nil, err
	}
	defer unix.Close(fd)
	if err := unix.Sendto(fd, msg, 0, &unix.SockaddrNetlink{Family: unix.AF_NETLINK}); err != nil {
		return nil, err
	}
	out := map[fileID]string{}
	buf := make([]byte, 64<<10)
	for {
		n, from, err := unix.Recvfrom(fd, buf, 0)
		if err != nil {
			return nil, err
		}
		if nl, ok := from.(*unix.SockaddrNetlink); !ok || nl.Pid != 0 {
			continue
		}
		for b := buf[:n]; len(b) >= unix.NLMSG_HDRLEN; {
			l := int(ne.Uint32(b[0:]))
			if l < unix.NLMSG_HDRLEN || l > len(b) {
				return nil, errors.New("malformed sock_diag message")
			}
			typ, data := ne.Uint16(b[4:]), b[unix.NLMSG_HDRLEN:l]
			b = b[min((l+3)&^3, len(b)):]
			switch typ {
			case unix.NLMSG_DONE:
				return out, nil
			case unix.NLMSG_ERROR:
				if len(data) >= 4 {
					if code := -int32(ne.Uint32(data)); code != 0 {
						return nil, unix.Errno(code)
					}
				}
				return nil, errors.New("sock_diag error")
			case unix.SOCK_DIAG_BY_FAMILY:
				if id, name, ok := parseUnixDiag(data); ok {
					out[id] = name
				}
			}
		}
	}
}

// parseUnixDiag reads one unix_diag_msg and its attributes: the socket
// file's identity (UNIX_DIAG_VFS) and its bound name (UNIX_DIAG_NAME); ok
// is false for a socket bound to no file (abstract, or unbound).
func parseUnixDiag(data []byte) (id fileID, name string, ok bool) {
	if len(data) < unixDiagMsg {
		return fileID{}, "", false
	}
	ne := binary.NativeEndian
	for a := data[unixDiagMsg:]; len(a) >= unix.SizeofRtAttr; {
		l := int(ne.Uint16(a[0:]))
		if l < unix.SizeofRtAttr || l > len(a) {
			break
		}
		typ, v := ne.Uint16(a[2:]), a[unix.SizeofRtAttr:l]
		a = a[min((l+3)&^3, len(a)):]
		switch typ {
		case unixDiagName:
			name = strings.TrimRight(string(v), "\x00")
		case unixDiagVFS:
			if len(v) >= 8 {
				// struct unix_diag_vfs { u32 ino; u32 dev; }, dev the
				// kernel's dev_t (major << 20 | minor).
				kdev := ne.Uint32(v[4:])
				id = fileID{dev: unix.Mkdev(kdev>>20, kdev&0xfffff), ino: uint64(ne.Uint32(v[0:]))}
				ok = true
			}
		}
	}
	return id, name, ok
}
