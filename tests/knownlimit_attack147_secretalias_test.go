//go:build knownlimits

package tests

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestAttack147_DataDirThroughSecondMount (review 147, kept as a known
// limit: the README names it for commands of the restricted modes, "the
// gateway's data directory or token file too where a second mount of a
// directory above it lies in a root", and says a full_access decision
// judges the server's data "by path"; where the runtime's user can read
// the data directory, the admin token is read, or rewritten, by the
// runtime's own file tools). The server's data directory
// is a sensitive_path of every turn's snapshot and, in full_access, "judged
// by path" on the decision path; the kernel path masks it "at every path
// its filesystem is mounted at" (README, "What the sandbox guarantees":
// sandbox.locateSecrets reads mountinfo). The decision path only compares
// paths (sandbox.CheckFile over the snapshot's entries, resolved with
// symlinks but never through mounts): the same directory reached through
// a second mount (a bind mount of a directory above it, here inside the
// workspace; on a host, a bind-mounted home, a volume mounted twice) is
// judged as any other file, and a read_file (supervised and full_access)
// or apply_patch (full_access) of DATA/token is allowed. The runtime's
// file tools run outside the kernel sandbox, so the decision is all that
// holds them: the agent reads the admin token and answers its own
// requests (or writes a token of its choosing for the next start).
//
// Controls: the token at its own path is refused (sensitive_path) in both
// modes; a file beside the data directory read through the same mount is
// allowed (the mount works, the refusal is the data directory's); and a
// full_access command that cats the token through the mount does not get
// it (the kernel path masks it there).
func TestAttack147_DataDirThroughSecondMount(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root for the bind mount")
	}
	base := t.TempDir()
	base, _ = filepath.EvalSymlinks(base)
	data := filepath.Join(base, "data")
	if err := os.Mkdir(data, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(base, "beside.txt"), []byte("beside\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s := StartServer(t, data)
	token, err := os.ReadFile(filepath.Join(data, "token"))
	if err != nil {
		t.Fatalf("the server made no token in its data directory: %v", err)
	}
	rt := s.credential("agent147", "runtime")

	root := workspace(t)
	alias := filepath.Join(root, "mnt")
	if err := os.Mkdir(alias, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mount(base, alias, "", syscall.MS_BIND, ""); err != nil {
		t.Skipf("bind mount: %v", err)
	}
	t.Cleanup(func() { _ = syscall.Unmount(alias, syscall.MNT_DETACH) })
	if b, err := os.ReadFile(filepath.Join(alias, "data", "token")); err != nil || string(b) != string(token) {
		t.Fatalf("premise: the token through the mount: %q %v", b, err)
	}

	decide := func(turnID, callID, tool string, args any) decisionAnswer {
		t.Helper()
		status, raw := s.Request("POST", "/v1/turns/"+turnID+"/decisions",
			map[string]any{"tool_call_id": callID, "tool_name": tool, "arguments": args}, "Authorization", "Bearer "+rt)
		var out decisionAnswer
		if status != http.StatusOK || json.Unmarshal(raw, &out) != nil {
			t.Fatalf("decision %s: %d %s", callID, status, raw)
		}
		return out
	}
	start := func(id, mode string) {
		t.Helper()
		status, raw := s.Request("POST", "/v1/turns", map[string]any{"turn_id": id, "workspace_id": "ws", "workspace_root": root,
			"permission_profile": map[string]any{"mode": mode}}, "Authorization", "Bearer "+rt)
		if status != http.StatusCreated {
			t.Fatalf("start %s: %d %s", id, status, raw)
		}
	}
	patch := func(path string) map[string]any {
		return map[string]any{"patch": "*** Begin Patch\n*** Add File: " + path + "\n+tsk_planted\n*** End Patch\n"}
	}

	var failures []string
	for _, mode := range []string{"supervised", "full_access"} {
		id := "a147-" + mode
		start(id, mode)
		// Control: the data directory at its own path is the server's.
		if d := decide(id, "own-token", "read_file", map[string]any{"path": filepath.Join(data, "token")}); d.Decision != "deny" || d.Refusal != "sensitive_path" {
			t.Fatalf("%s control: read of %s/token: %+v, want deny sensitive_path", mode, data, d)
		}
		// Control: the mount is readable (a file beside the data directory).
		if d := decide(id, "beside", "read_file", map[string]any{"path": filepath.Join(alias, "beside.txt")}); d.Decision != "allow" {
			t.Fatalf("%s control: read of %s/beside.txt through the mount: %+v, want allow", mode, alias, d)
		}
		// The attack: the token through the second mount.
		if d := decide(id, "alias-token", "read_file", map[string]any{"path": filepath.Join(alias, "data", "token")}); d.Decision != "deny" {
			failures = append(failures, mode+": read_file "+filepath.Join(alias, "data", "token")+" (the admin token) is "+d.Decision+" ("+d.Reason+"), want deny")
		}
		if mode == "full_access" {
			if d := decide(id, "alias-write", "apply_patch", patch(filepath.Join(alias, "data", "token2"))); d.Decision != "deny" {
				failures = append(failures, mode+": apply_patch of "+filepath.Join(alias, "data", "token2")+" (a file in the data directory) is "+d.Decision+" ("+d.Reason+"), want deny")
			}
			// Control: the kernel path masks it there.
			status, raw := s.Request("POST", "/v1/turns/"+id+"/exec", map[string]any{"tool_call_id": "cat-alias",
				"argv": []string{"cat", filepath.Join(alias, "data", "token")}}, "Authorization", "Bearer "+rt)
			var run decisionAnswer
			if status != http.StatusOK || json.Unmarshal(raw, &run) != nil || !run.Ran || run.Result == nil {
				t.Fatalf("full_access exec: %d %s", status, raw)
			}
			if strings.Contains(run.Result.Stdout, strings.TrimSpace(string(token))) {
				t.Fatalf("control: the full_access command read the token through the mount (the kernel path should mask it): %+v", run.Result)
			}
		}
	}
	if len(failures) > 0 {
		t.Fatalf("the server's data directory reached through a second mount is not denied on the decision path:\n  %s", strings.Join(failures, "\n  "))
	}
}
