package sandbox

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"turnstile/domain"
)

// TestAttack206KilledServerSpareEnds: a server killed outright (SIGKILL)
// while it holds a spare leaves no parked root helper: the spare's plan
// channel closes with the server and it exits. The "server" is this test
// binary re-run (TestAttack206KilledServerChild), which runs one command
// with spares kept, prints the spare's pid and waits to be killed. The
// control is that the spare was there, parked, before the kill.
func TestAttack206KilledServerSpareEnds(t *testing.T) {
	requireKernel(t, true)
	ws := tempWorkspace(t)
	// /proc/self/exe: the binary's path may be gone by now (another
	// test's work in /tmp during a whole run; CI saw ENOENT).
	cmd := exec.Command("/proc/self/exe", "-test.run=^TestAttack206KilledServerChild$", "-test.count=1")
	cmd.Env = append(os.Environ(), "ATTACK206_CHILD_WS="+ws)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	sc := bufio.NewScanner(out)
	pid := 0
	for sc.Scan() {
		if p, ok := strings.CutPrefix(sc.Text(), "SPARE "); ok {
			pid, _ = strconv.Atoi(p)
			break
		}
	}
	if pid == 0 {
		t.Fatal("the child printed no spare")
	}
	if _, err := os.Stat("/proc/" + strconv.Itoa(pid)); err != nil {
		t.Fatalf("control: the spare %d is not running: %v", pid, err)
	}
	cmd.Process.Kill()
	cmd.Wait()
	// The killed child's kill group (a server's reaper removes it).
	if mnt, err := cgroup2Mount(); err == nil {
		if own, err := ownCgroup(); err == nil {
			defer killGroupsIn(mnt+own, func(name string) bool {
				return strings.HasPrefix(name, killGroupPrefix(cmd.Process.Pid))
			})
		}
	}
	for deadline := time.Now().Add(15 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
		if err != nil || strings.Contains(string(b), ") Z ") {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the spare %d outlived its killed server: %s", pid, b)
		}
	}
}

func TestAttack206KilledServerChild(t *testing.T) {
	ws := os.Getenv("ATTACK206_CHILD_WS")
	if ws == "" {
		t.Skip("run by TestAttack206KilledServerSpareEnds")
	}
	f := requireKernel(t, true)
	KeepSpareHelper(true)
	sh(t, snapshotFor(t, domain.ModeAutoAcceptEdits, ws, f.Kernel), "true")
	e := parkedSpare(t)
	fmt.Printf("SPARE %d\n", e.p.cmd.Process.Pid)
	time.Sleep(time.Minute)
}
