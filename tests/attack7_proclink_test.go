package tests

import (
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestAttack7ProcSelfIsTheServers (attack review 7, fixed): the decision
// endpoint judges the paths the runtime's own file tools will touch, but it
// resolves them in the server's process: the links /proc/self (and
// /proc/thread-self, /dev/fd, /dev/stdin…, a process's cwd, root and fd
// entries) name the server there, and the runtime's own process when its
// tool opens the same path. With the server started in the workspace, a
// write of /proc/self/cwd/a7-planted.txt was judged as
// <workspace>/a7-planted.txt and allowed without asking in
// auto_accept_edits, while the runtime's tool wrote a7-planted.txt in its
// own working directory, outside every root of the turn. Such a path is now
// refused (invalid_path), read or write, lexically or through a symlink.
//
// Controls: a write in the workspace is allowed; the runtime's working
// directory named by its real path is refused; /proc/cpuinfo and a
// process's status stay readable; /proc/self/environ stays sensitive_path.
func TestAttack7ProcSelfIsTheServers(t *testing.T) {
	t.Parallel()
	ws := workspace(t)
	wrapper := filepath.Join(t.TempDir(), "turnstile-in-ws")
	script := "#!/bin/sh\ncd '" + ws + "' || exit 1\nexec '" + bin + "' \"$@\"\n"
	if err := os.WriteFile(wrapper, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	s := StartServerBin(t, wrapper, "")
	runtime := roAs(s, roCreate(t, s, "agent", "runtime", "ws"))
	runtime.JSON("POST", "/v1/turns", map[string]any{"turn_id": "ps", "workspace_id": "ws", "thread_id": "th",
		"permission_profile": map[string]any{"mode": "auto_accept_edits"}, "workspace_root": ws}, http.StatusCreated, nil)
	// A symlink in the workspace that leads through /proc/self.
	if err := os.Symlink("/proc/self/cwd", filepath.Join(ws, "here")); err != nil {
		t.Fatal(err)
	}

	// The runtime is this process: where its /proc/self/cwd leads.
	mine, err := filepath.EvalSymlinks("/proc/self/cwd")
	if err != nil {
		t.Fatal(err)
	}
	if mine == ws || strings.HasPrefix(mine, ws+"/") {
		t.Skipf("the test runs inside the workspace %s", ws)
	}
	patch := func(p string) map[string]any {
		return map[string]any{"patch": "*** Begin Patch\n*** Add File: " + p + "\n+planted\n*** End Patch"}
	}
	// Controls: inside the workspace, allowed; the runtime's own directory,
	// named as it is, refused.
	if d := runtime.decide("ps", "in", "apply_patch", patch(filepath.Join(ws, "a7-planted.txt"))); d.Decision != "allow" {
		t.Fatalf("control: a write in the workspace: %+v", d)
	}
	if d := runtime.decide("ps", "out", "apply_patch", patch(filepath.Join(mine, "a7-planted.txt"))); d.Decision != "deny" {
		t.Fatalf("control: a write in %s, outside the turn's roots: %+v", mine, d)
	}
	// Controls: ordinary /proc reads stay allowed; a process environment
	// stays a sensitive path.
	for i, p := range []string{"/proc/cpuinfo", "/proc/" + strconv.Itoa(os.Getpid()) + "/status"} {
		if d := runtime.decide("ps", "r"+strconv.Itoa(i), "read_file", map[string]any{"path": p}); d.Decision != "allow" {
			t.Fatalf("control: a read of %s: %+v", p, d)
		}
	}
	if d := runtime.decide("ps", "env", "read_file", map[string]any{"path": "/proc/self/environ"}); d.Decision != "deny" || d.Refusal != "sensitive_path" {
		t.Fatalf("control: a read of /proc/self/environ: %+v", d)
	}

	d := runtime.decide("ps", "self", "apply_patch", patch("/proc/self/cwd/a7-planted.txt"))
	if d.Decision != "deny" || d.Refusal != "invalid_path" {
		t.Errorf("a write of /proc/self/cwd/a7-planted.txt: %s (%s, %s): judged as the server's cwd %s, while the runtime's tool opening it writes %s, outside the turn's roots",
			d.Decision, d.Reason, d.Refusal, ws, filepath.Join(mine, "a7-planted.txt"))
	}
	pid := strconv.Itoa(os.Getpid())
	for i, c := range []struct{ tool, path string }{
		{"apply_patch", "/proc/thread-self/cwd/a7-planted.txt"},
		{"apply_patch", "here/a7-planted.txt"},
		{"apply_patch", "/proc/" + pid + "/cwd/a7-planted.txt"},
		{"apply_patch", "/proc/" + pid + "/task/" + pid + "/root" + ws + "/a7-planted.txt"},
		{"read_file", "/proc/self/fd/0"},
		{"read_file", "/proc/self/cwd/a.txt"},
		{"read_file", "/dev/fd/0"},
		{"read_file", "/dev/stdin"},
		{"read_file", "here/a.txt"},
		{"read_file", "/proc/" + pid + "/fd/0"},
		{"read_file", "/proc/" + pid + "/root" + ws + "/a.txt"},
		{"grep_files", "/proc/self/cwd"},
	} {
		args := map[string]any{"path": c.path}
		if c.tool == "apply_patch" {
			args = patch(c.path)
		}
		d := runtime.decide("ps", "p"+strconv.Itoa(i), c.tool, args)
		if d.Decision != "deny" || d.Refusal != "invalid_path" {
			t.Errorf("%s %s: %s (%s, %s); want deny, invalid_path: the path means something else to the runtime's tool than to the server",
				c.tool, c.path, d.Decision, d.Reason, d.Refusal)
		}
	}

	// full_access judges paths only to keep the server's own data from the
	// turn: a path it cannot judge is refused there too; the rest is allowed.
	runtime.JSON("POST", "/v1/turns", map[string]any{"turn_id": "fa", "workspace_id": "ws", "thread_id": "th",
		"permission_profile": map[string]any{"mode": "full_access"}, "workspace_root": ws}, http.StatusCreated, nil)
	if d := runtime.decide("fa", "ok", "read_file", map[string]any{"path": "/proc/cpuinfo"}); d.Decision != "allow" {
		t.Fatalf("control: a full_access read of /proc/cpuinfo: %+v", d)
	}
	if d := runtime.decide("fa", "self", "read_file", map[string]any{"path": "/proc/self/cwd/a.txt"}); d.Decision != "deny" || d.Refusal != "invalid_path" {
		t.Errorf("a full_access read of /proc/self/cwd/a.txt: %s (%s, %s); want deny, invalid_path", d.Decision, d.Reason, d.Refusal)
	}
}
