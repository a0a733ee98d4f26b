package sandbox

import (
	"encoding/binary"
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
	req := make([]byte, unixDiagReq)
	req[0] = unix.AF_UNIX
	binary.NativeEndian.PutUint32(req[4:], 0xffffffff) // every state
	binary.NativeEndian.PutUint32(req[12:], udiagShowName|udiagShowVFS)
	out := map[fileID]string{}
	err := netlinkRequest(unix.NETLINK_SOCK_DIAG, unix.SOCK_DIAG_BY_FAMILY, unix.NLM_F_REQUEST|unix.NLM_F_DUMP, req, func(typ uint16, data []byte) (bool, error) {
		switch typ {
		case unix.NLMSG_DONE:
			return true, nil
		case unix.SOCK_DIAG_BY_FAMILY:
			if id, name, ok := parseUnixDiag(data); ok {
				out[id] = name
			}
		}
		return false, nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
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
