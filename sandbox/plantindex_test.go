package sandbox

import (
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"turnstile/domain"
)

// indexRepo makes a workspace repository with README, .gitignore (".env")
// and config.env committed, and an untracked .env holding the person's key,
// under a profile that denies "**/*.env".
func indexRepo(t *testing.T) (ws string, s domain.TurnExecutionSecuritySnapshot) {
	t.Helper()
	requireRoot(t)
	requireKernel(t, true)
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	base := visibleWorkspace(t)
	ws = base + "/ws"
	mkfiles(t, base, map[string]string{"ws/README": "x\n", "ws/.gitignore": ".env\n", "ws/config.env": "MODE=dev\n"})
	attack6GitRepo(t, ws, "")
	hostGit(t, ws, "add", ".gitignore", "README", "config.env")
	hostGit(t, ws, "commit", "-q", "-m", "files")
	if err := os.WriteFile(ws+"/.env", []byte("KEY=persons-secret\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return ws, execProfileSnapshot(t, ws, map[string]domain.Access{"**/*.env": domain.AccessDeny})
}

const indexGitEnv = `export GIT_AUTHOR_NAME=a GIT_AUTHOR_EMAIL=a@x GIT_COMMITTER_NAME=a GIT_COMMITTER_EMAIL=a@x HOME=$PWD; `

// TestPlantedIndexEntryPutBack: an entry the command plants in the index
// at a denied path (.env, untracked) sets the index aside and puts back the
// one from before the command, so that the person's git commit -a neither
// copies .env into the object store nor, finding no index, commits every
// file as deleted; the command's own change to README stays in the work
// tree and is committed. The same for an entry at a denied path that did
// not exist yet ("new.env") and for a tracked denied file given other
// contents (config.env).
func TestPlantedIndexEntryPutBack(t *testing.T) {
	for name, plant := range map[string]string{
		"untracked": `git update-index --add --cacheinfo 100644,$e,.env`,
		"missing":   `git update-index --add --cacheinfo 100644,$e,sub/new.env`,
		"tracked":   `git update-index --cacheinfo 100644,$e,config.env`,
	} {
		t.Run(name, func(t *testing.T) {
			ws, s := indexRepo(t)
			before, err := os.Stat(ws + "/.git/index")
			if err != nil {
				t.Fatal(err)
			}
			r := sh(t, &s, indexGitEnv+`e=$(git hash-object -w /dev/null) && `+plant+` && echo y > README && echo PLANTED`)
			if !strings.Contains(string(r.Stdout), "PLANTED") {
				t.Fatalf("premise: %s", r.Stderr)
			}
			if q := quarantined(r); !slices.Contains(q, ws+"/.git/index") {
				t.Fatalf("the planted index was not set aside: %v", q)
			}
			files := hostGit(t, ws, "ls-files", "--stage")
			if strings.Contains(files, "e69de29bb2d1d6434b8b29ae775ad8c2e48c5391") { // the empty blob the command planted
				t.Fatalf("the index put back holds the plant: %s", files)
			}
			// With its time: git looks again at an entry recorded in the
			// index's own second (racily clean); an index put back with
			// a newer time would hide README's same-size change made in
			// that second.
			if after, err := os.Stat(ws + "/.git/index"); err != nil || !after.ModTime().Equal(before.ModTime()) {
				t.Fatalf("the index put back has another time: %v, was %v (%v)", after.ModTime(), before.ModTime(), err)
			}
			for _, f := range []string{"README", ".gitignore", "config.env"} {
				if !strings.Contains(files, f) {
					t.Fatalf("the index put back lost %s: %s", f, files)
				}
			}
			hostGit(t, ws, "commit", "-q", "-a", "-m", "wip")
			show := hostGit(t, ws, "show", "--stat", "--summary", "--format=", "HEAD")
			if !strings.Contains(show, "README") || strings.Contains(show, "delete mode") || strings.Contains(show, ".env ") {
				t.Fatalf("the person's commit -a: %s", show)
			}
		})
	}
}

// TestHonestIndexChangesKept: the controls. Under the same deny, a command
// that stages and commits README, or removes the tracked denied file from
// the index (git rm --cached config.env), keeps its index: no entry it left
// at a denied path is new or names other contents.
func TestHonestIndexChangesKept(t *testing.T) {
	for name, cmd := range map[string]string{
		"commit": `echo y > README && git add README && git commit -q -m edit && echo DONE`,
		"rm":     `git rm -q --cached config.env && echo DONE`,
		"stage":  `echo z > src.txt && git add src.txt && echo DONE`,
	} {
		t.Run(name, func(t *testing.T) {
			_, s := indexRepo(t)
			r := sh(t, &s, indexGitEnv+cmd)
			if !strings.Contains(string(r.Stdout), "DONE") {
				t.Fatalf("the command failed: %s", r.Stderr)
			}
			if q := quarantined(r); len(q) != 0 {
				t.Fatalf("an honest index change was set aside: %v", q)
			}
		})
	}
}

// TestIndexEntriesVersions reads the indexes git writes in versions 2, 3
// (an entry with extended flags: intent to add) and 4 (prefix-compressed
// paths), and refuses a truncated one.
func TestIndexEntriesVersions(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	ws := t.TempDir()
	attack6GitRepo(t, ws, "")
	mkfiles(t, ws, map[string]string{"a/long/dir/one.env": "1", "a/long/dir/two.env": "2", "b.txt": "3", "later.env": "4"})
	hostGit(t, ws, "add", "a", "b.txt")
	hostGit(t, ws, "add", "-N", "later.env")
	for _, v := range []string{"2", "3", "4"} {
		hostGit(t, ws, "update-index", "--index-version", v)
		b, err := os.ReadFile(ws + "/.git/index")
		if err != nil {
			t.Fatal(err)
		}
		got, _, err := indexEntries(b, 20, func(rel string) bool { return strings.HasSuffix(rel, ".env") })
		if err != nil {
			t.Fatalf("version %s: %v", v, err)
		}
		var names []string
		for n := range got {
			names = append(names, n)
		}
		slices.Sort(names)
		if want := []string{"a/long/dir/one.env", "a/long/dir/two.env", "later.env"}; !slices.Equal(names, want) {
			t.Fatalf("version %s: %q, want %q", v, names, want)
		}
		if _, _, err := indexEntries(b[:len(b)/2], 20, func(string) bool { return true }); err == nil {
			t.Fatalf("version %s: a truncated index was read", v)
		}
	}
}
