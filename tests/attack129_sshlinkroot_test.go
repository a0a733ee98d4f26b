package tests

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestAttack129_ReadRootAtLinkedSSHTarget (medium): the 125 fix drops a
// grant lying inside a sensitive path, but it compares the grant (by its
// real path) with the sensitive pattern's lexical matches (/home/USER/.ssh)
// and with the real paths of the homes only (linkedMatches resolves the
// elements up to the last wildcard). A ~/.ssh that is itself a symlink
// (/home/USER/.ssh -> /srv/USER-ssh, a dotfiles or encrypted-volume
// layout) is masked at its real path, and an app read root named inside
// that real path (/srv/USER-ssh/keys) is kept and mounted over the mask: the command reads the key.
//
// Controls (labelled): without the read root the key is masked;
// read_file of the key is denied in the attack turn; the same
// root named through the home's ~/.ssh (lexically inside the pattern) is
// dropped.
func TestAttack129_ReadRootAtLinkedSSHTarget(t *testing.T) {
	home, err := os.MkdirTemp("/home", "a129user")
	if err != nil {
		t.Skip("cannot make a home under /home:", err)
	}
	t.Cleanup(func() { os.RemoveAll(home) })
	real, err := os.MkdirTemp("/srv", "a129ssh")
	if err != nil {
		t.Skip("cannot make a dir under /srv:", err)
	}
	t.Cleanup(func() { os.RemoveAll(real) })
	if err := os.Symlink(real, filepath.Join(home, ".ssh")); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(real, "keys"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(real, "keys", "id_ed25519"), []byte("OPENSSH-PRIVATE-KEY-a129\n"), 0o644); err != nil {
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
	cat := func(id, target string) decisionAnswer {
		var d decisionAnswer
		agent.JSON("POST", "/v1/turns/"+id+"/exec", map[string]any{"tool_call_id": "cat", "argv": []string{"/bin/cat", target}, "cwd": ws}, http.StatusOK, &d)
		if !d.Ran || d.Result == nil {
			t.Fatalf("premise: turn %s did not run the command: %+v", id, d)
		}
		return d
	}
	target := filepath.Join(real, "keys", "id_ed25519")
	// CONTROL: without the read root the key is masked.
	start("a129sl-c", nil)
	if d := cat("a129sl-c", target); strings.Contains(d.Result.Stdout, "OPENSSH-PRIVATE-KEY") {
		t.Fatalf("control: the key was readable without the read root: %+v", d.Result)
	}
	// CONTROL: the root named through ~/.ssh is dropped.
	start("a129sl-c2", []string{filepath.Join(home, ".ssh", "keys")})
	if d := cat("a129sl-c2", filepath.Join(home, ".ssh", "keys", "id_ed25519")); strings.Contains(d.Result.Stdout, "OPENSSH-PRIVATE-KEY") {
		t.Fatalf("control: the key was readable with the root named through ~/.ssh: %+v", d.Result)
	}
	// ATTACK.
	start("a129sl", []string{filepath.Join(real, "keys")})
	// CONTROL: read_file of the key is denied in the same turn.
	if rf := agent.decide("a129sl", "rf", "read_file", map[string]any{"path": target}); rf.Decision != "deny" {
		t.Fatalf("control: read_file of the key: %+v, want deny", rf)
	}
	d := cat("a129sl", target)
	t.Logf("cat %s: exit %d %q %q", target, d.Result.ExitCode, d.Result.Stdout, d.Result.Stderr)
	if strings.Contains(d.Result.Stdout, "OPENSSH-PRIVATE-KEY") {
		t.Errorf("a turn the runtime credential started with app_read_roots [%s] (inside the real path of %s/.ssh, a sensitive credential store masked without the root) read %s in the sandbox without asking anyone (read_file of it is denied)", filepath.Join(real, "keys"), home, target)
	}
}
