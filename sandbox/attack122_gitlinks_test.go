package sandbox

import (
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"turnstile/domain"
)

// attack122GitSetup: a workspace repository the person uses, a host file
// outside every writable root (the person's ~/.bashrc), and an
// auto_accept_edits snapshot (the .git stays writable).
func attack122GitSetup(t *testing.T) (ws, rc string, s *domain.TurnExecutionSecuritySnapshot) {
	t.Helper()
	requireRoot(t)
	f := requireKernel(t, true)
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	base := visibleWorkspace(t)
	ws, rc = base+"/ws", base+"/home/.bashrc"
	mkfiles(t, base, map[string]string{"ws/README": "x\n", "home/.bashrc": attack122Bashrc})
	attack6GitRepo(t, ws, "")
	return ws, rc, snapshotFor(t, domain.ModeAutoAcceptEdits, ws, f.Kernel)
}

const attack122Bashrc = "# the person's bashrc\n"

const attack122GitEnv = `export GIT_AUTHOR_NAME=a GIT_AUTHOR_EMAIL=a@x GIT_COMMITTER_NAME=a GIT_COMMITTER_EMAIL=a@x HOME=$PWD; `

// TestAttack122_GitLinkUnderObjectsName (hundred-and-twenty-second
// review): gitLinks skips every two-hex-digit directory whose parent is
// named "objects" anywhere in the git dir (path.Base(rel) == "objects"),
// meant for the object store's loose-object fan-out (.git/objects/ab).
// A branch named objects/ab/x puts its reflog at
// .git/logs/refs/heads/objects/ab/x, a file git appends to in place: the
// command checks that branch out, replaces its reflog with a symlink to
// the person's ~/.bashrc, and the check passes over the whole
// logs/refs/heads/objects/ab subtree. The person's next git commit appends
// a reflog line to ~/.bashrc, outside every writable root.
//
// Control: the same link at a branch whose name has no "objects/xx"
// component (.git/logs/refs/heads/feature/ab/x) is set aside, and the
// person's commit leaves ~/.bashrc alone.
func TestAttack122_GitLinkUnderObjectsName(t *testing.T) {
	for _, c := range []struct{ name, branch string }{
		{"control", "feature/ab/x"},
		{"attack", "objects/ab/x"},
	} {
		t.Run(c.name, func(t *testing.T) {
			ws, rc, s := attack122GitSetup(t)
			r := sh(t, s, attack122GitEnv+`git checkout -q -b `+c.branch+` && rm .git/logs/refs/heads/`+c.branch+
				` && ln -s `+rc+` .git/logs/refs/heads/`+c.branch+` && echo PLANTED`)
			t.Logf("plant: exit %d stdout %q stderr %q quarantined %v limits %v", r.ExitCode, r.Stdout, r.Stderr, quarantined(r), r.CheckLimits)
			if !strings.Contains(string(r.Stdout), "PLANTED") {
				t.Fatalf("premise: %s", r.Stderr)
			}
			// The person commits on the branch the command left checked out.
			hostGit(t, ws, "commit", "-q", "--allow-empty", "-m", "the person's commit")
			b, _ := os.ReadFile(rc)
			if string(b) != attack122Bashrc {
				t.Errorf("%s: the person's git commit appended to %s (outside every writable root) through .git/logs/refs/heads/%s, a symlink the command planted: now %q", c.name, rc, c.branch, b)
			}
		})
	}
}

