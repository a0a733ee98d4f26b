package sandbox

import (
	"strings"
	"testing"

	"turnstile/domain"
)

// globSnapshot compiles a profile extending :workspace over ws with
// "**/*.env" denied and the given scan depth, under this machine's kernel.
func globSnapshot(t *testing.T, ws string, depth int) *domain.TurnExecutionSecuritySnapshot {
	t.Helper()
	set := domain.ProfileSet{"envdeny": {Name: "envdeny", Extends: domain.BuiltinWorkspace,
		Filesystem: map[string]domain.Access{"**/*.env": domain.AccessDeny}, GlobScanMaxDepth: depth}}
	cp, err := domain.CompileProfile(set, "envdeny", domain.ProfileEnv{Cwd: ws, WorkspaceRoot: ws}, nil)
	if err != nil {
		t.Fatal(err)
	}
	s, err := domain.ResolveProfileSnapshot(cp, domain.SourceComposer, domain.SnapshotInputs{Cwd: ws, WorkspaceRoot: ws, Kernel: machine().Kernel})
	if err != nil {
		t.Fatal(err)
	}
	return &s
}

// TestGlobDenyMasksExistingMatches: under ":workspace" + "**/*.env" deny,
// an existing .env in a subdirectory (and one in the root) is unreadable
// and unwritable for the command, and cannot be moved aside or replaced,
// while a sibling file stays readable and writable (the control); the
// snapshot spawns and still names files created after the spawn as a
// degradation. A match below glob_scan_max_depth is not masked (the bound
// is real), and the snapshot says so.
func TestGlobDenyMasksExistingMatches(t *testing.T) {
	requireKernel(t, true)
	ws := tempWorkspace(t)
	mkfiles(t, ws, map[string]string{"web/.env": "KEY=1\n", "web/app.py": "print(1)\n", ".env": "ROOT=1\n",
		"a/b/c/deep.env": "DEEP=1\n"})
	s := globSnapshot(t, ws, 2)
	if !s.CanSpawn() {
		t.Fatalf("a glob deny with masking must spawn: %+v", s.Enforcement)
	}
	var named bool
	for _, d := range s.Enforcement.Degradations {
		named = named || (d.Residual && strings.Contains(d.Reason, "**/*.env") && strings.Contains(d.Reason, "after the spawn"))
	}
	if !named || s.Enforcement.Status != domain.EnforcementPartiallyActive {
		t.Fatalf("files created after the spawn must stay a named degradation: %+v", s.Enforcement)
	}
	shm := func(s *domain.TurnExecutionSecuritySnapshot, script string) *Result {
		t.Helper()
		r, err := run(t, s, SpawnRequest{Argv: []string{"/bin/sh", "-c", script}}, nil)
		if err != nil {
			t.Fatalf("%q: %v (%+v)", script, err, r)
		}
		return r
	}
	refused(t, shm, s, "cat web/.env", "grep -q KEY web/.env", "echo x > web/.env", "echo x >> web/.env", "cat .env", "echo x > .env",
		"mv web/.env web/moved", "rm web/.env", "ln web/.env hard", "ln -s web/.env link && cat link",
		"mv web web2 && cat web2/.env", "cp web/.env copy")
	if readFile(t, ws+"/web/.env") != "KEY=1\n" || readFile(t, ws+"/.env") != "ROOT=1\n" || exists(ws+"/web/moved") || exists(ws+"/hard") || exists(ws+"/copy") {
		t.Fatal("a masked match changed")
	}
	allowed(t, shm, s, "cat web/app.py && echo y > web/app.py && echo z > web/new.txt && ls web")
	if readFile(t, ws+"/web/app.py") != "y\n" || readFile(t, ws+"/web/new.txt") != "z\n" {
		t.Fatal("the sibling files were not writable")
	}
	// Depth 2 scans ws/a and ws/a/b, not ws/a/b/c: that match stays
	// readable by the kernel (decisions still deny it).
	allowed(t, shm, s, "grep -q DEEP a/b/c/deep.env")
	deep := globSnapshot(t, ws, 8)
	refused(t, shm, deep, "cat a/b/c/deep.env")
	// Created after the spawn: not masked (the named degradation).
	allowed(t, shm, s, "echo N=1 > web/later.env && cat web/later.env")
}
