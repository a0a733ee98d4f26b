package tests

import (
	"os"
	"os/user"
	"path/filepath"
	"testing"
)

// TestAttack151_HomeDenyDroppedWithoutHOME (hundred-and-fifty-first
// review, medium: a profile's deny and the operator's locked required_deny
// are silently dropped). A "~/" key expands against the server's $HOME
// (loadCatalog: os.UserHomeDir); where it is not set — a systemd system
// service without User= (systemd sets HOME only for units with User=), a
// root cron or init script, `env -i` — expandKey answers "ignored: no home
// directory is known" and leaves the rule out, a warning in the snapshot.
// For a grant that is the safe way; for a deny it is the reverse: the
// profile's `"~/.ssh" = "none"` (the README's own example) and the
// constraints' `required_deny = ["~/.ssh"]`, which the README calls
// locked ("no rule of a profile reopens anything under them"), deny
// nothing, and a runtime's read of the home's secrets under a profile that
// reads `:root` is allowed. The server starts, and every turn runs, as if
// the operator had never written them.
//
// Expected: a deny (or required_deny) that cannot be placed refuses the
// server's start (or the turn), never drops silently. Control: the same
// server with HOME set (the server user's passwd home) denies both reads.
func TestAttack151_HomeDenyDroppedWithoutHOME(t *testing.T) {
	t.Parallel()
	u, err := user.Current()
	if err != nil || u.HomeDir == "" || u.HomeDir == "/" {
		t.Skipf("no usable passwd home for this user (%v)", err)
	}
	home := u.HomeDir
	secrets, err := os.MkdirTemp(home, ".a151-secrets-")
	if err != nil {
		t.Skipf("cannot make a directory in the home %s: %v", home, err)
	}
	t.Cleanup(func() { os.RemoveAll(secrets) })
	locked, err := os.MkdirTemp(home, ".a151-locked-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(locked) })
	for _, d := range []string{secrets, locked} {
		if err := os.WriteFile(filepath.Join(d, "id_ed25519"), []byte("-----BEGIN OPENSSH PRIVATE KEY-----\nsecret\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	cfg := t.TempDir()
	profiles := filepath.Join(cfg, "profiles.toml")
	if err := os.WriteFile(profiles, []byte(`
[permissions.reader]
extends = ":read-only"
[permissions.reader.filesystem]
":root" = "read"
"~/`+filepath.Base(secrets)+`" = "none"
`), 0o644); err != nil {
		t.Fatal(err)
	}
	constraints := filepath.Join(cfg, "constraints.toml")
	if err := os.WriteFile(constraints, []byte(`required_deny = ["~/`+filepath.Base(locked)+`"]`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ws := workspace(t)
	reads := func(label string, env []string) (secret, lockedRead decisionAnswer) {
		s := StartServerEnv(t, env, "--profiles", profiles, "--constraints", constraints)
		agent := roAs(s, s.credential("agent-"+label, "runtime"))
		id := "a151-home-" + label
		agent.JSON("POST", "/v1/turns", map[string]any{"turn_id": id, "workspace_id": "ws", "thread_id": "th-" + id,
			"workspace_root": ws, "cwd": ws, "permission_profile": map[string]any{"profile": "reader"}}, 201, nil)
		// Premise: the profile reads outside the root.
		if d := agent.decide(id, "hosts", "read_file", map[string]any{"path": "/etc/hostname"}); d.Decision != "allow" {
			t.Fatalf("%s: premise: a read of /etc/hostname under :root = read: %+v", label, d)
		}
		secret = agent.decide(id, "key", "read_file", map[string]any{"path": filepath.Join(secrets, "id_ed25519")})
		lockedRead = agent.decide(id, "locked", "read_file", map[string]any{"path": filepath.Join(locked, "id_ed25519")})
		return secret, lockedRead
	}

	// CONTROL: HOME set: both denies hold.
	if s, l := reads("home", []string{"HOME=" + home}); s.Decision != "deny" || l.Decision != "deny" {
		t.Fatalf("control: with HOME=%s the profile's deny gave %+v and the required_deny %+v", home, s, l)
	}

	// HOME not set (a system service without User=).
	s, l := reads("nohome", []string{"HOME="})
	if s.Decision != "deny" {
		t.Errorf("with no HOME, the profile's \"~/%s\" = \"none\" was dropped: a read of %s answered %s/%s",
			filepath.Base(secrets), filepath.Join(secrets, "id_ed25519"), s.Decision, s.Reason)
	}
	if l.Decision != "deny" {
		t.Errorf("with no HOME, the operator's locked required_deny \"~/%s\" was dropped: a read of %s answered %s/%s",
			filepath.Base(locked), filepath.Join(locked, "id_ed25519"), l.Decision, l.Reason)
	}
}

// TestAttack151_AllowedRootsHomeWithoutHOME: the same root cause for the
// operator's bound on roots. Constraints.allowedRoots expands "~" as
// home + the rest, home being "" when the server has no $HOME: `allowed_roots
// = ["~"]` (the agent may root its turns anywhere in the person's home)
// becomes CleanPath("") = "/", every directory of the machine, and "~/code"
// becomes "/code". A runtime credential then starts an auto_accept_edits turn
// rooted at any directory (its writes there allowed without a question),
// which the README's "Bound the roots too" says is refused.
//
// Control: with HOME set, the same turn rooted outside the home is a 400.
func TestAttack151_AllowedRootsHomeWithoutHOME(t *testing.T) {
	t.Parallel()
	u, err := user.Current()
	if err != nil || u.HomeDir == "" || u.HomeDir == "/" {
		t.Skipf("no usable passwd home for this user (%v)", err)
	}
	outside := workspace(t) // under the test's temp dir, not the home
	if rel, err := filepath.Rel(u.HomeDir, outside); err == nil && filepath.IsLocal(rel) {
		t.Skipf("the temp dir %s lies in the home %s", outside, u.HomeDir)
	}
	constraints := filepath.Join(t.TempDir(), "constraints.toml")
	if err := os.WriteFile(constraints, []byte(`allowed_roots = ["~"]`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	start := func(label string, env []string) int {
		s := StartServerEnv(t, env, "--constraints", constraints)
		agent := roAs(s, s.credential("agent-"+label, "runtime"))
		id := "a151-roots-" + label
		st, _ := agent.Do("POST", "/v1/turns", map[string]any{"turn_id": id, "workspace_id": "ws", "thread_id": "th-" + id,
			"workspace_root": outside, "cwd": outside, "permission_profile": map[string]any{"mode": "auto_accept_edits"}})
		return st
	}
	if st := start("home", []string{"HOME=" + u.HomeDir}); st != 400 {
		t.Fatalf("control: with HOME=%s, a turn rooted at %s outside allowed_roots [\"~\"] answered %d, want 400", u.HomeDir, outside, st)
	}
	if st := start("nohome", []string{"HOME="}); st != 400 {
		t.Errorf("with no HOME, allowed_roots [\"~\"] bound nothing: an auto_accept_edits turn rooted at %s (outside the home %s) answered %d, want 400",
			outside, u.HomeDir, st)
	}
}
