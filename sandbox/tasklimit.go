package sandbox

import (
	"os"
	"strconv"
	"strings"
)

// A sandboxed command runs in a PID namespace of its own, which bounds
// what it leaves behind, not how much it starts while it runs. Nothing
// else did: a fork bomb took the machine's process ids and threads
// (pid_max, threads-max) until its timeout, and every fork failed
// meanwhile, the server's, the egress proxy's and every other turn's
// included. The helper sets RLIMIT_NPROC to commandTaskLimit before it
// switches user and execs. The kernel counts tasks (threads too) by user
// and user namespace: under a server that is not root the command has a
// user namespace of its own, and the bound is the command's alone; under
// a root server every command runs as SandboxUID in the host's, so the
// bound is shared by the commands running at once (one that reached it
// leaves the others' forks, and their start, failing until it ends), but
// the server and every other uid keep the rest. A per-command pids cgroup
// would bound each command alone there; cgroup v1 hosts have none to give.

// commandTaskLimit returns the RLIMIT_NPROC of a sandboxed command: a
// quarter of the machine's process ids or threads, whichever
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
