package sandbox

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// A command ends with the server through its parent-death signal, which
// the command may clear itself (prctl) or lose by executing a set-user-ID
// program; a graceful stop kills every command (engine.StopAllRuns), but a
// server killed outright (an OOM kill, a crash, systemd's SIGKILL after a
// stop timeout) cannot. Such a command, a full_access one on the host's
// network as the server's uid, then took the server's port and was
// trusted as the server by the clients' user check (the
// hundred-and-ninety-seventh review). So a server whose commands run in
// kill groups starts a reaper: a small process of its own binary, in its
// own session, that holds the read end of a pipe the server never closes;
// the kernel closes it when the server ends, however it ends, and the
// reaper then kills every kill group the server made and removes it.

// reaperArg makes the binary act as the kill-group reaper.
const reaperArg = "__turnstile-killgroup-reaper"

// reaperPipe is the write end the server keeps open for its whole life
// (close-on-exec: no command inherits it); held here, it is never
// finalized (closed) while the process runs.
var reaperPipe atomic.Pointer[os.File]

// StartKillGroupReaper starts the reaper for this process's kill groups
// when its commands get them (as root on cgroup v2 with cgroup.kill); it
// first kills and removes the groups that ended processes left (a reaper
// that was itself killed). A process whose commands get no kill groups
// starts none: nil. Either way it first removes the isolated temp dirs that
// processes killed outright left (SweepDeadTmpDirs). Call it once, before
// the server accepts requests.
func StartKillGroupReaper() error {
	SweepDeadTmpDirs()        // what processes killed outright left (tmpsweep.go)
	kg, err := newKillGroup() // sweeps the dead's groups first
	if err != nil {
		return nil
	}
	kg.release()
	parent := filepath.Dir(kg.dir)
	r, w, err := os.Pipe()
	if err != nil {
		return fmt.Errorf("kill-group reaper: %w", err)
	}
	defer r.Close()
	// The running binary itself, whatever became of its path since.
	cmd := exec.Command("/proc/self/exe", reaperArg, parent, killGroupPrefix(os.Getpid()))
	cmd.Args[0] = "turnstile-reaper"
	cmd.Stdin = r
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		w.Close()
		return fmt.Errorf("kill-group reaper: %w", err)
	}
	go cmd.Wait() // reaped if it ends first (it should not)
	reaperPipe.Store(w)
	return nil
}

// killGroupPrefix is the name every kill group of process pid starts with.
func killGroupPrefix(pid int) string { return fmt.Sprintf("turnstile-cmd-%d-", pid) }

// runKillGroupReaper is the reaper: it waits for the end of its stdin (the
// server has ended) and then kills and removes the groups in parent whose
// names start with prefix.
func runKillGroupReaper(args []string) int {
	if len(args) != 2 || !strings.HasPrefix(args[1], "turnstile-cmd-") {
		fmt.Fprintln(os.Stderr, "usage: "+reaperArg+" PARENT turnstile-cmd-PID-")
		return 2
	}
	signal.Ignore(syscall.SIGINT, syscall.SIGHUP, syscall.SIGPIPE)
	io.Copy(io.Discard, os.Stdin)
	killGroupsIn(args[0], func(name string) bool { return strings.HasPrefix(name, args[1]) })
	// Its commands gone, the server's isolated temp dirs go too (tmpsweep.go).
	if pid, err := strconv.Atoi(strings.TrimSuffix(strings.TrimPrefix(args[1], "turnstile-cmd-"), "-")); err == nil {
		sweepTmpDirs(os.TempDir(), func(p int) bool { return p == pid && processGone(p) })
	}
	return 0
}

// killGroupsIn kills every kill group in parent whose name match accepts,
// waits (bounded) until each is empty and removes it.
func killGroupsIn(parent string, match func(name string) bool) {
	ents, err := os.ReadDir(parent)
	if err != nil {
		return
	}
	var dirs []string
	for _, e := range ents {
		if e.IsDir() && strings.HasPrefix(e.Name(), "turnstile-cmd-") && match(e.Name()) {
			dir := filepath.Join(parent, e.Name())
			os.WriteFile(dir+"/cgroup.kill", []byte("1"), 0)
			dirs = append(dirs, dir)
		}
	}
	deadline := time.Now().Add(reaperWait)
	for _, dir := range dirs {
		for {
			err := unix.Rmdir(dir)
			if err == nil || err != unix.EBUSY || time.Now().After(deadline) {
				break
			}
			time.Sleep(time.Millisecond) // polling the group's emptiness
		}
	}
}

// reaperWait bounds how long the reaper waits for the groups to empty.
const reaperWait = 30 * time.Second
