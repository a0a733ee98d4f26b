package sandbox

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
)

// TestSweepDeadTmpDirs: the isolated temp dirs that a process killed
// outright left are removed, with what is in them, a link in them removed
// and not followed; everything else stays: the sweeping process's own, a
// living process's, another user's, a link named as one, the older names
// with no pid, another PID namespace's (a /tmp shared by containers),
// names that only look like one.
func TestSweepDeadTmpDirs(t *testing.T) {
	dir := t.TempDir()
	dead := exec.Command("/bin/true")
	if err := dead.Run(); err != nil {
		t.Fatal(err)
	}
	live := exec.Command("/bin/sleep", "600")
	if err := live.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { live.Process.Kill(); live.Wait() }()
	deadPid, livePid := dead.Process.Pid, live.Process.Pid
	if !processGone(deadPid) || processGone(livePid) {
		t.Fatalf("premise: pid %d gone %v, pid %d gone %v", deadPid, processGone(deadPid), livePid, processGone(livePid))
	}
	outside := filepath.Join(t.TempDir(), "outside")
	mustDo(t, os.MkdirAll(outside, 0o755))
	mustDo(t, os.WriteFile(outside+"/keep", []byte("k"), 0o600))

	mk := func(name string) string {
		p := filepath.Join(dir, name)
		mustDo(t, os.MkdirAll(p+"/sub/deeper", 0o700))
		mustDo(t, os.WriteFile(p+"/sub/deeper/f", []byte("x"), 0o600))
		return p
	}
	swept := mk(tmpDirPrefix(deadPid) + "123")
	mustDo(t, os.Symlink(outside, swept+"/sub/link"))
	kept := []string{
		mk(tmpDirPrefix(os.Getpid()) + "1"),
		mk(tmpDirPrefix(livePid) + "1"),
		mk("turnstile-tmp-123456"),                            // the older name: whose is unknown
		mk("turnstile-tmp-0" + strconv.Itoa(deadPid) + "-1"),  // not a pid as written
		mk("turnstile-tmp--" + strconv.Itoa(deadPid) + "-1"),  // no pid
		mk("turnstile-tmpx" + strconv.Itoa(deadPid) + "-1"),   // another prefix
		mk("other-" + tmpDirPrefix(deadPid) + "1"),            // another prefix
		mk("turnstile-tmp-" + strconv.Itoa(deadPid) + "-1-1"), // another PID namespace's
		mk("turnstile-tmp-" + strconv.Itoa(deadPid) + "-1"),   // no namespace
	}
	theirs := mk(tmpDirPrefix(deadPid) + "theirs")
	mustDo(t, os.Chown(theirs, 4242, 4242))
	link := filepath.Join(dir, tmpDirPrefix(deadPid)+"link")
	mustDo(t, os.Symlink(outside, link))
	kept = append(kept, theirs, link)

	n := sweepTmpDirs(dir, func(pid int) bool { return pid != os.Getpid() && processGone(pid) })
	if n != 1 {
		t.Errorf("swept %d directories, want 1", n)
	}
	if _, err := os.Lstat(swept); !os.IsNotExist(err) {
		t.Errorf("the dead process's temp dir is still there (%v)", err)
	}
	for _, p := range kept {
		if _, err := os.Lstat(p); err != nil {
			t.Errorf("%s was removed: %v", filepath.Base(p), err)
		}
	}
	if b, err := os.ReadFile(outside + "/keep"); err != nil || string(b) != "k" {
		t.Errorf("the directory a link led to lost its file: %q %v", b, err)
	}
}
