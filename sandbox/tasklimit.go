package sandbox

import (
	"os"
	"strconv"
	"strings"
)

// A restricted command of a root server runs as SandboxUID in a PID
// namespace of its own, which bounds what it leaves behind, not how much
// it starts while it runs. Nothing else did: a fork bomb, or a loop of
// background sleeps, took the machine's process ids and threads (pid_max,
// threads-max) until its timeout, and every fork failed meanwhile, the
// server's, the egress proxy's and every other turn's included. The helper
// sets RLIMIT_NPROC to commandTaskLimit before it switches to SandboxUID:
// the kernel counts every task (threads too) of the uid, so the bound is
// shared by the commands running at once (one that reached it leaves the
// others' forks, and their start, failing until it ends), but the server
// and every other uid keep the rest. A per-command pids cgroup would bound
// each command alone; cgroup v1 hosts have none to give.

// commandTaskLimit returns the RLIMIT_NPROC of a command run as
// SandboxUID: a quarter of the machine's process ids or threads, whichever
// is fewer, between 1024 and 65536. A variable so that a test can lower
// it.
var commandTaskLimit = func() int {
	n := min(procSysInt("/proc/sys/kernel/pid_max", 32768), procSysInt("/proc/sys/kernel/threads-max", 32768)) / 4
	return max(1024, min(n, 65536))
}

// procSysInt reads one integer from a /proc/sys file, or returns def.
func procSysInt(path string, def int) int {
	b, err := os.ReadFile(path)
	if err != nil {
		return def
	}
	n, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil || n <= 0 {
		return def
	}
	return n
}
