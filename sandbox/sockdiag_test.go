package sandbox

import (
	"net"
	"os"
	"testing"

	"golang.org/x/sys/unix"
)

// TestHostSocketFiles: a listening socket is known by its file's identity
// after its file was renamed (the name is the one it was bound at); a
// socket file nothing is bound to any more is not (the control: its file
// exists as well).
func TestHostSocketFiles(t *testing.T) {
	d := t.TempDir()
	ln, err := net.Listen("unix", d+"/live.sock")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	if err := os.Rename(d+"/live.sock", d+"/moved.sock"); err != nil {
		t.Fatal(err)
	}
	fd, _ := unix.Socket(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err := unix.Bind(fd, &unix.SockaddrUnix{Name: d + "/stale.sock"}); err != nil {
		t.Fatal(err)
	}
	unix.Close(fd)
	idOf := func(p string) fileID {
		var st unix.Stat_t
		if err := unix.Lstat(p, &st); err != nil {
			t.Fatal(err)
		}
		return fileID{dev: st.Dev, ino: st.Ino}
	}
	files, err := hostSocketFiles()
	if err != nil {
		t.Fatal(err)
	}
	if name, ok := files[idOf(d+"/moved.sock")]; !ok || name != d+"/live.sock" {
		t.Errorf("the renamed listener: %q %v; want it known by its file, bound at %s/live.sock", name, ok, d)
	}
	if name, ok := files[idOf(d+"/stale.sock")]; ok {
		t.Errorf("a socket file nothing is bound to is known as %q", name)
	}
}
