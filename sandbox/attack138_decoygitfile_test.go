package sandbox

import (
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"turnstile/domain"
)

// TestAttack138_DecoyGitFileWorkTree (hundred-and-thirty-eighth review):
// since review 137 a separate git dir's index (git init --separate-git-dir)
// is watched, its work tree found through "the held .git file or symlink
// that leads to" it (plantindex.go gitFileWorkTree): the first, in path
// order, of the held .git files whose gitdir: leads there. The command can
// add one that sorts before the workspace's own .git ('-' < '.'):
//
//  1. command 1 makes a separate git dir of its own, a/.repo.git, and
//     a/b/.git = "gitdir: ../.repo.git" (a second repository in the roots:
//     kept);
//  2. command 2, started in a later second and within walkTTL of command
//     1's spawn (its discovery reuses that walk, which did not meet
//     a/b/.git: not held), moves a/b to ./-decoy (or, deterministically,
//     in "deep-decoy-separate-processes": a/ seven levels down, deeper
//     than discovery's walk, and each command a `turnstile sandbox`
//     process of its own, which knows no earlier check's nested
//     repositories: not held either). The same relative
//     gitdir now leads to the workspace's own git dir, .repo.git; the
//     check's gitfile judges a .git file only when its own change time
//     is recent, and a rename of its directory leaves that alone: kept;
//  3. from the next command on, -decoy/.git is held, and the index watch
//     judges the real index's entries against -decoy/ as their work
//     tree: an entry "prod.key" planted by git update-index --cacheinfo
//     (reading nothing) is judged at -decoy/prod.key, which no rule
//     denies, while the person's git reads it at prod.key, denied. The
//     check keeps it; the person's git commit -a copies the real prod.key
//     into the object store; the command after reads it (git show
//     HEAD:prod.key).
//
// Control ("control"): the same plant without the decoy .git file is set
// aside, and prod.key stays out of the object store.
func TestAttack138_DecoyGitFileWorkTree(t *testing.T) {
	const key = "PROD_KEY=sk_live_PERSONS_SECRET_138D"
	for _, c := range []struct {
		name  string
		decoy bool
		deep  bool // each command a process of its own, the decoy deep
	}{{"control", false, false}, {"decoy-git-file", true, false}, {"deep-decoy-separate-processes", true, true}} {
		t.Run(c.name, func(t *testing.T) {
			requireRoot(t)
			requireKernel(t, true)
			if _, err := exec.LookPath("git"); err != nil {
				t.Skip("no git")
			}
			base := visibleWorkspace(t)
			ws := base + "/ws"
			mkfiles(t, base, map[string]string{"ws/README": "x\n"})
			hostGit(t, ws, "init", "-q", "--separate-git-dir", ws+"/.repo.git", ".")
			if b, err := os.ReadFile(ws + "/.git"); err != nil || !strings.HasPrefix(string(b), "gitdir: ") {
				t.Fatalf("premise: .git is not a gitfile: %q %v", b, err)
			}
			hostGit(t, ws, "add", "README")
			hostGit(t, ws, "commit", "-q", "-m", "files")
			if err := os.WriteFile(ws+"/prod.key", []byte(key+"\n"), 0o600); err != nil {
				t.Fatal(err)
			}
			s := execProfileSnapshot(t, ws, map[string]domain.Access{ws + "/prod.key": domain.AccessDeny})
			if r := sh(t, &s, `cat prod.key; echo ---`); strings.Contains(string(r.Stdout), key) {
				t.Fatalf("premise: prod.key is readable: %q", r.Stdout)
			}
			if c.decoy {
				// A .git file naming a git dir of its own beside it: a
				// separate git dir in the roots, kept.
				dir := "a"
				if c.deep {
					dir = "d1/d2/d3/d4/d5/d6/d7/a"
				}
				r := sh(t, &s, indexGitEnv+`git init -q --bare `+dir+`/.repo.git && mkdir `+dir+`/b && printf 'gitdir: ../.repo.git\n' > `+dir+`/b/.git && echo MADE`)
				if !strings.Contains(string(r.Stdout), "MADE") {
					t.Fatalf("premise: decoy: %q %q", r.Stdout, r.Stderr)
				}
				t.Logf("decoy command quarantined: %v", quarantined(r))
				if !exists(ws + "/" + dir + "/b/.git") {
					t.Fatalf("premise: %s/b/.git was set aside", dir)
				}
				clockPast(t, ws+"/"+dir+"/b/.git")
				if c.deep {
					// Deeper than discovery's walk (maxDiscoveryDepth), and
					// the next command a process of its own (`turnstile
					// sandbox`: no earlier check's memo, knownDotGits):
					// b/.git is not held, and its directory can move.
					newProcess()
				} else {
					// The next command starts in a later second than
					// a/b/.git was made, and within walkTTL of the first
					// command's spawn: its discovery is the first
					// command's walk, made before a/b/.git existed
					// (walk.go: "a repository created less than walkTTL
					// ago may be missed"), so a/b/.git is not held and its
					// directory can move.
					walkCache.mu.Lock()
					if w, ok := walkCache.m[ws]; ok {
						w.made = time.Now()
						walkCache.m[ws] = w
					} else {
						t.Fatalf("premise: no cached walk of %s", ws)
					}
					walkCache.mu.Unlock()
				}
				// Its directory moved up: the same relative gitdir now
				// leads to the workspace's own git dir.
				r = sh(t, &s, `mv `+dir+`/b ./-decoy && echo MOVED`)
				if !strings.Contains(string(r.Stdout), "MOVED") {
					t.Fatalf("premise: move: %q %q", r.Stdout, r.Stderr)
				}
				t.Logf("move command quarantined: %v", quarantined(r))
				if !exists(ws + "/-decoy/.git") {
					t.Fatalf("premise: -decoy/.git was set aside")
				}
			}
			if c.deep {
				newProcess()
			}
			forgetWalks()
			r := sh(t, &s, indexGitEnv+`e=$(git hash-object -w /dev/null) && git update-index --add --cacheinfo 100644,$e,prod.key && echo y > README && echo DONE`)
			if !strings.Contains(string(r.Stdout), "DONE") {
				t.Fatalf("premise: %q %q", r.Stdout, r.Stderr)
			}
			t.Logf("plant command quarantined: %+v", r.Quarantined)
			// The person's routine commit.
			os.WriteFile(ws+"/README", []byte("z\n"), 0o644)
			attack132Commit(t, ws)
			r = sh(t, &s, indexGitEnv+`cat prod.key; echo ---; git show HEAD:prod.key`)
			if before, _, _ := strings.Cut(string(r.Stdout), "---"); strings.Contains(before, key) {
				t.Fatalf("premise: prod.key itself was readable: %q", r.Stdout)
			}
			if strings.Contains(string(r.Stdout), key) {
				t.Errorf("the command read prod.key (denied) from the object store: a decoy .git file it made (-decoy/.git, gitdir: ../.repo.git) became the separate git dir's work tree for the index watch, which judged the planted entry at -decoy/prod.key and kept it; the person's git commit -a copied it: %q", r.Stdout)
			}
		})
	}
}

// newProcess forgets what this process remembers of earlier commands (the
// discovery walks, the checks' memos), as the next `turnstile sandbox`
// process, or a restarted server, starts without it.
func newProcess() {
	forgetWalks()
	plantMemos.Lock()
	plantMemos.m = map[string]*rootMemo{}
	plantMemos.Unlock()
}
