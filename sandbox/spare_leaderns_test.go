package sandbox

import (
	"os"
	"os/exec"
	"runtime"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// spareLeaderNS, set to 1, has the test binary's leader thread enter a
// mount namespace of its own ("/" private) before the tests start
// (TestSpareHelperWatchesTheTableItCopies).
const spareLeaderNS = "TURNSTILE_TEST_LEADER_OWN_MOUNTNS"

func init() {
	if os.Getenv(spareLeaderNS) != "1" {
		return
	}
	// In init, on the leader: locked here, the leader stays the main
	// goroutine's, and the runtime starts every other thread from one
	// that was started before the unshare (its template thread).
	runtime.LockOSThread()
	if err := unix.Unshare(unix.CLONE_NEWNS); err != nil {
		panic(err)
	}
	if err := unix.Mount("", "/", "", unix.MS_REC|unix.MS_PRIVATE, ""); err != nil {
		panic(err)
	}
}

// TestSpareLeaderInItsOwnMountNamespace is the premise of the re-run below
// (skipped elsewhere): the leader's mount table (/proc/self) is not the one
// the test's goroutines mount in.
func TestSpareLeaderInItsOwnMountNamespace(t *testing.T) {
	if os.Getenv(spareLeaderNS) != "1" {
		t.Skip("the premise of TestSpareHelperWatchesTheTableItCopies's re-run")
	}
	leader, err1 := os.Readlink("/proc/self/ns/mnt")
	mine, err2 := os.Readlink("/proc/thread-self/ns/mnt")
	if err1 != nil || err2 != nil || leader == mine {
		t.Fatalf("the leader's mount namespace %s, this thread's %s (%v %v)", leader, mine, err1, err2)
	}
}

// TestSpareHelperWatchesTheTableItCopies runs the spare's two mount tests
// again in a test binary whose leader thread is in a mount namespace of its
// own, as in CI's whole-package run (a test's locked thread that unshared
// and ended was the leader, which the runtime keeps): a spare's poll and
// its watcher look at the table the spare was copied from, its cloning
// thread's, not the leader's. With /proc/self/mountinfo both failed in CI
// (the spare given a command after a mount; the host's unmount not seen),
// and fail here.
func TestSpareHelperWatchesTheTableItCopies(t *testing.T) {
	requireKernel(t, true)
	if os.Getenv(spareLeaderNS) == "1" {
		t.Skip("the re-run itself")
	}
	tests := []string{"TestSpareLeaderInItsOwnMountNamespace", "TestSpareHelperNotGivenACommandAfterAMountChange", "TestSpareHelperEndedWhenTheHostUnmounts"}
	cmd := exec.Command("/proc/self/exe", "-test.run", "^("+strings.Join(tests, "|")+")$", "-test.v", "-test.count=1")
	cmd.Env = append(os.Environ(), spareLeaderNS+"=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("the re-run: %v\n%s", err, out)
	}
	for _, name := range tests {
		if !strings.Contains(string(out), "--- PASS: "+name+" ") {
			t.Fatalf("%s did not pass in the re-run:\n%s", name, out)
		}
	}
}
