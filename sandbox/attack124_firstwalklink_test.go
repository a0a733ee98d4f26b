package sandbox

import (
	"os"
	"strings"
	"testing"
	"time"
)

// TestAttack124_GitLinkFirstWalkRefsRenamed (hundred-and-twenty-fourth
// review): on a root's first walk (every command of the `turnstile
// sandbox` CLI, the first after a server restart) gitLinks looks through a
// whole git dir only when its HEAD changed or the git dir was born during
// the command; elsewhere a link must be new itself, or lie below a
// directory that changed. The first command clones its own repository
// (sub, on a branch side), makes sub/.git/logs/HEAD a symlink to the
// person's ~/.bashrc and renames sub/.git/refs to refs.off: sub/.git is
// no git dir (for git or the walk), nothing is checked. The second
// command, a later second and a new process, only renames refs.off back:
// a git dir whose HEAD, birth, logs/ and logs/HEAD are all old. The link
// stays; the person's git checkout main in sub appends a reflog line to
// ~/.bashrc, outside every writable root.
//
// Control: the same two commands renaming HEAD instead of refs (the
// hundred-and-twenty-second review's fix catches a HEAD renamed back).
func TestAttack124_GitLinkFirstWalkRefsRenamed(t *testing.T) {
	for _, c := range []struct{ name, what string }{{"control", "HEAD"}, {"attack", "refs"}} {
		t.Run(c.name, func(t *testing.T) {
			ws, rc, s := attack122GitSetup(t)
			r := sh(t, s, attack122GitEnv+`git init -q -b main sub && cd sub && git commit -q --allow-empty -m x && git checkout -q -b side && `+
				`rm .git/logs/HEAD && ln -s `+rc+` .git/logs/HEAD && mv .git/`+c.what+` .git/`+c.what+`.off && echo MADE`)
			t.Logf("first: exit %d stdout %q stderr %q quarantined %v", r.ExitCode, r.Stdout, r.Stderr, quarantined(r))
			if !strings.Contains(string(r.Stdout), "MADE") {
				t.Fatalf("premise: %s", r.Stderr)
			}
			clockPast(t, ws+"/sub/.git/logs/HEAD")
			// A new process (the CLI's next command, a restarted server).
			plantMemos.Lock()
			plantMemos.m = map[string]*rootMemo{}
			plantMemos.Unlock()
			r = sh(t, s, `mv sub/.git/`+c.what+`.off sub/.git/`+c.what+` && echo PLANTED`)
			t.Logf("second: exit %d stdout %q stderr %q quarantined %v limits %v", r.ExitCode, r.Stdout, r.Stderr, quarantined(r), r.CheckLimits)
			if !strings.Contains(string(r.Stdout), "PLANTED") {
				t.Fatalf("premise: %s", r.Stderr)
			}
			if _, err := os.Stat(ws + "/sub/.git/HEAD"); err != nil {
				t.Skipf("sub/.git/HEAD is not there (quarantined): %v", err)
			}
			hostGit(t, ws+"/sub", "checkout", "-q", "main")
			b, _ := os.ReadFile(rc)
			if string(b) != attack122Bashrc {
				t.Errorf("%s: the person's git checkout in sub appended to %s (outside every writable root) through sub/.git/logs/HEAD, a symlink made before %s was renamed back: now %q", c.name, rc, c.what, b)
			}
		})
	}
}

// TestAttack124_GitLinkFirstWalkCommondirMade (hundred-and-twenty-fourth
// review): as TestAttack124_GitLinkFirstWalkRefsRenamed, with the git dir
// made one by a commondir the second command writes (HEAD with commondir
// is a git dir to git and to the walk). The first command clones its own
// repository (sub, on a branch side), copies its git dir to c, removes
// sub/.git's objects and refs (no git dir) and makes sub/.git/logs/HEAD a
// symlink to the person's ~/.bashrc. The second command, a later second
// and a new process, writes sub/.git/commondir naming c: the repository is
// judged (its commondir changed) and trusted, but gitLinks looks through
// the whole git dir only for a changed HEAD or a new git dir, and logs/
// and logs/HEAD are old: the link stays. The person's git checkout main in
// sub appends a reflog line (logs/HEAD is the git dir's own) to ~/.bashrc.
//
// Control: the same with the second command also making the link anew
// (removed).
func TestAttack124_GitLinkFirstWalkCommondirMade(t *testing.T) {
	for _, c := range []struct {
		name  string
		early bool
	}{{"control", false}, {"attack", true}} {
		t.Run(c.name, func(t *testing.T) {
			ws, rc, s := attack122GitSetup(t)
			link := `rm -f sub/.git/logs/HEAD && ln -s ` + rc + ` sub/.git/logs/HEAD`
			first, second := `true`, link
			if c.early {
				first, second = link, `true`
			}
			r := sh(t, s, attack122GitEnv+`git init -q -b main sub && (cd sub && git commit -q --allow-empty -m x && git checkout -q -b side) && `+
				`cp -r sub/.git c && rm -rf sub/.git/objects sub/.git/refs && `+first+` && echo MADE`)
			t.Logf("first: exit %d stdout %q stderr %q quarantined %v", r.ExitCode, r.Stdout, r.Stderr, quarantined(r))
			if !strings.Contains(string(r.Stdout), "MADE") {
				t.Fatalf("premise: %s", r.Stderr)
			}
			clockPast(t, ws+"/sub/.git/logs/HEAD")
			// A new process (the CLI's next command, a restarted server).
			plantMemos.Lock()
			plantMemos.m = map[string]*rootMemo{}
			plantMemos.Unlock()
			// Within the walk's TTL of the first command's view, as the
			// review ran it: a later walk would find sub/.git and hold its
			// commondir read-only (the premise fails under load).
			walkWithinTTL(ws)
			r = sh(t, s, second+` && echo ../../c > sub/.git/commondir && echo PLANTED`)
			t.Logf("second: exit %d stdout %q stderr %q quarantined %v limits %v", r.ExitCode, r.Stdout, r.Stderr, quarantined(r), r.CheckLimits)
			if !strings.Contains(string(r.Stdout), "PLANTED") {
				t.Fatalf("premise: %s", r.Stderr)
			}
			if _, err := os.Stat(ws + "/sub/.git/HEAD"); err != nil {
				t.Fatalf("premise: sub/.git/HEAD is not there (quarantined): %v", err)
			}
			hostGit(t, ws+"/sub", "checkout", "-q", "main")
			b, _ := os.ReadFile(rc)
			if string(b) != attack122Bashrc {
				t.Errorf("%s: the person's git checkout in sub appended to %s (outside every writable root) through sub/.git/logs/HEAD, a symlink made before the commondir that made sub/.git a git dir: now %q", c.name, rc, b)
			}
		})
	}
}

// walkWithinTTL marks the cached walk of root as made now, so that the next
// view over root reuses it, as a command within walkTTL of the last walk
// does: a test's two commands under load may be further apart.
func walkWithinTTL(root string) {
	walkCache.mu.Lock()
	defer walkCache.mu.Unlock()
	if r, ok := walkCache.m[root]; ok {
		r.made = time.Now()
		walkCache.m[root] = r
	}
}
