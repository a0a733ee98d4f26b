package sandbox

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"turnstile/domain"
)

// run plans and runs argv under s (server environment: os.Environ()),
// letting mutate adjust the plan first. Every sandbox restriction is applied
// in the re-executed helper, never in the test process.
func run(t *testing.T, s *domain.TurnExecutionSecuritySnapshot, req SpawnRequest, mutate func(*Plan)) (*Result, error) {
	t.Helper()
	p, err := PlanSpawn(s, req, os.Environ())
	if err != nil {
		t.Fatalf("plan %q: %v", req.Argv, err)
	}
	if mutate != nil {
		mutate(p)
	}
	r, err := Run(context.Background(), p)
	// What the tests look at after a command includes what Run releases
	// once it has returned (held names, the temp dir).
	WaitCleanup()
	return r, err
}

// sh runs a shell script under s and fails the test if Run itself fails.
func sh(t *testing.T, s *domain.TurnExecutionSecuritySnapshot, script string) *Result {
	t.Helper()
	r, err := run(t, s, SpawnRequest{Argv: []string{"/bin/sh", "-c", script}}, nil)
	if err != nil {
		t.Fatalf("run %q: %v (%+v)", script, err, r)
	}
	return r
}

func exists(p string) bool {
	_, err := os.Lstat(p)
	return err == nil
}

