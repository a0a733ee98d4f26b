package sandbox

import (
	"os"
	"testing"

	"turnstile/domain"
)

// TestAttack80SensitiveStoreUnderARootAboveTheHomes (eightieth review,
// low-medium: only where a writable root holds the homes, /home or above
// it): watchDenied expands a sensitive pattern (/home/*/.kube/config)
// only where the root's own components cover every wildcard (a root at
// /home/alice or below it); for a root above the wildcard (a profile
// writing /home, an admin's "fix the users' dotfiles" profile) the rest of
// the pattern still holds a "*", and the pattern is skipped whole. So a
// user's credential store missing when the command starts
// (/home/bob/.kube/config, .docker/config.json, .cargo/credentials.toml)
// is watched by nothing: the command makes it (a kubeconfig whose exec
// plugin runs on bob's next kubectl, a hard link that receives the token
// bob's next login writes there) and it stays — the seventy-eighth
// review's finding, fixed for a root that is a home, open for a root that
// holds them.
//
// Control: a literal deny entry under the same root (a path in the same
// home), made by the command, is set aside.
//
// Fix: expand a pattern below a root against what the root holds (the
// homes /home lists when the command starts, as buildFSView's
// sensitiveMatches already does for the carve-outs), and watch each
// match's store; a home made by the command itself is new and so is what
// is under it (set aside what a pattern matches after the command too).
func TestAttack80SensitiveStoreUnderARootAboveTheHomes(t *testing.T) {
	requireRoot(t)
	requireKernel(t, true)
	if fi, err := os.Stat("/home"); err != nil || !fi.IsDir() {
		t.Skip("no /home")
	}
	home, err := os.MkdirTemp("/home", "turnstile80-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(home) })
	os.Chmod(home, 0o755)
	ws := visibleWorkspace(t)
	s := execProfileSnapshot(t, ws, map[string]domain.Access{
		"/home":               domain.AccessWrite,
		home + "/.vault/prod": domain.AccessDeny,
	})
	if writeDecision(&s, home+"/.kube/config") == nil {
		t.Fatal("premise: write_file of the user's .kube/config allowed")
	}
	// Control: a literal deny in the home, made with a hard link planted
	// there, is set aside.
	r := sh(t, &s, `mkdir -p `+home+`/.vault/prod && echo planted > `+home+`/leak && ln `+home+`/leak `+home+`/.vault/prod/key; echo ok > `+home+`/ok`)
	if exists(home+"/.vault/prod/key") || readFile(t, home+"/ok") != "ok\n" {
		t.Fatalf("control: the denied path made stayed, or the home was not written (exit %d, stderr %q)", r.ExitCode, r.Stderr)
	}
	r = sh(t, &s, `mkdir -p `+home+`/.kube && printf 'apiVersion: v1\nusers:\n- name: u\n  user:\n    exec:\n      command: /bin/sh\n' > `+home+`/.kube/config && echo planted`)
	t.Logf("attack: exit %d, stdout %q, stderr %q, set aside %+v", r.ExitCode, r.Stdout, r.Stderr, r.Quarantined)
	if exists(home + "/.kube/config") {
		t.Errorf("the command created the sensitive %s/.kube/config under the writable root /home and it stayed", home)
	}
}
