package tests

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestAttack113_SlashRootSecondProcfs (hundred-and-thirteenth review, end
// to end): the fix for TestAttack111_SlashRootRunsAsKernelRoot makes the
// kernel's controls read-only for a command of a turn rooted at "/" (uid 0,
// no capabilities): the sysfs/cgroup/... mounts and the PID namespace's own
// /proc/sys. It leaves every other procfs mount as it is: a host with a
// second procfs (a chroot's /proc, a build root's) gives the command the
// host's procfs read-write there, and kernel.core_pattern through it (a
// program there runs as the real root at the next crash; sysrq-trigger and
// every host pid are there too). full_access covers every procfs mount with
// the namespace's own (mountOwnProc); the whole-tree view does not.
//
// The server runs in a private mount namespace of its own holding that
// second procfs (a wrapper: nothing on the host changes); the agent roots
// an auto_accept_edits turn at "/" and writes core_pattern's own value back
// through it.
//
// Controls: the same write through /proc/sys is refused in that turn; a
// turn rooted at an ordinary workspace and a full_access turn write
// neither.
func TestAttack113_SlashRootSecondProcfs(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("uid 0 is a root server's")
	}
	chroot, err := os.MkdirTemp("/var/tmp", "turnstile-chroot-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(chroot) })
	os.Chmod(chroot, 0o755)
	procDir := filepath.Join(chroot, "proc")
	if err := os.Mkdir(procDir, 0o555); err != nil {
		t.Fatal(err)
	}
	wrapper := filepath.Join(t.TempDir(), "turnstile-in-ns")
	if err := os.WriteFile(wrapper, []byte(`#!/bin/sh
exec unshare -m --propagation private -- /bin/sh -c 'mount -t proc proc "$1" && shift && exec "$@"' sh `+procDir+` `+bin+` "$@"
`), 0o755); err != nil {
		t.Fatal(err)
	}
	before, err := os.ReadFile("/proc/sys/kernel/core_pattern")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if after, _ := os.ReadFile("/proc/sys/kernel/core_pattern"); string(after) != string(before) {
			t.Errorf("core_pattern changed: %q -> %q", before, after)
		}
	})
	slashRootAlone(t)
	s := StartServerBin(t, wrapper, "")
	agent := roAs(s, s.credential("agent", "runtime"))
	write := func(p string) string {
		return `v=$(cat ` + p + `) && printf '%s\n' "$v" > ` + p
	}
	script := `id -u
test -r ` + procDir + `/sys/kernel/core_pattern && echo SECOND_PROCFS_VISIBLE
` + write(procDir+"/sys/kernel/core_pattern") + ` && echo SECOND_PROCFS_WRITTEN
` + write("/proc/sys/kernel/core_pattern") + ` && echo OWN_PROC_WRITTEN`
	run := func(id, root, mode string) string {
		agent.JSON("POST", "/v1/turns", map[string]any{"turn_id": id, "workspace_id": "ws", "thread_id": "th-" + id,
			"workspace_root": root, "cwd": root, "permission_profile": map[string]any{"mode": mode}}, http.StatusCreated, nil)
		call := map[string]any{"tool_call_id": "c", "argv": []string{"/bin/sh", "-c", script}, "cwd": root}
		var d decisionAnswer
		if mode != "full_access" {
			agent.JSON("POST", "/v1/turns/"+id+"/exec", call, http.StatusAccepted, &d)
			if d.Request == nil {
				t.Fatalf("premise: the shell command asked nobody: %+v", d)
			}
			s.respond(d.Request.RequestID, "allow_once")
		}
		agent.JSON("POST", "/v1/turns/"+id+"/exec", call, http.StatusOK, &d)
		if !d.Ran || d.Result == nil {
			t.Fatalf("premise: turn %s did not run the command: %+v", id, d)
		}
		t.Logf("turn %s (root %s, %s): stdout %q stderr %q", id, root, mode, d.Result.Stdout, d.Result.Stderr)
		return d.Result.Stdout
	}
	// Controls: an ordinary workspace, and full_access.
	if out := run("ws", workspace(t), "auto_accept_edits"); strings.Contains(out, "WRITTEN") {
		t.Fatalf("control: an ordinary workspace's command wrote a kernel control: %s", out)
	}
	if out := run("fa", workspace(t), "full_access"); strings.Contains(out, "WRITTEN") {
		t.Fatalf("control: a full_access command wrote a kernel control: %s", out)
	}
	out := run("slash", "/", "auto_accept_edits")
	if !strings.HasPrefix(out, "0\n") || strings.Contains(out, "OWN_PROC_WRITTEN") {
		t.Fatalf("premise/control: the / turn's command is not uid 0, or its own /proc/sys was writable: %s", out)
	}
	if strings.Contains(out, "SECOND_PROCFS_WRITTEN") {
		t.Errorf("an auto_accept_edits command of a turn rooted at / (uid 0) wrote the host's kernel.core_pattern through a second procfs mount at %s", procDir)
	}
}
