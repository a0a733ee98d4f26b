package tests

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestKilledCLITempDirSwept: `turnstile sandbox` killed outright (SIGKILL)
// while its command runs leaves the command's isolated temp dir, with what
// the command wrote there, in the host's temp dir; the next `turnstile
// sandbox` removes it (its name holds the killed process's pid: sandbox
// tmpsweep.go). Control: while the first runs, the directory is there and
// holds the command's file.
func TestKilledCLITempDirSwept(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root (the sandbox's idmapped root)")
	}
	base := workspace(t)
	ws, tmp := filepath.Join(base, "ws"), filepath.Join(base, "tmp")
	for _, d := range []string{ws, tmp} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	ready := filepath.Join(ws, "ready")
	if err := syscall.Mkfifo(ready, 0o666); err != nil {
		t.Fatal(err)
	}
	sandbox := func(script string) *exec.Cmd {
		cmd := exec.Command(bin, "sandbox", "--mode", "auto_accept_edits", "--root", ws, "--", "/bin/sh", "-c", script)
		cmd.Env = []string{"HOME=" + base, "PATH=/usr/bin:/bin", "TMPDIR=" + tmp}
		cmd.Dir = ws
		return cmd
	}
	first := sandbox(`echo data > "$TMPDIR/left" && echo "$TMPDIR" > ready; exec sleep 1000`)
	if err := first.Start(); err != nil {
		t.Fatal(err)
	}
	said, err := os.ReadFile(ready)
	if err != nil {
		t.Fatal(err)
	}
	leftDir := filepath.Join(tmp, filepath.Base(strings.TrimSpace(string(said))))
	if b, err := os.ReadFile(filepath.Join(leftDir, "left")); err != nil || string(b) != "data\n" {
		t.Fatalf("control: the running command's temp dir %s: %q %v", leftDir, b, err)
	}
	first.Process.Kill()
	first.Wait()
	if _, err := os.Stat(filepath.Join(leftDir, "left")); err != nil {
		t.Fatalf("premise: the killed process's temp dir is not left: %v", err)
	}
	if out, err := sandbox("true").CombinedOutput(); err != nil {
		t.Fatalf("the next command: %v %s", err, out)
	}
	if _, err := os.Lstat(leftDir); !os.IsNotExist(err) {
		ents, _ := os.ReadDir(tmp)
		t.Errorf("the killed `turnstile sandbox`'s temp dir %s is still there after the next run (%v; %d entries in TMPDIR)", leftDir, err, len(ents))
	}
}
