package tests

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestAttack111_UnrestrictedFilesNoNetworkReadsToken (hundred-and-eleventh
// review, high): a profile whose filesystem is exactly ":root" = "write"
// (Unrestricted) but whose network is not enabled (no network table:
// disabled) compiles to a snapshot with Filesystem.Unrestricted and
// Network.Mode "disabled". prepareSandbox takes the full_access path only
// when neither the filesystem nor the network needs confining; here the
// network does, so the command goes through the restricted helper with
// RestrictFilesystem false: helperFSRules builds the root view but skips
// mountPlan, and no mask is mounted over the snapshot's sensitive_path
// entries (the server's data directory and token). The command prints the
// admin token, which the README's last sandbox row ("the gateway's
// secrets, full_access included ... masked at every path") says it cannot.
//
// Control: the same command in a full_access turn (network enabled) finds
// the token masked.
func TestAttack111_UnrestrictedFilesNoNetworkReadsToken(t *testing.T) {
	dir := t.TempDir()
	profiles := filepath.Join(dir, "profiles.toml")
	if err := os.WriteFile(profiles, []byte(`
[permissions.opennonet]
[permissions.opennonet.filesystem]
":root" = "write"
[permissions.opennonet.approvals]
policy = "full_access"
`), 0o644); err != nil {
		t.Fatal(err)
	}
	data := filepath.Join(t.TempDir(), "data")
	s := StartServer(t, data, "--profiles", profiles)
	tokenFile := filepath.Join(data, "token")
	if b, err := os.ReadFile(tokenFile); err != nil || strings.TrimSpace(string(b)) != s.Token || s.Token == "" {
		t.Fatalf("premise: the admin token is not in %s (%v)", tokenFile, err)
	}
	agent := roAs(s, s.credential("agent", "runtime"))
	ws := workspace(t)
	run := func(id string, profile map[string]any) decisionAnswer {
		agent.JSON("POST", "/v1/turns", map[string]any{"turn_id": id, "workspace_id": "ws", "thread_id": "th-" + id,
			"workspace_root": ws, "cwd": ws, "permission_profile": profile}, http.StatusCreated, nil)
		var d decisionAnswer
		agent.JSON("POST", "/v1/turns/"+id+"/exec", map[string]any{"tool_call_id": "cat", "argv": []string{"/bin/cat", tokenFile}, "cwd": ws}, http.StatusOK, &d)
		if !d.Ran || d.Result == nil {
			t.Fatalf("premise: turn %s did not run the command: %+v", id, d)
		}
		return d
	}
	// Control: full_access masks the data directory.
	if d := run("fa", map[string]any{"mode": "full_access"}); strings.Contains(d.Result.Stdout, s.Token) {
		t.Fatalf("control: a full_access command printed the admin token")
	}
	d := run("nonet", map[string]any{"profile": "opennonet"})
	if strings.Contains(d.Result.Stdout, s.Token) {
		t.Errorf("a command of a profile with \":root\" = \"write\" and no network printed the server's admin token from %s (exit %d)", tokenFile, d.Result.ExitCode)
	}
}
