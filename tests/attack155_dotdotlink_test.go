package tests

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestAttack155_TrustedFileDotDotAfterLink (review 155, medium: the agent
// chooses the profiles, or the admin token, of the next start).
// checkOwners (cmd/turnstile/owners.go) runs filepath.Abs on the path
// before linkChain: Abs cleans it, so a ".." after a symlink is taken
// lexically ("/etc/ts/cfg/../profiles.toml" becomes "/etc/ts/profiles.toml",
// which does not exist and is skipped), while the loader opens the path as
// written and the kernel takes ".." from where the link led: into the
// other user's own directory. linkChain's kernel-like ".." handling never
// sees a "..". The same holds for a relative path from a cwd reached
// through a link (os.Getwd returns $PWD).
//
// The refusal expected: the path the kernel opens (the other user's
// file, in its directory) is checked and refused. Control: the same ".."
// form through a link that leads into root's directories starts.
func TestAttack155_TrustedFileDotDotAfterLink(t *testing.T) {
	_, top, _, serve := ownerRig(t, ">")
	mk := func(p string, uid int) {
		if err := os.MkdirAll(p, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Chown(p, uid, uid); err != nil {
			t.Fatal(err)
		}
	}
	profiles := "[permissions.dev]\nextends = \":read-only\"\n"
	etc := filepath.Join(top, "etc")
	mk(etc, 0)

	// CONTROL: etc/ts-root -> srv/real/sub (root's), and
	// "etc/ts-root/../profiles.toml" is srv/real/profiles.toml.
	real := filepath.Join(top, "srv", "real")
	mk(filepath.Join(real, "sub"), 0)
	if err := os.Chown(real, 0, 0); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(real, "profiles.toml"), []byte(profiles), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(real, "sub"), filepath.Join(etc, "ts-root")); err != nil {
		t.Fatal(err)
	}
	if out, started := serve("--profiles", filepath.Join(etc, "ts-root")+"/../profiles.toml"); !started {
		t.Fatalf("control: a '..' after a link into root's directories did not start the server:\n%s", out)
	}

	// ATTACK: etc/ts -> home/sub (a root link, in root's directory, to a
	// subdirectory of the other user's home); the file the kernel opens
	// for "etc/ts/../profiles.toml" is home/profiles.toml, the other
	// user's, in its directory.
	home := filepath.Join(top, "home")
	mk(filepath.Join(home, "sub"), agentUID)
	if err := os.Chown(home, agentUID, agentUID); err != nil {
		t.Fatal(err)
	}
	agentFile := filepath.Join(home, "profiles.toml")
	if err := os.WriteFile(agentFile, []byte(profiles), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(agentFile, agentUID, agentUID); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(home, "sub"), filepath.Join(etc, "ts")); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(etc, "ts") + "/../profiles.toml"
	// Premise: the kernel opens the other user's file by this path.
	var st1, st2 os.FileInfo
	var err error
	if st1, err = os.Stat(path); err != nil {
		t.Fatalf("premise: %s: %v", path, err)
	}
	if st2, err = os.Stat(agentFile); err != nil || !os.SameFile(st1, st2) {
		t.Fatalf("premise: %s is not %s", path, agentFile)
	}
	// The direct path is refused (the check works where it looks).
	if out, started := serve("--profiles", agentFile); started || !strings.Contains(out, "owned by uid 65534") {
		t.Fatalf("control: serve --profiles %s (the other user's file) was not refused:\n%s", agentFile, out)
	}
	out, started := serve("--profiles", path)
	if started || !strings.Contains(out, "owned by uid 65534") {
		t.Errorf("serve --profiles %s, which the kernel opens as %s (uid %d's file in its own directory): started %v\n%s",
			path, agentFile, agentUID, started, out)
	}
	// The same for the admin token.
	if err := os.WriteFile(filepath.Join(real, "admin.token"), []byte(token+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if out, started := serve("--token-file", filepath.Join(etc, "ts-root")+"/../admin.token"); !started {
		t.Fatalf("control: a token file by '..' after a link into root's directories did not start the server:\n%s", out)
	}
	agentTok := filepath.Join(home, "admin.token")
	if err := os.WriteFile(agentTok, []byte("agent-chosen-admin-token-000000\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(agentTok, agentUID, agentUID); err != nil {
		t.Fatal(err)
	}
	out, started = serve("--token-file", filepath.Join(etc, "ts")+"/../admin.token")
	if started || !strings.Contains(out, "owned by uid 65534") {
		t.Errorf("serve --token-file etc/ts/../admin.token, which the kernel opens as %s (uid %d's): started %v\n%s",
			agentTok, agentUID, started, out)
	}
}
