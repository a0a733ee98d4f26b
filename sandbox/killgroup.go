package sandbox

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"time"

	"golang.org/x/sys/unix"
)

// An unsandboxed (full_access) command has no PID namespace: a process it
// starts in a new session (setsid) escapes the process-group kill. When the
// server runs as root on a kernel with cgroup v2, Run starts such a command
// directly in a cgroup of its own (clone3 CLONE_INTO_CGROUP) and kills the
// whole cgroup (cgroup.kill, Linux 5.14) with the group: nothing the command
// started survives, whatever its session. Otherwise the process-group kill
// is all there is (stated in Limits).

// killGroupsEnabled lets a test show what happens without kill groups.
var killGroupsEnabled = true

var killGroupSeq atomic.Int64

// killGroup is a cgroup v2 directory one command runs in.
type killGroup struct {
	dir string
	fd  int // O_PATH descriptor of dir, for SysProcAttr.CgroupFD
}

// newKillGroup makes an empty cgroup below the server's own, or returns an
// error when this machine or uid cannot.
func newKillGroup() (*killGroup, error) {
	if !killGroupsEnabled || os.Geteuid() != 0 {
		return nil, errors.New("kill groups need root")
	}
	mnt, err := cgroup2Mount()
	if err != nil {
		return nil, err
	}
	own, err := ownCgroup()
	if err != nil {
		return nil, err
	}
	dir := filepath.Join(mnt, own, fmt.Sprintf("turnstile-cmd-%d-%d", os.Getpid(), killGroupSeq.Add(1)))
	if err := unix.Mkdir(dir, 0o700); err != nil {
		return nil, fmt.Errorf("mkdir %s: %w", dir, err)
	}
	if _, err := os.Stat(dir + "/cgroup.kill"); err != nil {
		unix.Rmdir(dir)
		return nil, fmt.Errorf("no cgroup.kill (Linux 5.14): %w", err)
	}
	fd, err := unix.Open(dir, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		unix.Rmdir(dir)
		return nil, err
	}
	return &killGroup{dir: dir, fd: fd}, nil
}

// kill SIGKILLs every process in the group.
func (k *killGroup) kill() error {
	return os.WriteFile(k.dir+"/cgroup.kill", []byte("1"), 0)
}

// release kills what is left, waits (bounded) until the group is empty and
// removes it.
func (k *killGroup) release() {
	k.kill()
	unix.Close(k.fd)
	for deadline := time.Now().Add(drainGrace); ; time.Sleep(time.Millisecond) {
		if err := unix.Rmdir(k.dir); err == nil || !errors.Is(err, unix.EBUSY) || time.Now().After(deadline) {
			return
		}
	}
}

// cgroup2Mount returns where the cgroup v2 hierarchy is mounted.
func cgroup2Mount() (string, error) {
	f, err := os.Open("/proc/self/mountinfo")
	if err != nil {
		return "", err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		pre, post, ok := strings.Cut(sc.Text(), " - ")
		if !ok || !strings.HasPrefix(post, "cgroup2 ") {
			continue
		}
		if fields := strings.Fields(pre); len(fields) >= 5 {
			return fields[4], nil
		}
	}
	return "", errors.New("no cgroup v2 mount")
}

// ownCgroup returns the server's cgroup v2 path ("0::/path").
func ownCgroup() (string, error) {
	b, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		return "", err
	}
	for line := range strings.SplitSeq(string(b), "\n") {
		if p, ok := strings.CutPrefix(line, "0::"); ok {
			return p, nil
		}
	}
	return "", errors.New("not in a cgroup v2 hierarchy")
}
