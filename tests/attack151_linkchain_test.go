package tests

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestAttack151_TrustedFileThroughLinkChain (hundred-and-fifty-first
// review, medium: the agent chooses the profiles of the next start).
// checkOwners (cmd/turnstile/owners.go) walks the path as written and
// the path EvalSymlinks gives, checking every directory of each. A link
// met in the middle of a chain of links is on neither walk: with
// /etc/ts -> ~agent/cfg -> /srv/real (a stow-style chain), the directory
// the middle link lies in (the Claude Code user's home) is never looked
// at, so the server starts, and that user re-points its own link
// ~agent/cfg at a directory of its own: at the next start the server
// loads the agent's profiles file (a "supervised" profile that is
// full_access underneath). The same walk guards the data directory, the
// token file and the Claude Code configuration.
//
// The refusal expected: a trusted file reached through a link that lies
// in a directory another user owns is refused, as a file there is.
// Control: the same chain with every link in root's directories starts.
func TestAttack151_TrustedFileThroughLinkChain(t *testing.T) {
	_, top, _, serve := ownerRig(t, ">")
	mk := func(p string, uid int) {
		if err := os.MkdirAll(p, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Chown(p, uid, uid); err != nil {
			t.Fatal(err)
		}
	}
	real := filepath.Join(top, "srv", "real")
	mk(real, 0)
	profiles := "[permissions.dev]\nextends = \":read-only\"\n"
	if err := os.WriteFile(filepath.Join(real, "profiles.toml"), []byte(profiles), 0o644); err != nil {
		t.Fatal(err)
	}
	etc := filepath.Join(top, "etc")
	mk(etc, 0)

	// CONTROL: /etc/ts-root -> /rootlinks/cfg -> /srv/real, every link in
	// a directory of root's: the server starts.
	rootLinks := filepath.Join(top, "rootlinks")
	mk(rootLinks, 0)
	if err := os.Symlink(real, filepath.Join(rootLinks, "cfg")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(rootLinks, "cfg"), filepath.Join(etc, "ts-root")); err != nil {
		t.Fatal(err)
	}
	if out, started := serve("--profiles", filepath.Join(etc, "ts-root", "profiles.toml")); !started {
		t.Fatalf("control: a chain of root's links did not start the server:\n%s", out)
	}

	// The chain's middle link lies in the other user's home.
	home := filepath.Join(top, "home")
	mk(home, agentUID)
	// The other user makes the link itself (it owns it, as stow would
	// make it for that user).
	ln := exec.Command("/bin/ln", "-s", real, filepath.Join(home, "cfg"))
	ln.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: agentUID, Gid: agentUID}}
	if out, err := ln.CombinedOutput(); err != nil {
		t.Fatalf("premise: uid %d cannot make a link in its home: %v %s", agentUID, err, out)
	}
	if err := os.Symlink(filepath.Join(home, "cfg"), filepath.Join(etc, "ts")); err != nil {
		t.Fatal(err)
	}
	// The other user can re-point it (premise: it controls what the
	// server reads next), tried on a copy so the chain stays as it is.
	try := exec.Command("/bin/sh", "-c", `ln -s /nowhere "$1/probe" && ln -sfn "$1" "$1/probe" && rm "$1/probe"`, "sh", home)
	try.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: agentUID, Gid: agentUID}}
	if out, err := try.CombinedOutput(); err != nil {
		t.Fatalf("premise: uid %d cannot re-point a link in its home: %v %s", agentUID, err, out)
	}
	out, started := serve("--profiles", filepath.Join(etc, "ts", "profiles.toml"))
	if started || !strings.Contains(out, "owned by uid 65534") {
		t.Errorf("serve --profiles through %s/cfg, a link uid %d owns (and re-points at will) in its own directory: started %v\n%s",
			home, agentUID, started, out)
	}
	// The same for a token file (the admin token of the next start).
	if err := os.WriteFile(filepath.Join(real, "admin.token"), []byte(token+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if out, started := serve("--token-file", filepath.Join(etc, "ts-root", "admin.token")); !started {
		t.Fatalf("control: a token file through root's links did not start the server:\n%s", out)
	}
	out, started = serve("--token-file", filepath.Join(etc, "ts", "admin.token"))
	if started || !strings.Contains(out, "owned by uid 65534") {
		t.Errorf("serve --token-file through %s/cfg, a link uid %d owns in its own directory: started %v\n%s",
			home, agentUID, started, out)
	}
}