func readFile(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestEnforceFilesystem: writes in the workspace follow the mode; writes
// outside the roots, to /etc, to /tmp outside the isolated temp dir and
// through a symlink that leads outside fail, and nothing is created there.
func TestEnforceFilesystem(t *testing.T) {
	f := requireKernel(t, false)
	for _, mode := range []domain.Mode{domain.ModeAutoAcceptEdits, domain.ModeSupervised} {
		t.Run(string(mode), func(t *testing.T) {
			base := tempWorkspace(t)
			ws, outside := base+"/ws", base+"/outside"
			for _, d := range []string{ws, outside} {
				if err := os.Mkdir(d, 0o755); err != nil {
					t.Fatal(err)
				}
			}
			os.WriteFile(ws+"/file.txt", []byte("original\n"), 0o644)
			os.WriteFile(outside+"/secret.txt", []byte("secret\n"), 0o644)
			os.Symlink(outside, ws+"/out")
			s := snapshotFor(t, mode, ws, f.Kernel)

			r := sh(t, s, "echo new > new.txt && echo changed > file.txt")
			if mode == domain.ModeAutoAcceptEdits {
				if r.ExitCode != 0 || readFile(t, ws+"/new.txt") != "new\n" || readFile(t, ws+"/file.txt") != "changed\n" {
					t.Fatalf("workspace write failed in %s: %+v %s", mode, r, r.Stderr)
				}
			} else if r.ExitCode == 0 || exists(ws+"/new.txt") || readFile(t, ws+"/file.txt") != "original\n" {
				t.Fatalf("workspace write succeeded in %s: %+v", mode, r)
			}
			if r := sh(t, s, "cat file.txt"); r.ExitCode != 0 {
				t.Fatalf("workspace read failed: %s", r.Stderr)
			}
			etc := "/etc/turnstile-sandbox-test-" + filepath.Base(base)
			tmp := "/tmp/turnstile-sandbox-escape-" + filepath.Base(base)
			t.Cleanup(func() { os.Remove(etc); os.Remove(tmp) })
			for _, target := range []string{outside + "/new.txt", etc, tmp, ws + "/out/via-link.txt", outside + "/secret.txt"} {
				r := sh(t, s, "echo x > '"+target+"'")
				if r.ExitCode == 0 {
					t.Errorf("write to %s succeeded", target)
				}
			}
			for _, p := range []string{outside + "/new.txt", etc, tmp, outside + "/via-link.txt"} {
				if exists(p) {
					t.Errorf("%s was created", p)
				}
			}
			if readFile(t, outside+"/secret.txt") != "secret\n" {
				t.Error("outside file changed")
			}
			if r := sh(t, s, "cat out/secret.txt"); r.ExitCode == 0 {
				t.Error("read through a symlink leading outside succeeded")
			}
			// The isolated temp dir is writable, private and removed afterwards.
			r = sh(t, s, `echo t > "$TMPDIR/x" && test "$TMPDIR" = "$TMP" && test "$TMP" = "$TEMP" && stat -c %a "$TMPDIR" && echo "$TMPDIR"`)
			lines := strings.Fields(string(r.Stdout))
			if r.ExitCode != 0 || len(lines) != 2 || lines[0] != "700" {
				t.Fatalf("isolated tmp: %+v %s", lines, r.Stderr)
			}
			if exists(lines[1]) {
				t.Errorf("isolated temp dir %s was not removed", lines[1])
			}
		})
	}
}

// TestEnforceProtectedPaths: .git (and the real git dir of a .git pointer
// file) stay untouched inside a writable root while other files are
// writable, with the namespace carve-out and with the fallback.
func TestEnforceProtectedPaths(t *testing.T) {
	f := requireKernel(t, false)
	for _, useNS := range []bool{true, false} {
		name := "namespace"
		if !useNS {
			name = "fallback"
		}
		t.Run(name, func(t *testing.T) {
			if useNS && !f.Kernel.UserNamespaces {
				missingPrerequisite(t, "no user namespaces: %s", f.UserNamespacesDetail)
			}
			base := tempWorkspace(t)
			ws, ws2 := base+"/ws", base+"/ws2"
			store := ws2 + "/store/main.git"
			for _, d := range []string{ws + "/.git/hooks", ws + "/src", store + "/hooks", ws2 + "/src"} {
				os.MkdirAll(d, 0o755)
			}
			os.WriteFile(ws+"/.git/config", []byte("[core]\n"), 0o644)
			os.WriteFile(store+"/config", []byte("[core]\n"), 0o644)
			os.WriteFile(ws2+"/.git", []byte("gitdir: store/main.git\n"), 0o644)
			os.WriteFile(ws+"/file.txt", []byte("original\n"), 0o644)
			sn, err := domain.ResolveSnapshot(domain.SnapshotInputs{
				Profile: domain.ResolveProfile(&domain.ProfileRequest{Mode: domain.ModeAutoAcceptEdits}, domain.SourceComposer),
				Cwd:     ws, WorkspaceRoot: ws, ProjectRoots: []string{ws2}, Kernel: f.Kernel,
			})
			if err != nil {
				t.Fatal(err)
			}
			s := &sn
			mutate := func(p *Plan) { p.Sandbox.UserNamespaces = useNS }
			shm := func(script string) *Result {
				t.Helper()
				r, err := run(t, s, SpawnRequest{Argv: []string{"/bin/sh", "-c", script}}, mutate)
				if err != nil {
					t.Fatalf("%q: %v", script, err)
				}
				return r
			}
			for _, script := range []string{
				"echo '[core] hooksPath=/tmp' >> .git/config", "echo evil > .git/hooks/x", "mv .git .git2", "rm -rf .git",
				"echo evil > " + store + "/hooks/post-checkout", "echo evil >> " + store + "/config", "echo 'gitdir: /tmp' > " + ws2 + "/.git",
			} {
				if r := shm(script); r.ExitCode == 0 {
					t.Errorf("%q succeeded", script)
				}
			}
			if readFile(t, ws+"/.git/config") != "[core]\n" || exists(ws+"/.git/hooks/x") || !exists(ws+"/.git") ||
				readFile(t, store+"/config") != "[core]\n" || exists(store+"/hooks/post-checkout") || readFile(t, ws2+"/.git") != "gitdir: store/main.git\n" {
				t.Fatal("a protected path changed")
			}
			if r := shm("echo changed > file.txt && echo new > src/new.go && echo p > " + ws2 + "/src/p.go && cat .git/config"); r.ExitCode != 0 {
				t.Fatalf("ordinary writes failed: %s", r.Stderr)
			}
			r := shm("echo top > top.txt")
			if useNS && r.ExitCode != 0 {
				t.Fatalf("creating a file in the root failed with the namespace carve-out: %s", r.Stderr)
			}
			if !useNS && (r.ExitCode == 0 || exists(ws+"/top.txt")) {
				t.Fatal("the fallback is documented to refuse creating entries directly in the root")
			}
		})
	}
}

// TestEnforceProtectedSymlink: a protected path that is a symlink (.git
// pointing at realgit, .vscode at a shared dir inside the workspace) is
// protected at its target, and the link itself cannot be removed or
// replaced; the command runs, and files next to them stay writable.
func TestEnforceProtectedSymlink(t *testing.T) {
	f := requireKernel(t, true)
	ws := tempWorkspace(t)
	mkfiles(t, ws, map[string]string{"realgit/config": "[core]\n", "realgit/HEAD": "ref: refs/heads/main\n", "realgit/objects/": "",
		"shared/vscode/settings.json": "{}\n"})
	os.Symlink("realgit", ws+"/.git")
	os.Symlink("shared/vscode", ws+"/.vscode")
	s := snapshotFor(t, domain.ModeAutoAcceptEdits, ws, f.Kernel)
	for _, script := range []string{
		"rm .git", "ln -sfn /tmp .git", "mv .git .git.old", "echo evil >> .git/config", "echo evil >> realgit/config", "mv realgit realgit.old",
		"rm .vscode", "echo '{}' > .vscode/tasks.json", "echo evil > shared/vscode/settings.json",
	} {
		if r := sh(t, s, script); r.ExitCode == 0 {
			t.Errorf("%q succeeded", script)
		}
	}
	if l, err := os.Readlink(ws + "/.git"); err != nil || l != "realgit" || readFile(t, ws+"/realgit/config") != "[core]\n" {
		t.Fatalf("the .git link or its target changed: %q %v", l, err)
	}
	if l, err := os.Readlink(ws + "/.vscode"); err != nil || l != "shared/vscode" || exists(ws+"/shared/vscode/tasks.json") {
		t.Fatalf("the .vscode link or its target changed: %q %v", l, err)
	}
	if r := sh(t, s, "echo o > .git/objects/probe && echo x > shared/other && echo y > top"); r.ExitCode != 0 {
		t.Fatalf("control failed: %s", r.Stderr)
	}
}

// TestEnforceABIAboveKernel: asking the helper for a Landlock ABI above the
// kernel's fails with 126 and the command never runs.
func TestEnforceABIAboveKernel(t *testing.T) {
	f := requireKernel(t, false)
	ws := tempWorkspace(t)
	s := snapshotFor(t, domain.ModeAutoAcceptEdits, ws, f.Kernel)
	r, err := run(t, s, SpawnRequest{Argv: []string{"/bin/sh", "-c", "touch ran"}}, func(p *Plan) { p.Sandbox.LandlockABI = f.Kernel.LandlockABI + 1 })
	var ref *Refusal
	if !errors.As(err, &ref) || ref.Code != CodeSandboxFailed || r.ExitCode != ExitSandboxFailure {
		t.Fatalf("got %+v, %v", r, err)
	}
	if exists(ws + "/ran") {
		t.Fatal("the command ran")
	}
	if !strings.Contains(string(r.Stderr), "ABI") {
		t.Fatalf("stderr %q", r.Stderr)
	}
}
