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

// hostGit runs git on the host (outside any sandbox) in dir, with a
// private HOME so that no user configuration applies.
func hostGit(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-c", "init.defaultBranch=main", "-c", "user.name=t", "-c", "user.email=t@example.com",
		"-c", "protocol.file.allow=always"}, args...)...)
	cmd.Dir = dir
	cmd.Env = []string{"HOME=" + t.TempDir(), "PATH=/usr/bin:/bin", "GIT_CONFIG_NOSYSTEM=1"}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v in %s: %v\n%s", args, dir, err, out)
	}
	return string(out)
}

// mkfiles creates directories (names ending in "/") and files (with the
// given content) below base.
func mkfiles(t *testing.T, base string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(base, name)
		if strings.HasSuffix(name, "/") {
			if err := os.MkdirAll(p, 0o755); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// sandboxModes runs f with the namespace carve-outs and with the
// Landlock-only fallback (no namespace; narrower).
func sandboxModes(t *testing.T, f func(t *testing.T, useNS bool, shm func(s *domain.TurnExecutionSecuritySnapshot, script string) *Result)) {
	requireKernel(t, true)
	for _, useNS := range []bool{true, false} {
		name := map[bool]string{true: "namespace", false: "fallback"}[useNS]
		t.Run(name, func(t *testing.T) {
			f(t, useNS, func(s *domain.TurnExecutionSecuritySnapshot, script string) *Result {
				t.Helper()
				r, err := run(t, s, SpawnRequest{Argv: []string{"/bin/sh", "-c", script}}, func(p *Plan) { p.Sandbox.UserNamespaces = useNS })
				if err != nil {
					t.Fatalf("%q: %v (%+v)", script, err, r)
				}
				return r
			})
		})
	}
}

// refused checks that every script fails under s.
func refused(t *testing.T, shm func(*domain.TurnExecutionSecuritySnapshot, string) *Result, s *domain.TurnExecutionSecuritySnapshot, scripts ...string) {
	t.Helper()
	for _, script := range scripts {
		if r := shm(s, script); r.ExitCode == 0 {
			t.Errorf("%q succeeded: %s", script, r.Stdout)
		}
	}
}

// allowed checks that script succeeds under s.
func allowed(t *testing.T, shm func(*domain.TurnExecutionSecuritySnapshot, string) *Result, s *domain.TurnExecutionSecuritySnapshot, script string) {
	t.Helper()
	if r := shm(s, script); r.ExitCode != 0 {
		t.Errorf("control %q failed (%d): %s", script, r.ExitCode, r.Stderr)
	}
}

// TestProtectSeparateGitDirCannotBeMovedAside: the audit's escape. With the
// git dir at gitdirs/main inside the workspace (".git" is a pointer file),
// the command can neither rename gitdirs (nor gitdirs/main) to plant a
// fresh git dir with a core.fsmonitor command, nor rewrite the pointer, nor
// the config; the host's next git status runs nothing. Files next to them
// stay writable and renamable.
func TestProtectSeparateGitDirCannotBeMovedAside(t *testing.T) {
	sandboxModes(t, func(t *testing.T, useNS bool, shm func(*domain.TurnExecutionSecuritySnapshot, string) *Result) {
		base := tempWorkspace(t)
		ws := base + "/ws"
		mkfiles(t, ws, map[string]string{"src/main.go": "package main\n", "gitdirs/": ""})
		hostGit(t, ws, "init", "-q", "--separate-git-dir", ws+"/gitdirs/main", ".")
		marker := base + "/pwned"
		config := readFile(t, ws+"/gitdirs/main/config")
		s := snapshotFor(t, domain.ModeAutoAcceptEdits, ws, machine().Kernel)
		plant := "mkdir -p gitdirs/main && cp -r gitdirs.old/main/. gitdirs/main/ && printf '[core]\\n\\tfsmonitor = touch " + marker + "\\n' >> gitdirs/main/config"
		refused(t, shm, s,
			"mv gitdirs gitdirs.old && "+plant,
			"mv gitdirs/main gitdirs/main.old",
			"printf '[core]\\n\\tfsmonitor = touch "+marker+"\\n' >> gitdirs/main/config",
			"echo 'gitdir: /tmp' > .git",
			"mv .git .git.old",
			"echo evil > gitdirs/main/hooks/pre-commit",
		)
		if readFile(t, ws+"/gitdirs/main/config") != config || exists(ws+"/gitdirs.old") || !strings.HasPrefix(readFile(t, ws+"/.git"), "gitdir: ") {
			t.Fatal("the git dir or its pointer changed")
		}
		hostGit(t, ws, "status", "--short")
		if exists(marker) {
			t.Fatal("the host's git status ran the planted fsmonitor")
		}
		if useNS {
			allowed(t, shm, s, "echo x > gitdirs/notes && mv gitdirs/notes gitdirs/notes2 && echo y > top && mv top top2 && mv src src2 && mv src2 src")
		} else {
			allowed(t, shm, s, "echo x > src/a.go && mv src/a.go src/b.go")
		}
		// rm -rf removes the git dir's writable contents, not the dirs.
		refused(t, shm, s, "rm -rf gitdirs")
		if !exists(ws+"/gitdirs/main/config") || exists(marker) {
			t.Fatal("gitdirs/main was removed")
		}
	})
}

// TestProtectNestedRepository: a repository nested in the workspace (a
// project root below it) is found by discovery: its .git cannot be moved,
// replaced or reconfigured, and neither can the directories above it.
func TestProtectNestedRepository(t *testing.T) {
	sandboxModes(t, func(t *testing.T, useNS bool, shm func(*domain.TurnExecutionSecuritySnapshot, string) *Result) {
		ws := tempWorkspace(t)
		mkfiles(t, ws, map[string]string{"nested/proj/file.c": "int x;\n", "nested/other/": ""})
		hostGit(t, ws+"/nested/proj", "init", "-q")
		config := readFile(t, ws+"/nested/proj/.git/config")
		s := snapshotFor(t, domain.ModeAutoAcceptEdits, ws, machine().Kernel)
		refused(t, shm, s,
			"mv nested nested.old && mkdir -p nested/proj/.git",
			"mv nested/proj nested/proj.old",
			"mv nested/proj/.git nested/proj/git.old",
			"rm -rf nested/proj/.git",
			"echo '[core] fsmonitor = evil' >> nested/proj/.git/config",
			"echo evil > nested/proj/.git/hooks/post-checkout",
		)
		if readFile(t, ws+"/nested/proj/.git/config") != config || exists(ws+"/nested.old") || exists(ws+"/nested/proj/.git/hooks/post-checkout") {
			t.Fatal("the nested repository changed")
		}
		// The git dir's contents stay writable (rm -rf above removed what
		// is not a mount point: objects, refs, HEAD).
		allowed(t, shm, s, "echo y > nested/proj/file.c")
		if useNS {
			// The fallback cannot create entries in the directories on the
			// way to a protected path, .git included (documented).
			allowed(t, shm, s, "echo o > nested/proj/.git/probe && mv nested/proj/file.c nested/proj/file2.c && mv nested/other nested/other2")
		}
	})
}

// TestProtectSubmodulePointer: a submodule's "sub/.git" pointer file cannot
// be rewritten (to point at a copy with a hostile config), removed or moved
// with its directory, and the submodule's git dir under .git/modules keeps
// its config and hooks read-only.
func TestProtectSubmodulePointer(t *testing.T) {
	sandboxModes(t, func(t *testing.T, useNS bool, shm func(*domain.TurnExecutionSecuritySnapshot, string) *Result) {
		ws := tempWorkspace(t)
		hostGit(t, ws, "init", "-q")
		mkfiles(t, ws, map[string]string{"sub/lib.c": "int y;\n", ".gitmodules": "[submodule \"sub\"]\n\tpath = sub\n\turl = ./sub\n", ".git/modules/": ""})
		hostGit(t, ws+"/sub", "init", "-q", "--separate-git-dir", ws+"/.git/modules/sub", ".")
		pointer := readFile(t, ws+"/sub/.git")
		s := snapshotFor(t, domain.ModeAutoAcceptEdits, ws, machine().Kernel)
		refused(t, shm, s,
			"cp -r .git/modules/sub /tmp/evil-sub && echo 'gitdir: /tmp/evil-sub' > sub/.git",
			"rm -f sub/.git",
			"mv sub sub.old",
			"echo '[core] fsmonitor = evil' >> .git/modules/sub/config",
			"echo evil > .git/modules/sub/hooks/post-merge",
			"mv .git/modules/sub .git/modules/sub.old",
		)
		if readFile(t, ws+"/sub/.git") != pointer || exists(ws+"/sub.old") || exists(ws+"/.git/modules/sub.old") {
			t.Fatal("the submodule pointer or its git dir changed")
		}
		allowed(t, shm, s, "echo z > sub/lib.c && echo o > .git/modules/sub/objects/probe")
		if useNS {
			allowed(t, shm, s, "mv sub/lib.c sub/lib2.c && echo o > .git/modules/sub/probe")
		}
	})
}

// TestProtectReservedNamesCannotBeCreated: without a .git, .codex or
// .agents in the workspace root or the cwd, the command cannot create them
// (git init included); other names can be created, and the held names are
// gone again after the command.
func TestProtectReservedNamesCannotBeCreated(t *testing.T) {
	sandboxModes(t, func(t *testing.T, useNS bool, shm func(*domain.TurnExecutionSecuritySnapshot, string) *Result) {
		ws := tempWorkspace(t)
		mkfiles(t, ws, map[string]string{"sub/dir/": ""})
		s := snapshotAt(t, domain.ModeAutoAcceptEdits, ws, ws+"/sub")
		refused(t, shm, s,
			"mkdir .git", "git init -q .", "mkdir .codex", "mkdir .agents", "touch .agents/x", "rmdir .git && mkdir .git/hooks",
			"mkdir "+ws+"/.git", "git init -q "+ws, "mkdir "+ws+"/.codex", "echo x > "+ws+"/.agents/config.toml",
			"rmdir "+ws+"/.git && touch "+ws+"/.git", "mv "+ws+"/sub "+ws+"/sub2",
		)
		for _, p := range []string{ws + "/.git", ws + "/.codex", ws + "/.agents", ws + "/sub/.git", ws + "/sub/.codex", ws + "/sub/.agents"} {
			if exists(p) {
				t.Errorf("%s exists after the commands", p)
			}
		}
		allowed(t, shm, s, "mkdir dir/other && echo x > dir/other/f && mkdir dir/.git")
		if useNS {
			allowed(t, shm, s, "mkdir other && mkdir .cache && mkdir "+ws+"/.other && echo x > "+ws+"/new")
		}
	})
}

// TestProtectWorkspaceParentChain: a workspace nested in a writable project
// root cannot be carried away by renaming a directory above it inside that
// root; a sibling directory can be renamed.
func TestProtectWorkspaceParentChain(t *testing.T) {
	sandboxModes(t, func(t *testing.T, useNS bool, shm func(*domain.TurnExecutionSecuritySnapshot, string) *Result) {
		proj := tempWorkspace(t)
		ws := proj + "/a/b/ws"
		mkfiles(t, proj, map[string]string{"a/b/ws/f": "x", "a/sib/": "", "c/": ""})
		hostGit(t, ws, "init", "-q")
		sn, err := domain.ResolveSnapshot(domain.SnapshotInputs{
			Profile: domain.ResolveProfile(&domain.ProfileRequest{Mode: domain.ModeAutoAcceptEdits}, domain.SourceComposer),
			Cwd:     ws, WorkspaceRoot: ws, ProjectRoots: []string{proj}, Kernel: machine().Kernel,
		})
		if err != nil {
			t.Fatal(err)
		}
		refused(t, shm, &sn, "mv "+proj+"/a "+proj+"/a.old", "mv "+proj+"/a/b "+proj+"/a/b.old", "mv "+ws+" "+proj+"/a/b/ws.old", "rm -rf "+proj+"/a")
		// rm -rf removes what is not pinned (files); the directories stay.
		for _, p := range []string{proj + "/a.old", proj + "/a/b.old", proj + "/a/b/ws.old"} {
			if exists(p) {
				t.Errorf("%s exists: the workspace moved", p)
			}
		}
		if !exists(ws + "/.git/config") {
			t.Fatal("the workspace's git dir moved")
		}
		if useNS {
			allowed(t, shm, &sn, "mkdir "+proj+"/a/sib && mv "+proj+"/a/sib "+proj+"/a/sib2 && mv "+proj+"/c "+proj+"/c2")
		} else {
			allowed(t, shm, &sn, "echo y > "+ws+"/f")
		}
	})
}

// TestProtectHeldNameOutlivesAnotherCommand: two commands of the same
// process hold the same missing name. The first (which created the hold)
// ends while the second still runs: the name stays held, and the second can
// still not create it; it is released when both have ended.
func TestProtectHeldNameOutlivesAnotherCommand(t *testing.T) {
	requireKernel(t, true)
	ws := tempWorkspace(t)
	s := snapshotFor(t, domain.ModeAutoAcceptEdits, ws, machine().Kernel)
	type out struct {
		r   *Result
		err error
	}
	waitReady := func(ready string, done chan out) {
		// The deadline is a hang guard, not a timing assertion.
		for deadline := time.Now().Add(30 * time.Second); !exists(ws + "/" + ready); {
			select {
			case o := <-done:
				t.Fatalf("%s ended early: %+v %v", ready, o.r, o.err)
			case <-time.After(2 * time.Millisecond):
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s never started", ready)
			}
		}
	}
	start := func(script, ready string, wait bool) (*os.File, chan out) {
		pr, pw, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { pr.Close(); pw.Close() })
		done := make(chan out, 1)
		go func() {
			r, err := run(t, s, SpawnRequest{Argv: []string{"/bin/sh", "-c", "touch " + ready + "; read x; " + script}, Stdin: pr}, nil)
			done <- out{r, err}
		}()
		if wait {
			waitReady(ready, done)
		}
		return pw, done
	}
	firstIn, first := start("true", "first-ready", true)
	if !exists(ws + "/.codex") {
		t.Fatal(".codex is not held while the first command runs")
	}
	// Since the roots' lock (rootlock.go) the second command waits for the
	// first to end and release its names: started now, it comes up after.
	secondIn, second := start("mkdir .codex/evil || { rmdir .codex; mkdir .codex && echo pwn > .codex/evil; }", "second-ready", false)
	firstIn.Write([]byte("go\n"))
	if o := <-first; o.err != nil || o.r.ExitCode != 0 {
		t.Fatalf("first command: %+v %v", o.r, o.err)
	}
	waitReady("second-ready", second)
	if !exists(ws + "/.codex") {
		t.Fatal("the second command runs without its hold")
	}
	secondIn.Write([]byte("go\n"))
	o := <-second
	if o.err != nil || o.r.ExitCode == 0 || exists(ws+"/.codex/evil") {
		t.Fatalf("the second command created .codex/evil: %+v %v", o.r, o.err)
	}
	if exists(ws + "/.codex") {
		t.Fatal("the hold was not released after both commands")
	}
}

// TestDiscoveryBounds: the walk for nested repositories goes
// maxDiscoveryDepth directories deep and records where it stopped; a
// repository within the bound is protected, one beyond it is reported.
func TestDiscoveryBounds(t *testing.T) {
	ws := tempWorkspace(t)
	deep := ws + "/" + strings.Repeat("d/", maxDiscoveryDepth) + "repo"
	mkfiles(t, ws, map[string]string{"near/.git/config": "", strings.TrimPrefix(deep, ws+"/") + "/.git/config": ""})
	s := snapshotFor(t, domain.ModeAutoAcceptEdits, ws, domain.KernelFeatures{LandlockABI: 7, Seccomp: true, UserNamespaces: true})
	v := newFSView(&s.Sandbox.Filesystem)
	if a, _ := v.access(ws + "/near/.git/config"); a != domain.AccessRead {
		t.Errorf("near/.git/config: %s, want read", a)
	}
	if a, _ := v.access(deep + "/.git/config"); a != domain.AccessWrite {
		t.Errorf("a repository beyond the bound was discovered: %s", a)
	}
	if !slices.ContainsFunc(v.limits, func(l string) bool { return strings.Contains(l, "does not look below") }) {
		t.Errorf("the depth bound was not recorded: %v", v.limits)
	}
}

// TestMountOpenRefusesSwappedComponent: the mounts open their paths with no
// symlink allowed in any component, so a directory swapped for a symlink
// after the plan was made cannot redirect a mount; the unswapped path
// opens.
func TestMountOpenRefusesSwappedComponent(t *testing.T) {
	base := tempWorkspace(t)
	mkfiles(t, base, map[string]string{"ws/blocked/allowed/f": "", "elsewhere/allowed/f": ""})
	fd, err := openNoSymlinks(base + "/ws/blocked/allowed")
	if err != nil {
		t.Fatalf("control: %v", err)
	}
	unix.Close(fd)
	if err := os.Rename(base+"/ws/blocked", base+"/ws/blocked.old"); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(base+"/elsewhere", base+"/ws/blocked"); err != nil {
		t.Fatal(err)
	}
	if fd, err := openNoSymlinks(base + "/ws/blocked/allowed"); err == nil {
		unix.Close(fd)
		t.Fatal("a path through a swapped-in symlink was opened")
	}
	if _, _, err := openNoFollow(base + "/ws/blocked"); err == nil {
		t.Fatal("a symlink was opened as a mount target")
	}
}

// TestCanonMemoAgreesWithCanonicalPath: the memoised canonicalisation of a
// view's entries gives what canonicalPath gives, for "/", existing and
// missing paths, a symlinked parent and a symlinked last element.
func TestCanonMemoAgreesWithCanonicalPath(t *testing.T) {
	base := tempWorkspace(t)
	mkfiles(t, base, map[string]string{"real/.git/config": "", "real/f": ""})
	os.Symlink("real", base+"/link")
	os.Symlink("real/f", base+"/flink")
	m := canonMemo{}
	for _, p := range []string{"/", base, base + "/real/.git", base + "/real/missing", base + "/link/.git", base + "/link/missing/x",
		base + "/flink", base + "/real/.git/config", base + "/link/.git/config"} {
		want, _, wok, werr := canonicalPath(p)
		got, ok, err := m.canonical(p)
		if got != want || ok != wok || (err == nil) != (werr == nil) {
			t.Errorf("%s: memo %q %v %v, canonicalPath %q %v %v", p, got, ok, err, want, wok, werr)
		}
	}
}
