package sandbox

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"golang.org/x/sys/unix"
)

// A restricted command's isolated temp dir (Plan.IsolatedTmp) is removed
// after the command; a process killed outright (a server's OOM kill,
// `turnstile sandbox` killed by its runtime) removes nothing, and the
// directory, with whatever the command wrote there, stayed in the host's
// temp dir for good. So its name holds the pid of the process that made
// it (tmpDirPrefix), and what a dead process left is removed by the
// server's reaper when it was the reaper's server (reaper.go), by every
// server's start (SweepDeadTmpDirs, for the servers that have no reaper:
// not root, or no cgroup v2) and after a process's first command (the
// next `turnstile sandbox` sweeps what a killed one left). A directory is swept only when it is the
// sweeping user's, a directory (not a link to one), and named for a pid no
// process of the sweeper's PID namespace has now; a pid reused meanwhile keeps it (left, never wrongly
// removed). Directories of the older form (no pid) are left alone: whose
// they were cannot be told.

// tmpSweepOnce sweeps once a process, after its first command with an
// isolated temp dir (run.go).
var tmpSweepOnce sync.Once

// tmpDirBase is how every isolated temp dir's name begins.
const tmpDirBase = "turnstile-tmp-"

// tmpDirPrefix is the name prefix of the isolated temp dirs process pid
// of this PID namespace makes (os.MkdirTemp's pattern).
func tmpDirPrefix(pid int) string {
	return tmpDirBase + strconv.Itoa(pid) + "-" + pidNamespace() + "-"
}

// pidNamespace names this process's PID namespace (its inode): a temp dir
// shared by containers (a bind-mounted /tmp) holds the directories of
// processes whose pids are another namespace's, which a sweep must not
// judge by its own. "0" when it cannot be read.
var pidNamespace = sync.OnceValue(func() string {
	l, err := os.Readlink("/proc/self/ns/pid")
	if ino, ok := strings.CutPrefix(l, "pid:["); err == nil && ok && strings.HasSuffix(ino, "]") {
		if n, err := strconv.ParseUint(strings.TrimSuffix(ino, "]"), 10, 64); err == nil {
			return strconv.FormatUint(n, 10)
		}
	}
	return "0"
})

// tmpDirPid returns the pid an isolated temp dir's name holds, when it was
// made in this PID namespace.
func tmpDirPid(name string) (int, bool) {
	rest, ok := strings.CutPrefix(name, tmpDirBase)
	if !ok {
		return 0, false
	}
	parts := strings.SplitN(rest, "-", 3)
	if len(parts) != 3 || parts[1] != pidNamespace() {
		return 0, false
	}
	pid, err := strconv.Atoi(parts[0])
	if err != nil || pid <= 0 || strconv.Itoa(pid) != parts[0] {
		return 0, false
	}
	return pid, true
}

// processGone reports whether no process has pid (in this PID namespace).
func processGone(pid int) bool { return unix.Kill(pid, 0) == unix.ESRCH }

// SweepDeadTmpDirs removes, from the temp dir, the isolated temp dirs
// that processes no longer running left (see above), and returns how many
// it removed. A server calls it once at its start.
func SweepDeadTmpDirs() int {
	return sweepTmpDirs(os.TempDir(), func(pid int) bool { return pid != os.Getpid() && processGone(pid) })
}

// sweepTmpDirs removes the isolated temp dirs in dir, of this process's
// effective uid, whose pid sweep accepts.
func sweepTmpDirs(dir string, sweep func(pid int) bool) int {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return 0
	}
	n := 0
	for _, e := range ents {
		pid, ok := tmpDirPid(e.Name())
		if !ok || !e.IsDir() || !sweep(pid) {
			continue
		}
		p := filepath.Join(dir, e.Name())
		var st unix.Stat_t
		if unix.Lstat(p, &st) != nil || st.Mode&unix.S_IFMT != unix.S_IFDIR || int(st.Uid) != os.Geteuid() {
			continue
		}
		if removeTreeAt(p) == nil {
			n++
		}
	}
	return n
}