// TestAttack122_GitLinkBudget (hundred-and-twenty-second review): the
// check for links in a git dir looks through at most maxGitLinkDirs (4096)
// directories and then only says so (a line of CheckLimits, in the
// command's own result). The command makes 4100 empty directories in a
// directory of .git that the listing returns before "logs" (ext4's hash
// order, which the command reads with ls -f), and makes .git/logs/HEAD a
// symlink to the person's ~/.bashrc: the budget is spent before logs is
// reached and the link stays. The person's next git checkout appends a
// reflog line (with the branch name the command chose) to ~/.bashrc.
//
// Control: the same link without the directories is set aside.
func TestAttack122_GitLinkBudget(t *testing.T) {
	for _, c := range []struct {
		name  string
		flood bool
	}{{"control", false}, {"attack", true}} {
		t.Run(c.name, func(t *testing.T) {
			ws, rc, s := attack122GitSetup(t)
			flood := `true`
			if c.flood {
				flood = `for n in e0 e1 e2 e3 e4 e5 e6 e7 e8 e9 f0 f1 f2 f3 f4 f5 f6 f7 f8 f9; do mkdir .git/$n; done; ` +
					`first=$(ls -f .git | grep -m1 -E '^([ef][0-9]|logs)$'); ` +
					`for n in e0 e1 e2 e3 e4 e5 e6 e7 e8 e9 f0 f1 f2 f3 f4 f5 f6 f7 f8 f9; do [ $n = "$first" ] || rmdir .git/$n; done; ` +
					`[ "$first" != logs ] && (cd .git/$first && seq 1 4100 | xargs mkdir)`
			}
			r := sh(t, s, attack122GitEnv+`git checkout -q -b side && `+flood+` && rm .git/logs/HEAD && ln -s `+rc+` .git/logs/HEAD && echo PLANTED`)
			t.Logf("plant: exit %d stdout %q stderr %q quarantined %v limits %v", r.ExitCode, r.Stdout, r.Stderr, quarantined(r), r.CheckLimits)
			if !strings.Contains(string(r.Stdout), "PLANTED") {
				t.Fatalf("premise: %s", r.Stderr)
			}
			if c.flood && slices.Contains(quarantined(r), ws+"/.git") {
				// (Since the fix: past the bound the repository is
				// quarantined whole, its HEAD set aside: the person's git
				// finds no repository there and writes nothing.)
				if _, err := os.Lstat(ws + "/.git/HEAD"); err == nil {
					t.Fatal("the repository was named quarantined, and its HEAD is still there")
				}
				hostGitRun(t, ws, "checkout", "-q", "main")
			} else {
				hostGit(t, ws, "checkout", "-q", "main")
			}
			b, _ := os.ReadFile(rc)
			if string(b) != attack122Bashrc {
				t.Errorf("%s: the person's git checkout appended to %s (outside every writable root) through .git/logs/HEAD, a symlink the command planted: now %q", c.name, rc, b)
			}
		})
	}
}

// TestAttack122_GitLinkOldInNewGitDir (hundred-and-twenty-second
// review): gitLinks sets aside a symbolic link in a git dir only when both
// its directory and the link itself changed since the command started, and
// it looks only in directories the walk recognises as git dirs (HEAD with
// objects and refs, or commondir). The first command clones its own
// repository (sub, checked out on a branch side), moves its .git out to g
// and renames g/HEAD to HEAD.x: g is no git dir, so its
// g/logs/HEAD -> ~/.bashrc is a link in the work tree, and stays. The second
// command, in a later second, only renames: g/HEAD.x back to g/HEAD and g to
// sub/.git. Now a git dir, but logs/ and logs/HEAD keep their change times
// from the first command: the link stays. The person's git checkout main in
// sub appends a reflog line ("checkout: moving from side to main", the
// branch name the command's choice) to ~/.bashrc, outside every writable
// root.
//
// Control: the same two commands where the second makes the link itself
// (rm g/logs/HEAD && ln -s ...) before the renames: set aside, and the
// person's checkout leaves ~/.bashrc alone.
func TestAttack122_GitLinkOldInNewGitDir(t *testing.T) {
	for _, c := range []struct {
		name  string
		early bool
	}{{"control", false}, {"attack", true}} {
		t.Run(c.name, func(t *testing.T) {
			ws, rc, s := attack122GitSetup(t)
			link := `rm g/logs/HEAD && ln -s ` + rc + ` g/logs/HEAD`
			first, second := `true`, link
			if c.early {
				first, second = link, `true`
			}
			r := sh(t, s, attack122GitEnv+`git init -q -b main sub && cd sub && git commit -q --allow-empty -m x && git checkout -q -b side && mv .git ../g && cd .. && mv g/HEAD g/HEAD.x && `+first+` && echo MADE`)
			t.Logf("first: exit %d stdout %q stderr %q quarantined %v", r.ExitCode, r.Stdout, r.Stderr, quarantined(r))
			if !strings.Contains(string(r.Stdout), "MADE") {
				t.Fatalf("premise: %s", r.Stderr)
			}
			clockPast(t, ws+"/g/logs/HEAD")
			r = sh(t, s, second+` && mv g/HEAD.x g/HEAD && mv g sub/.git && echo PLANTED`)
			t.Logf("second: exit %d stdout %q stderr %q quarantined %v limits %v", r.ExitCode, r.Stdout, r.Stderr, quarantined(r), r.CheckLimits)
			if !strings.Contains(string(r.Stdout), "PLANTED") {
				t.Fatalf("premise: %s", r.Stderr)
			}
			if _, err := os.Stat(ws + "/sub/.git/HEAD"); err != nil {
				t.Fatalf("premise: sub/.git is not there: %v", err)
			}
			// The person's git in the repository the command cloned.
			hostGit(t, ws+"/sub", "checkout", "-q", "main")
			b, _ := os.ReadFile(rc)
			if string(b) != attack122Bashrc {
				t.Errorf("%s: the person's git checkout in sub appended to %s (outside every writable root) through sub/.git/logs/HEAD, a symlink made before its directory became a git dir: now %q", c.name, rc, b)
			}
		})
	}
}

