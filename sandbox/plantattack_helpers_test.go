package sandbox

import (
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
)

// attackReport logs what the check said about r.
func attackReport(t *testing.T, what string, r *Result) {
	t.Helper()
	t.Logf("%s: exit=%d quarantined=%+v limits=%v stdout=%q stderr=%q", what, r.ExitCode, r.Quarantined, r.CheckLimits, r.Stdout, r.Stderr)
}

// attackHostStatus runs the host's git status in dir and fails when the
// marker exists afterwards (the host's git ran the agent's program).
func attackHostStatus(t *testing.T, f *plantFixture, dir string, args ...string) {
	t.Helper()
	if len(args) == 0 {
		args = []string{"status"}
	}
	out, err := hostGitRun(t, dir, args...)
	t.Logf("host git %v in %s: err=%v\n%s", args, dir, err, out)
	if _, err := os.Stat(f.marker); err == nil {
		b, _ := os.ReadFile(f.marker)
		t.Fatalf("ESCAPE: the host's git ran the agent's program (marker %s exists: %q)", f.marker, strings.TrimSpace(string(b)))
	}
}

// attackMarkerCmd is a shell command for git config values that records
// that it ran on the host.
func (f *plantFixture) attackMarkerCmd() string {
	return "touch " + f.marker
}

// asTestUser runs the tests matching run in a copy of this test binary as
// an ordinary user made for it (removed after), and fails unless they
// passed there.
func asTestUser(t *testing.T, run string) {
	t.Helper()
	uid, gid := unprivilegedUser(t)
	base := visibleWorkspace(t)
	exe, tmp := base+"/sandbox.test", base+"/tmp"
	data, err := os.ReadFile(testExe(t))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(exe, data, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(tmp, 0o700); err != nil {
		t.Fatal(err)
	}
	os.Chown(tmp, uid, gid)
	c := exec.Command(exe, "-test.run", run, "-test.v", "-test.count=1")
	c.Dir, c.Env = tmp, []string{"PATH=/usr/bin:/bin", "TMPDIR=" + tmp, "HOME=" + tmp, "CI=" + os.Getenv("CI")}
	c.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}}
	b, err := c.CombinedOutput()
	if err != nil || !strings.Contains(string(b), "--- PASS") || strings.Contains(string(b), "--- SKIP") {
		t.Fatalf("as user %d: %v\n%s", uid, err, b)
	}
	t.Logf("as user %d:\n%s", uid, b)
}
