package sandbox

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sys/unix"
)

// A process a command starts in a new session (setsid) is no member of the
// process group the kill reaches. Unsandboxed (full_access), nothing else
// ends it; sandboxed, the PID namespace's end does, but only once its init,
// the command's leader, has exited, and the command decides how long that
// takes (a leader releasing a file of many extents spends seconds in the
// kernel, unkillable: the hundred-and-ninety-fifth review). So when the
// server runs as root on a kernel with cgroup v2, Run starts every command
// (the helper, or the unsandboxed command itself) directly in a cgroup of
// its own (clone3 CLONE_INTO_CGROUP) and kills the whole cgroup
// (cgroup.kill, Linux 5.14) with the group: every process the command
// started gets its SIGKILL at once, whatever its session. Otherwise the
// process-group kill and the namespace's end are all there is (stated in
// Limits).

// killGroupsEnabled lets a test show what happens without kill groups.
var killGroupsEnabled = true

var killGroupSeq atomic.Int64

// killGroup is a cgroup v2 directory one command runs in.
type killGroup struct {
	dir      string
	fd       int // O_PATH descriptor of dir, for SysProcAttr.CgroupFD
	released sync.Once
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
	parent := filepath.Join(mnt, own)
	sweepOnce.Do(func() { sweepKillGroups(parent, true) })
	var dir string
	for tries := 0; ; tries++ {
		dir = filepath.Join(parent, killGroupPrefix(os.Getpid())+strconv.FormatInt(killGroupSeq.Add(1), 10))
		err := unix.Mkdir(dir, 0o700)
		if err == nil {
			break
		}
		if err != unix.EEXIST || tries == 100 {
			return nil, fmt.Errorf("mkdir %s: %w", dir, err)
		}
		// One left by an earlier process of this pid that the sweep
		// could not remove (it still held a process in the kernel): the
		// next name.
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

// killGroupsDetail says whether this process can start commands in kill
// groups (it makes one and removes it), for doctor.
func killGroupsDetail() string {
	kg, err := newKillGroup()
	if err != nil {
		return "no: " + err.Error() + "; a stop kills the command's process group, and a process it put in a session of its own dies with its PID namespace once its first process has exited (an unsandboxed command's, never)"
	}
	kg.release()
	return "yes: each command runs in a cgroup of its own, which a timeout, an interrupt or a turn's end kills whole at once (cgroup.kill)"
}

var sweepOnce sync.Once

// sweepKillGroups kills and removes the kill groups in parent that a
// process no longer running left: a server killed outright does not
// release its own, and its reaper (reaper.go) may have been killed too.
// With own (before this process makes its first group), one named with
// this process's pid is an earlier process's whose pid was used again, and
// goes too (review 196). Another live process's groups are not touched.
func sweepKillGroups(parent string, own bool) {
	killGroupsIn(parent, func(name string) bool {
		pid, _, _ := strings.Cut(strings.TrimPrefix(name, "turnstile-cmd-"), "-")
		n, err := strconv.Atoi(pid)
		if err != nil {
			return false
		}
		if n == os.Getpid() {
			return own
		}
		return unix.Kill(n, 0) == unix.ESRCH
	})
}

// kill SIGKILLs every process in the group.
func (k *killGroup) kill() error {
	return os.WriteFile(k.dir+"/cgroup.kill", []byte("1"), 0)
}

// release kills what is left, waits (bounded) until the group is empty and
// removes it; once (a later call does nothing).
func (k *killGroup) release() { k.released.Do(k.remove) }

func (k *killGroup) remove() {
	k.kill()
	unix.Close(k.fd)
	for deadline := time.Now().Add(drainGrace); ; time.Sleep(time.Millisecond) {
		err := unix.Rmdir(k.dir)
		if err == nil || !errors.Is(err, unix.EBUSY) {
			return
		}
		if time.Now().After(deadline) {
			// A process still in the kernel (blocked uninterruptibly,
			// its SIGKILL pending): the group is removed once it is
			// empty, without holding the caller (review 196).
			go k.removeWhenEmpty()
			return
		}
	}
}

// removeWhenEmpty removes the group once its last process has gone, at
// most ownerStopGroupWait from now.
func (k *killGroup) removeWhenEmpty() {
	for deadline := time.Now().Add(ownerStopGroupWait); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if err := unix.Rmdir(k.dir); err == nil || !errors.Is(err, unix.EBUSY) {
			return
		}
	}
}

// settled reports whether every thread in the group has begun its exit
// (PF_EXITING in /proc/TID/stat) or is gone: after kill, none of them runs
// the command's code again, though one may take long to finish exiting.
// A group that cannot be read (but exists) is not settled.
func (k *killGroup) settled() bool {
	b, err := os.ReadFile(k.dir + "/cgroup.threads")
	if err != nil {
		return errors.Is(err, fs.ErrNotExist)
	}
	for tid := range strings.FieldsSeq(string(b)) {
		st, err := os.ReadFile("/proc/" + tid + "/stat")
		if err != nil {
			continue // reaped
		}
		if !statExiting(st) {
			return false
		}
	}
	return true
}

// pfExiting is the kernel's PF_EXITING task flag.
const pfExiting = 0x4

// statExiting reports whether a /proc/TID/stat line has PF_EXITING in its
// flags (the ninth field; the second, the command's name in parentheses,
// may hold spaces and parentheses itself).
func statExiting(st []byte) bool {
	i := bytes.LastIndexByte(st, ')')
	if i < 0 {
		return false
	}
	f := strings.Fields(string(st[i+1:]))
	if len(f) < 7 {
		return false
	}
	flags, err := strconv.ParseUint(f[6], 10, 64)
	return err == nil && flags&pfExiting != 0
}

// cgroup2Mount returns where the cgroup v2 hierarchy is mounted, in the
// calling thread's mount table (/proc/self is the leader's, which may be
// in a namespace of its own: early.go).
func cgroup2Mount() (string, error) {
	f, err := os.Open("/proc/thread-self/mountinfo")
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