// TestAttack122_GitObjectFanoutSymlink (hundred-and-twenty-second
// review): gitLinks passes over every entry of objects/ named by two hex
// digits (the loose-object fan-out), whatever its type: a symbolic link
// there is never looked at. Git writes a new loose object by creating
// objects/ab/tmp_obj_XXXXXX and linking it to objects/ab/<rest>, following
// a link at objects/ab. The command packs the repository's loose objects
// (git repack -a -d) and makes each of the 256 fan-out names a symlink to a
// directory of the person's outside every writable root. The person's next
// git commit writes its tree and commit objects there (files the command
// names the directory of, outside its roots), and the repository's new
// commit is stored outside it.
//
// Control: the same repack without the links; the person's commit writes
// nothing in that directory.
func TestAttack122_GitObjectFanoutSymlink(t *testing.T) {
	for _, c := range []struct {
		name string
		link bool
	}{{"control", false}, {"attack", true}} {
		t.Run(c.name, func(t *testing.T) {
			ws, rc, s := attack122GitSetup(t)
			hostDir := strings.TrimSuffix(rc, "/.bashrc") + "/.config/autostart"
			if err := os.MkdirAll(hostDir, 0o755); err != nil {
				t.Fatal(err)
			}
			links := `true`
			if c.link {
				links = `for a in 0 1 2 3 4 5 6 7 8 9 a b c d e f; do for b in 0 1 2 3 4 5 6 7 8 9 a b c d e f; do ln -s ` + hostDir + ` .git/objects/$a$b; done; done`
			}
			r := sh(t, s, attack122GitEnv+`git repack -a -d -q && rm -rf .git/objects/[0-9a-f][0-9a-f] && `+links+` && echo PLANTED`)
			t.Logf("plant: exit %d stdout %q stderr %q quarantined %v limits %v", r.ExitCode, r.Stdout, r.Stderr, quarantined(r), r.CheckLimits)
			if !strings.Contains(string(r.Stdout), "PLANTED") {
				t.Fatalf("premise: %s", r.Stderr)
			}
			hostGit(t, ws, "commit", "-q", "--allow-empty", "-m", "the person's commit")
			ents, _ := os.ReadDir(hostDir)
			if len(ents) != 0 {
				var names []string
				for _, e := range ents {
					names = append(names, e.Name())
				}
				t.Errorf("%s: the person's git commit wrote %d files into %s (outside every writable root) through .git/objects/xx symlinks the command planted: %v", c.name, len(ents), hostDir, names)
			}
		})
	}
}

