package tests

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestAttack129_ReadRootInsideLinkedConfigStore (medium): the same gap as
// TestAttack129_ReadRootAtLinkedSSHTarget, through a link on the way rather
// than at the store: a ~/.config that is a symlink (a dotfiles manager's
// layout, /home/USER/.config -> /srv/USER-dotfiles/config) puts the
// gcloud credential store (/home/*/.config/gcloud) at
// /srv/USER-dotfiles/config/gcloud. The kernel's mask is at that real
// path, dropInsideSensitive compares grants with the lexical match only
// (linkedMatches resolves the home, not what lies below it), and an app
// read root at .../gcloud/legacy_credentials is mounted over the mask.
//
// Controls (labelled): without the read root the credential is masked;
// read_file of it is denied in the attack turn.
func TestAttack129_ReadRootInsideLinkedConfigStore(t *testing.T) {
	home, err := os.MkdirTemp("/home", "a129cfg")
	if err != nil {
		t.Skip("cannot make a home under /home:", err)
	}
	t.Cleanup(func() { os.RemoveAll(home) })
	dots, err := os.MkdirTemp("/srv", "a129dots")
	if err != nil {
		t.Skip("cannot make a dir under /srv:", err)
	}
	t.Cleanup(func() { os.RemoveAll(dots) })
	cfgDir := filepath.Join(dots, "config")
	creds := filepath.Join(cfgDir, "gcloud", "legacy_credentials")
	if err := os.MkdirAll(creds, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(cfgDir, filepath.Join(home, ".config")); err != nil {
		t.Fatal(err)
	}
	target := filepath.Join(creds, "adc.json")
	if err := os.WriteFile(target, []byte(`{"refresh_token":"GCLOUD-REFRESH-a129"}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	profiles := filepath.Join(dir, "profiles.toml")
	if err := os.WriteFile(profiles, []byte(`
[permissions.sbx]
[permissions.sbx.filesystem]
":minimal" = "read"
":workspace_roots" = "write"
":app_read_roots" = "read"
[permissions.sbx.approvals]
policy = "full_access"
`), 0o644); err != nil {
		t.Fatal(err)
	}
	s := StartServer(t, "", "--profiles", profiles)
	agent := roAs(s, s.credential("agent", "runtime"))
	ws := workspace(t)
	start := func(id string, readRoots []string) {
		body := map[string]any{"turn_id": id, "workspace_id": "ws", "thread_id": "th-" + id, "workspace_root": ws, "cwd": ws,
			"permission_profile": map[string]any{"profile": "sbx"}}
		if readRoots != nil {
			body["app_read_roots"] = readRoots
		}
		agent.JSON("POST", "/v1/turns", body, http.StatusCreated, nil)
	}
	cat := func(id string) decisionAnswer {
		var d decisionAnswer
		agent.JSON("POST", "/v1/turns/"+id+"/exec", map[string]any{"tool_call_id": "cat", "argv": []string{"/bin/cat", target}, "cwd": ws}, http.StatusOK, &d)
		if !d.Ran || d.Result == nil {
			t.Fatalf("premise: turn %s did not run the command: %+v", id, d)
		}
		return d
	}
	// CONTROL: without the read root the credential is masked.
	start("a129cl-c", nil)
	if d := cat("a129cl-c"); strings.Contains(d.Result.Stdout, "GCLOUD-REFRESH") {
		t.Fatalf("control: the credential was readable without the read root: %+v", d.Result)
	}
	// ATTACK.
	start("a129cl", []string{creds})
	// CONTROL: read_file of the credential is denied in the same turn.
	if rf := agent.decide("a129cl", "rf", "read_file", map[string]any{"path": target}); rf.Decision != "deny" {
		t.Fatalf("control: read_file of the credential: %+v, want deny", rf)
	}
	d := cat("a129cl")
	t.Logf("cat %s: exit %d %q %q", target, d.Result.ExitCode, d.Result.Stdout, d.Result.Stderr)
	if strings.Contains(d.Result.Stdout, "GCLOUD-REFRESH") {
		t.Errorf("a turn the runtime credential started with app_read_roots [%s] (inside %s/.config/gcloud's real path, a sensitive credential store masked without the root) read %s in the sandbox without asking anyone (read_file of it is denied)", creds, home, target)
	}
}
