package tests

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestAttack174_FullAccessReadsTokenInOverlayUpperDir (review 174, medium:
// the agent reads the admin token on a host whose filesystem is an
// overlay, and answers its own request).
//
// A host (or a tree) whose root filesystem is an overlay keeps every file
// written on it in the overlay's upper directory, on another filesystem,
// which such hosts mount where root can see it (Ubuntu's overlayroot:
// /media/root-rw/overlay; live systems: /run/live/overlay; a Raspberry Pi
// overlay root: /media/root-rw). The server's data directory on the overlay
// (here DATA below an overlay mounted at base/merged) is masked by the
// full_access helper at every mount of the overlay's filesystem
// (aliasTargets compares devices); its files as the upper directory holds
// them, base/upper/data/token, are another filesystem's, and a full_access
// command reads the admin token there. README, the gateway's secrets row:
// "masked ... at every path their filesystem is mounted at".
//
// Controls: the runtime credential cannot answer its own request (403);
// the token at DATA/token is masked; a file beside DATA in the upper
// directory is read (the directory is reachable).
//
// Fix direction: locate each secret's backing files as well (for an
// overlay, the upper and lower directories its mount options name,
// /proc/self/mountinfo's super options) and mask them wherever their
// filesystems show them; or refuse a data directory on an overlay whose
// layers are mounted elsewhere.
func TestAttack174_FullAccessReadsTokenInOverlayUpperDir(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root (the overlay; full_access as root over the host's files)")
	}
	if os.Getenv("TURNSTILE_TOKEN") != "" {
		t.Skip("TURNSTILE_TOKEN is set: the server would take it")
	}
	base := t.TempDir()
	if err := os.Chmod(base, 0o755); err != nil {
		t.Fatal(err)
	}
	lower, upper, work, merged := filepath.Join(base, "lower"), filepath.Join(base, "upper"), filepath.Join(base, "work"), filepath.Join(base, "merged")
	for _, d := range []string{lower, upper, work, merged} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := syscall.Mount("overlay", merged, "overlay", 0, "lowerdir="+lower+",upperdir="+upper+",workdir="+work); err != nil {
		t.Skipf("overlay mount: %v", err)
	}
	t.Cleanup(func() { _ = syscall.Unmount(merged, syscall.MNT_DETACH) })
	const beside = "beside-the-data-a174\n"
	if err := os.WriteFile(filepath.Join(merged, "beside.txt"), []byte(beside), 0o644); err != nil {
		t.Fatal(err)
	}
	data := filepath.Join(merged, "data")
	if err := os.Mkdir(data, 0o700); err != nil {
		t.Fatal(err)
	}

	s := startServer(t, &Server{Data: data})
	token := strings.TrimSpace(s.Token)
	if b, err := os.ReadFile(filepath.Join(upper, "data", "token")); err != nil || strings.TrimSpace(string(b)) != token || len(token) < 16 {
		t.Fatalf("premise: the server's token is not in the upper directory: %q %v", b, err)
	}
	agent := roAs(s, s.credential("agent174o", "runtime"))

	agent.JSON("POST", "/v1/turns", map[string]any{"turn_id": "a174o-sup", "workspace_id": "ws", "thread_id": "th-sup",
		"workspace_root": workspace(t), "permission_profile": map[string]any{"mode": "supervised"}}, http.StatusCreated, nil)
	status, asked := agent.exec("a174o-sup", "", map[string]any{"tool_call_id": "want", "argv": []string{"/bin/true"}})
	if status != http.StatusAccepted || asked.Request == nil {
		t.Fatalf("premise: the supervised exec did not ask: %d %+v", status, asked)
	}
	reqID := asked.Request.RequestID
	// CONTROL: the runtime credential cannot answer it.
	if st, raw := agent.Request("POST", "/v1/approvals/"+reqID+"/respond", map[string]any{"resolution": "allow_for_turn"}); st != http.StatusForbidden {
		t.Fatalf("control: the runtime credential's answer: %d %s, want 403", st, raw)
	}

	root := workspace(t)
	agent.JSON("POST", "/v1/turns", map[string]any{"turn_id": "a174o-fa", "workspace_id": "ws", "thread_id": "th-fa",
		"workspace_root": root, "cwd": root, "permission_profile": map[string]any{"mode": "full_access"}}, http.StatusCreated, nil)
	run := func(id, script string) string {
		t.Helper()
		status, d := agent.exec("a174o-fa", "", map[string]any{"tool_call_id": id, "argv": []string{"/bin/sh", "-c", script}, "cwd": root})
		if status != http.StatusOK || !d.Ran || d.Result == nil {
			t.Fatalf("premise: the full_access command %s did not run: %d %+v", id, status, d)
		}
		t.Logf("%s: exit %d stdout %q stderr %q", id, d.Result.ExitCode, d.Result.Stdout, d.Result.Stderr)
		return d.Result.Stdout
	}
	// CONTROL: the token at DATA/token is masked.
	if out := run("own-path", "cat "+filepath.Join(data, "token")+" 2>&1"); strings.Contains(out, token) {
		t.Fatalf("control: the full_access command read %s", filepath.Join(data, "token"))
	}
	// CONTROL: the upper directory is reachable.
	if out := run("beside", "cat "+filepath.Join(upper, "beside.txt")); out != beside {
		t.Fatalf("control: the full_access command did not read %s: %q", filepath.Join(upper, "beside.txt"), out)
	}
	// ATTACK: the token as the upper directory holds it.
	stolen := strings.TrimSpace(run("upper", "cat "+filepath.Join(upper, "data", "token")+" 2>&1"))
	if stolen != token {
		return // masked: the fix
	}
	t.Errorf("a full_access command read the server's admin token at %s, the overlay's upper directory under DATA=%s", filepath.Join(upper, "data", "token"), data)
	st, raw := roAs(s, stolen).Request("POST", "/v1/approvals/"+reqID+"/respond", map[string]any{"resolution": "allow_for_turn"})
	t.Errorf("the agent answered its own request %s with the stolen token: %d %s", reqID, st, raw)
}