// TestAttack122_GitDirFifo (hundred-and-twenty-second review; low):
// gitLinks sets aside only symbolic links. A FIFO the command makes at a
// name git opens for writing in place (logs/HEAD, COMMIT_EDITMSG) stays:
// the person's next git commit, checkout or reset opens it (O_WRONLY) and
// blocks for ever, there being no reader. The test shows both halves
// without waiting: with a reader held open the person's git commit writes
// its reflog line into the FIFO (git does open it), and without one an
// open for writing finds no reader (ENXIO for O_NONBLOCK: a blocking open,
// git's, waits).
//
// Control: the same command making logs/HEAD a symlink is set aside.
func TestAttack122_GitDirFifo(t *testing.T) {
	for _, c := range []struct{ name, make string }{
		{"control", `ln -s /dev/null .git/logs/HEAD`},
		{"attack", `mkfifo .git/logs/HEAD`},
	} {
		t.Run(c.name, func(t *testing.T) {
			ws, _, s := attack122GitSetup(t)
			r := sh(t, s, `rm .git/logs/HEAD && `+c.make+` && echo PLANTED`)
			t.Logf("plant: exit %d stdout %q stderr %q quarantined %v", r.ExitCode, r.Stdout, r.Stderr, quarantined(r))
			if !strings.Contains(string(r.Stdout), "PLANTED") {
				t.Fatalf("premise: %s", r.Stderr)
			}
			p := ws + "/.git/logs/HEAD"
			var st unix.Stat_t
			if unix.Lstat(p, &st) != nil || st.Mode&unix.S_IFMT == unix.S_IFREG {
				return // set aside (or a plain file again): held
			}
			if st.Mode&unix.S_IFMT != unix.S_IFIFO {
				t.Errorf("%s: .git/logs/HEAD, made by the command, stayed as mode %o", c.name, st.Mode)
				return
			}
			rd, err := unix.Open(p, unix.O_RDONLY|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
			if err != nil {
				t.Fatal(err)
			}
			hostGit(t, ws, "commit", "-q", "--allow-empty", "-m", "the person's commit")
			buf := make([]byte, 4096)
			n, _ := unix.Read(rd, buf)
			unix.Close(rd)
			_, werr := unix.Open(p, unix.O_WRONLY|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
			t.Errorf("%s: .git/logs/HEAD is a FIFO the command made: the person's git wrote %q into it (with a reader), and without one an open for writing finds none (%v): the person's git blocks", c.name, buf[:max(n, 0)], werr)
		})
	}
}

// TestAttack122_GitLinkUntrustedSuffixName (hundred-and-twenty-second
// review): gitLinks passes over every name holding ".turnstile-untrusted"
// ("set aside already, or a name git never writes"), a directory's whole
// subtree included. A branch name may hold it: the branch
// x.turnstile-untrusted has its reflog at
// .git/logs/refs/heads/x.turnstile-untrusted, a file git appends to in
// place. The command checks that branch out and makes its reflog a symlink
// to the person's ~/.bashrc; the check passes over it, and the person's
// next git commit appends a reflog line to ~/.bashrc, outside every
// writable root. (The same with a branch x.turnstile-untrusted/y: the
// directory is passed over.)
//
// Control: the same with the branch named x-untrusted: set aside.
func TestAttack122_GitLinkUntrustedSuffixName(t *testing.T) {
	for _, c := range []struct{ name, branch string }{
		{"control", "x-untrusted"},
		{"attack", "x" + domain.UntrustedSuffix},
		{"attack_dir", "x" + domain.UntrustedSuffix + "/y"},
	} {
		t.Run(c.name, func(t *testing.T) {
			ws, rc, s := attack122GitSetup(t)
			r := sh(t, s, attack122GitEnv+`git checkout -q -b `+c.branch+` && rm .git/logs/refs/heads/`+c.branch+
				` && ln -s `+rc+` .git/logs/refs/heads/`+c.branch+` && echo PLANTED`)
			t.Logf("plant: exit %d stdout %q stderr %q quarantined %v", r.ExitCode, r.Stdout, r.Stderr, quarantined(r))
			if !strings.Contains(string(r.Stdout), "PLANTED") {
				t.Fatalf("premise: %s", r.Stderr)
			}
			hostGit(t, ws, "commit", "-q", "--allow-empty", "-m", "the person's commit")
			if b, _ := os.ReadFile(rc); string(b) != attack122Bashrc {
				t.Errorf("%s: the person's git commit appended to %s (outside every writable root) through .git/logs/refs/heads/%s, a symlink the command planted: now %q", c.name, rc, c.branch, b)
			}
		})
	}
}
