package tests

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestAttack53UnresolvedRootFollowsLink: a root that cannot be resolved
// when the turn starts (a symlink loop the agent made in its own
// workspace: ws/lnk -> lnk) gets no led_to, and without led_to the
// sandbox grants the root wherever it leads at each decision and spawn.
// The agent then points the link below a directory the profile's glob
// denies wherever it lies ("**/secrets" = deny), outside every root
// (vault/secrets/prod). Decisions: the project root's own rule (write),
// canonicalised where the link leads now, is more specific than the
// glob's match at vault/secrets (TestAttack52RelinkIntoGlobDeny's
// mechanism), so read_file and apply_patch of the secret are allowed.
// Kernel: the helper's view grants the root where it leads now (a write),
// and the spawn's glob mask scan (globmask.go) starts at the root's
// target and matches only the names below it, never the denied directory
// above it: nothing is masked, and a command reads and writes the secret.
//
// Why: engine.checkRoots (domain/engine/check.go) records RootLinks only
// for a root ResolveRoot can resolve; on an error it does `continue`
// when there are no allowed_roots ("judged as written"), so
// domain.BindRootLinks sets no LedTo on the entry, and sandbox addRule
// (canon.go) skips the led_to check for an empty LedTo, in the server's
// view and the helper's alike. The binding that closed the fifty-second
// review's re-pointed links (973ca8f; TestSwappedRootTakesNoGrant without
// allowed_roots) is opt-out for the agent, which only has to make the
// root unresolvable when the turn starts (ELOOP here; a path through a
// regular file, ENOTDIR, does as well).
//
// Controls: the secret is denied at the start; the workspace's own file
// is read; a turn whose project root resolves at the start (lnk2 -> app)
// and is then re-pointed at the same directory is denied there in
// decisions and in the kernel (led_to holds).
//
// Severity: high (the turn's file tools and its commands read and write
// what the profile denies).
func TestAttack53UnresolvedRootFollowsLink(t *testing.T) {
	t.Parallel()
	if os.Geteuid() != 0 {
		t.Skip("needs root for the kernel sandbox")
	}
	base := workspace(t)
	root := filepath.Join(base, "ws")
	const orig = "s3cret\n"
	// The secret lies outside every root, below a directory the
	// profile's glob denies wherever it is ("**/secrets").
	secret := filepath.Join(base, "vault", "secrets", "prod", "db.key")
	makeFiles(t, orig, secret, filepath.Join(root, "app", "db.key"))
	lnk, lnk2 := filepath.Join(root, "lnk"), filepath.Join(root, "lnk2")
	if err := os.Symlink("lnk", lnk); err != nil { // a loop: ELOOP at the start
		t.Fatal(err)
	}
	if err := os.Symlink("app", lnk2); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	profiles := filepath.Join(dir, "profiles.toml")
	if err := os.WriteFile(profiles, []byte(`
[permissions.dev]
extends = ":workspace"
[permissions.dev.filesystem]
"**/secrets" = "deny"
[permissions.dev.filesystem.":workspace_roots"]
"." = "write"
[permissions.dev.approvals]
policy = "full_access"
`), 0o600); err != nil {
		t.Fatal(err)
	}
	s := StartServer(t, "", "--profiles", profiles)
	runtime := roAs(s, roCreate(t, s, "agent", "runtime", "ws"))
	start := func(id string, projectRoots ...string) {
		body := map[string]any{"turn_id": id, "workspace_id": "ws", "thread_id": "th-" + id, "permission_profile": map[string]any{"profile": "dev"},
			"workspace_root": root, "cwd": root, "project_roots": projectRoots}
		if st, raw := runtime.Request("POST", "/v1/turns", body); st != http.StatusCreated {
			t.Fatalf("start %s: %d %s", id, st, raw)
		}
	}
	patch := func(file string) map[string]any {
		return map[string]any{"patch": "*** Begin Patch\n*** Update File: " + file + "\n@@\n-s3cret\n+attacker\n*** End Patch\n"}
	}
	exec := func(turnID, id, script string) string {
		st, raw := runtime.Request("POST", "/v1/turns/"+turnID+"/exec", map[string]any{"tool_call_id": id, "cwd": root, "timeout_ms": 20000,
			"argv": []string{"sh", "-c", script}})
		t.Logf("%s: %d %s", id, st, raw)
		return string(raw)
	}
	read := func(f string) string { b, _ := os.ReadFile(f); return string(b) }
	relink := func(l string) {
		if err := os.Remove(l); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink("../vault/secrets/prod", l); err != nil {
			t.Fatal(err)
		}
	}

	start("t", lnk)
	start("ok", lnk2)
	// Controls.
	if d := runtime.decide("t", "c0", "read_file", map[string]any{"path": secret}); d.Decision != "deny" {
		t.Fatalf("control: at the start the turn reads %s: %+v", secret, d)
	}
	if d := runtime.decide("t", "c1", "read_file", map[string]any{"path": filepath.Join(root, "app", "db.key")}); d.Decision != "allow" {
		t.Fatalf("control: the turn does not read its workspace: %+v", d)
	}
	relink(lnk2)
	if d := runtime.decide("ok", "c2", "read_file", map[string]any{"path": filepath.Join(lnk2, "db.key")}); d.Decision != "deny" {
		t.Fatalf("control: a root resolved at the start and re-pointed into the glob's deny reads it: %+v", d)
	}
	if out := exec("ok", "c3", "cat "+filepath.Join(lnk2, "db.key")); strings.Contains(out, "s3cret") || !strings.Contains(out, `"ran":true`) {
		t.Fatalf("control: a command of a bound root re-pointed into the glob's deny reads it")
	}

	// The attack: the loop becomes a link into the glob's deny.
	relink(lnk)
	for i, f := range []string{secret, filepath.Join(lnk, "db.key")} {
		if d := runtime.decide("t", "r"+string(rune('0'+i)), "read_file", map[string]any{"path": f}); d.Decision != "deny" {
			t.Errorf("a root unresolvable at the start, re-pointed into the glob's deny: the turn reads %s: %s %s", f, d.Decision, d.Reason)
		}
		if d := runtime.decide("t", "w"+string(rune('0'+i)), "apply_patch", patch(f)); d.Decision != "deny" {
			t.Errorf("a root unresolvable at the start, re-pointed into the glob's deny: the turn patches %s: %s %s", f, d.Decision, d.Reason)
		}
	}
	if out := exec("t", "x0", "cat "+filepath.Join(lnk, "db.key")+"; echo attacker > "+filepath.Join(lnk, "db.key")); strings.Contains(out, "s3cret") {
		t.Errorf("a root unresolvable at the start, re-pointed into the glob's deny: a command reads the secret")
	}
	if got := read(secret); got != orig {
		t.Errorf("a root unresolvable at the start, re-pointed into the glob's deny: a command wrote the secret: %q", got)
	}
}
