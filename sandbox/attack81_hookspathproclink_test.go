package sandbox

import (
	"os"
	"os/exec"
	"testing"
)

// TestAttack81HooksPathThroughAProcCwdLink (eighty-first review, high
// where the person's config names a hooks directory that does not exist
// yet: a program of the agent's runs in the person's next git commit):
// a path a held repository's config names relative to its work tree
// (core.hooksPath = tools/hooks) that is missing when a command starts is
// watched as its full path (exact), and after the command the server asks
// whether it exists by an Lstat that follows the way in the SERVER's
// process. The command makes the missing directory on the way a symlink
// to /proc/self/cwd/th, with th/hooks/pre-commit its own: the server,
// resolving /proc/self/cwd to its own working directory, finds no
// tools/hooks and leaves the link; the person's git runs its hooks with
// the work tree as its working directory, where the link leads to
// WS/th/hooks, and runs the agent's pre-commit. (The same judge decides
// the include files and other missing paths a config names, and the deny
// entries and credential stores: TestAttack81ProcCwdLinkOnTheWayToADeny.)
//
// Control: the hooks directory made plainly, or through a plain relative
// link (tools -> th), is set aside, and the person's commit runs nothing.
//
// Fix: judge a watched path's way without following symlinks (openat2
// RESOLVE_NO_SYMLINKS from the root, as setAsidePath does): a component
// the command made that is a symlink is set aside whether or not what it
// leads to exists in the server's view; and treat a process-relative
// link (domain.ProcessRelative, any procfs link) met on the way as made.
func TestAttack81HooksPathThroughAProcCwdLink(t *testing.T) {
	requireRoot(t)
	requireKernel(t, true)
	base := visibleWorkspace(t)
	for _, c := range []struct{ name, plant string }{
		{"control_plain_dir", `mkdir -p tools/hooks && H=tools/hooks`},
		{"control_plain_link", `mkdir -p th/hooks && ln -s th tools && H=th/hooks`},
		{"proc_cwd_link", `mkdir -p th/hooks && ln -s /proc/self/cwd/th tools && H=th/hooks`},
	} {
		t.Run(c.name, func(t *testing.T) {
			ws := base + "/" + c.name
			marker := base + "/ran-" + c.name
			if err := os.MkdirAll(ws, 0o755); err != nil {
				t.Fatal(err)
			}
			git := func(args ...string) {
				t.Helper()
				cmd := exec.Command("git", append([]string{"-C", ws, "-c", "user.name=p", "-c", "user.email=p@example.com"}, args...)...)
				if out, err := cmd.CombinedOutput(); err != nil {
					t.Fatalf("git %v: %v: %s", args, err, out)
				}
			}
			git("init", "-q")
			git("config", "core.hooksPath", "tools/hooks")
			s := execProfileSnapshot(t, ws, nil)
			r := sh(t, &s, c.plant+` && printf '#!/bin/sh\necho ran > `+marker+`\n' > $H/pre-commit && chmod +x $H/pre-commit && echo planted`)
			t.Logf("%s: exit %d, stdout %q, stderr %q, set aside %+v", c.name, r.ExitCode, r.Stdout, r.Stderr, r.Quarantined)
			if string(r.Stdout) != "planted\n" {
				t.Fatalf("premise: the command did not run (exit %d, stderr %q)", r.ExitCode, r.Stderr)
			}
			// The person's next commit, in the work tree.
			if err := os.WriteFile(ws+"/a.txt", []byte("a\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			git("add", "a.txt")
			git("commit", "-q", "-m", "person's commit")
			if exists(marker) {
				msg := "the person's git commit ran the agent's pre-commit hook, reached through tools/hooks"
				if c.name != "proc_cwd_link" {
					t.Fatalf("control (%s): %s", c.name, msg)
				}
				t.Errorf("%s: %s -> /proc/self/cwd/th, which the check after the command judged in the server's own working directory", c.name, msg)
			}
		})
	}
}
