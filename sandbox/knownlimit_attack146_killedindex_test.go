//go:build knownlimits

package sandbox

import (
	"context"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"turnstile/domain"
)

// TestAttack146_KilledCommandIndexPlant (review 146, medium; the cause of
// tests' TestAttack146_KilledCLIToolSetting, with the secret-reading
// impact of review 120). A command whose process is killed outright (its
// `turnstile sandbox` SIGKILLed: review 143) leaves a pending marker; the
// next command over the root takes the killed one's start (RootLock.Since)
// and its check catches up on repositories (plantCheck.catchUp). But the
// index check (plantindex.go: setAsidePlantedIndexes) compares each held
// repository's index with the one *this* command recorded at its start
// (watchIndexes), and catchUp does not reach it: an entry the killed
// command planted at a denied path (git update-index --add --cacheinfo
// ...,.env) is already in that baseline, so nothing restores the index.
// The person's next `git commit -a` hashes the denied .env into the object
// store, and the next command reads it (git show HEAD:.env).
//
// The killed command is reproduced as what the next command sees of it:
// the roots' lock taken, its start marked (MarkStarted), the plant made,
// the lock released without Checked (tests' TestAttack146_KilledCLIToolSetting
// kills a real `turnstile sandbox`). Controls: the same plant made by a
// command whose check runs is undone (the person's commit leaves .env out);
// and in the killed case the next check does catch up on a repository the
// killed command made (set aside), so the marker was read.
func TestAttack146_KilledCommandIndexPlant(t *testing.T) {
	requireRoot(t)
	requireKernel(t, true)
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	const key = "STRIPE_KEY=sk_live_PERSONS_SECRET_146"
	setup := func(t *testing.T) (ws string, s domain.TurnExecutionSecuritySnapshot) {
		base := visibleWorkspace(t)
		ws = base + "/ws"
		mkfiles(t, base, map[string]string{"ws/README": "x\n", "ws/.gitignore": ".env\n"})
		attack6GitRepo(t, ws, "")
		hostGit(t, ws, "add", ".gitignore", "README")
		hostGit(t, ws, "commit", "-q", "-m", "files")
		if err := os.WriteFile(ws+"/.env", []byte(key+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		return ws, execProfileSnapshot(t, ws, map[string]domain.Access{"**/*.env": domain.AccessDeny})
	}
	gitEnv := `export GIT_AUTHOR_NAME=a GIT_AUTHOR_EMAIL=a@x GIT_COMMITTER_NAME=a GIT_COMMITTER_EMAIL=a@x HOME=$PWD; `
	plant := `e=$(git hash-object -w /dev/null) && git update-index --add --cacheinfo 100644,$e,.env && echo y > README`
	read := `cat .env; echo ---; git show HEAD:.env`
	afterwards := func(t *testing.T, ws string, s domain.TurnExecutionSecuritySnapshot) bool {
		t.Helper()
		t.Logf("the person's commit: %s", hostGit(t, ws, "commit", "-a", "-m", "wip"))
		r := sh(t, &s, gitEnv+read)
		before, after, _ := strings.Cut(string(r.Stdout), "---")
		if strings.Contains(before, key) {
			t.Fatalf("premise: .env itself was readable: %q", r.Stdout)
		}
		return strings.Contains(after, key)
	}

	t.Run("control-checked", func(t *testing.T) {
		ws, s := setup(t)
		r := sh(t, &s, gitEnv+plant+" && echo PLANTED")
		if !strings.Contains(string(r.Stdout), "PLANTED") {
			t.Fatalf("premise: %s", r.Stderr)
		}
		if afterwards(t, ws, s) {
			t.Errorf("control: with the command's own check, the person's commit copied .env into the object store")
		}
	})

	t.Run("killed", func(t *testing.T) {
		ws, s := setup(t)
		// The person's .env is older than the killed command (as it is
		// in a real project): its change time in an earlier tick of the
		// coarse clock the start is marked with. Made in the same tick,
		// the catch-up took it for the killed command's and set it aside,
		// and the test passed for that reason alone.
		time.Sleep(1100 * time.Millisecond)
		lock, err := lockRoots(context.Background(), []string{ws})
		if err != nil {
			t.Fatal(err)
		}
		lock.MarkStarted(coarseNow())
		cmd := exec.Command("/bin/sh", "-c", gitEnv+plant+" && git init -q evil && printf '[core]\\n\\tfsmonitor = true\\n' >> evil/.git/config")
		cmd.Dir = ws
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("the killed command's plant: %v %s", err, out)
		}
		lock.Release() // killed: no check, no Checked
		time.Sleep(1100 * time.Millisecond)
		r := sh(t, &s, "echo next")
		t.Logf("next: set aside %v", quarantined(r))
		if exists(ws + "/evil/.git/HEAD") {
			t.Fatalf("premise: the next command's check did not catch up on the killed command's repository (the marker was not read)")
		}
		if afterwards(t, ws, s) {
			t.Errorf("ESCAPED: the index entry a killed command planted at the denied .env survived the next command's catch-up check; the person's git commit -a copied .env into the object store and a command read it (git show HEAD:.env)")
		}
	})
}
