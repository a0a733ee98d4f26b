package sandbox

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// testReaperArg makes the test binary act as a server that starts the
// reaper, runs a process in a kill group of its own (in a session of its
// own, no parent-death signal: as a command that cleared it), prints the
// process's pid and the group's directory, and waits to be killed.
const testReaperArg = "__sandbox-test-reaper"

func runTestReaper() {
	if err := StartKillGroupReaper(); err != nil {
		fmt.Println("reaper:", err)
		os.Exit(1)
	}
	kg, err := newKillGroup()
	if err != nil {
		fmt.Println("kill group:", err)
		os.Exit(1)
	}
	c := exec.Command("/bin/sleep", "600")
	c.SysProcAttr = &syscall.SysProcAttr{Setsid: true, UseCgroupFD: true, CgroupFD: kg.fd}
	if err := c.Start(); err != nil {
		fmt.Println("start:", err)
		os.Exit(1)
	}
	tmp, err := os.MkdirTemp("", tmpDirPrefix(os.Getpid())) // as a command's isolated temp dir
	if err == nil {
		err = os.WriteFile(tmp+"/left", []byte("x"), 0o600)
	}
	if err != nil {
		fmt.Println("temp dir:", err)
		os.Exit(1)
	}
	fmt.Println(c.Process.Pid, kg.dir, tmp)
	select {}
}

// TestReaperKillsCommandsOfAKilledServer: a server killed outright (SIGKILL)
// leaves no process of its commands running: its reaper kills the kill
// groups it made and removes them (the hundred-and-ninety-seventh review:
// a command that had cleared its parent-death signal outlived the server
// and took its port), and then the server's isolated temp dirs.
// Control: while the server lives, the process runs and its dir stays.
func TestReaperKillsCommandsOfAKilledServer(t *testing.T) {
	killGroupParent(t)
	// What a process killed outright before this server left in its temp
	// dir is swept at the server's start.
	tmpdir := t.TempDir()
	dead := exec.Command("/bin/true")
	if err := dead.Run(); err != nil {
		t.Fatal(err)
	}
	earlier := filepath.Join(tmpdir, tmpDirPrefix(dead.Process.Pid)+"1")
	mustDo(t, os.MkdirAll(earlier+"/sub", 0o700))
	srv := exec.Command("/proc/self/exe", testReaperArg)
	srv.Env = append(os.Environ(), "TMPDIR="+tmpdir)
	out, err := srv.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { srv.Process.Kill(); srv.Wait() }()
	line, err := bufio.NewReader(out).ReadString('\n')
	f := strings.Fields(line)
	if err != nil || len(f) != 3 {
		t.Fatalf("the server said %q (%v)", line, err)
	}
	pid, _ := strconv.Atoi(f[0])
	dir, tmp := f[1], f[2]
	if _, err := os.Lstat(earlier); !os.IsNotExist(err) {
		t.Errorf("the temp dir %s of a process gone before the server started is still there (%v)", earlier, err)
	}
	defer os.RemoveAll(tmp)
	if _, err := os.Stat(tmp + "/left"); err != nil {
		t.Fatalf("control: the live server's isolated temp dir: %v", err)
	}
	pidfd, err := unix.PidfdOpen(pid, 0)
	if err != nil {
		t.Fatalf("pidfd of the command's process %d: %v", pid, err)
	}
	defer unix.Close(pidfd)
	defer syscall.Kill(pid, syscall.SIGKILL) // should be gone already
	if n, _ := unix.Poll([]unix.PollFd{{Fd: int32(pidfd), Events: unix.POLLIN}}, 0); n != 0 {
		t.Fatalf("control: the command's process ended while the server lived")
	}
	srv.Process.Kill()
	srv.Wait()
	// The reaper acts at once; a minute is the deadline for the event.
	if n, _ := unix.Poll([]unix.PollFd{{Fd: int32(pidfd), Events: unix.POLLIN}}, int(time.Minute.Milliseconds())); n != 1 {
		t.Fatalf("the command's process %d outlived its killed server by a minute", pid)
	}
	waitRemoved(t, dir, "the killed server's kill group")
	// Then its isolated temp dirs, with what its commands left there.
	waitRemoved(t, tmp, "the killed server's isolated temp dir")
}

// waitRemoved waits (a minute at most) until nothing is at path, which the
// reaper removes once it has acted.
func waitRemoved(t *testing.T, path, what string) {
	t.Helper()
	for i := 0; ; i++ {
		if _, err := os.Lstat(path); os.IsNotExist(err) {
			return
		}
		if i > 60000 {
			t.Fatalf("%s %s is still there", what, path)
		}
		time.Sleep(time.Millisecond) // polling the directory's removal
	}
}
