package sandbox

import (
	"path/filepath"
	"strings"
	"testing"

	"turnstile/domain"
)

// TestAttack154_BazelWrapperOutsideRootWorkspace (review 154, high: host
// code execution on the person's next `bazel`). Bazelisk runs
// <workspace>/tools/bazel in place of Bazel, the workspace being the
// nearest directory above the cwd with MODULE.bazel, REPO.bazel,
// WORKSPACE or WORKSPACE.bazel. bazelwrapper.go (discovery.bazelWrapper)
// watches tools/bazel only at a writable root or a nested repository's
// work tree that is a workspace when the command starts. Two common
// layouts it misses:
//
//   - a Bazel workspace in a subdirectory of the root that is no
//     repository of its own (a monorepo's backend/MODULE.bazel): the
//     command writes backend/tools/bazel and it stays; the person's next
//     `bazel build` in backend/ runs it;
//   - a root that lies inside a Bazel workspace (the agent works in
//     /repo/pkg, /repo/MODULE.bazel above it): the root is no workspace,
//     so nothing is watched; the command writes an empty REPO.bazel and
//     tools/bazel in the root, and the person's next `bazel` there finds
//     the root as its workspace and runs the command's wrapper.
//
// Control: the root that is a workspace itself has a tools/bazel the
// command made set aside.
func TestAttack154_BazelWrapperOutsideRootWorkspace(t *testing.T) {
	wrapper := func(dir, marker string) string {
		return "mkdir -p " + dir + "tools && printf '#!/bin/sh\\ntouch " + marker + "\\n' > " + dir + "tools/bazel && chmod +x " + dir + "tools/bazel"
	}
	// Control: the root is the workspace.
	c := newPlantFixture(t)
	mkfiles(t, c.ws, map[string]string{"MODULE.bazel": "module(name = \"x\")\n"})
	s := snapshotFor(t, domain.ModeAutoAcceptEdits, c.ws, machine().Kernel)
	if r := sh(t, s, wrapper("", c.marker)+" && echo done"); !strings.Contains(string(r.Stdout), "done") {
		t.Fatalf("control: the command did not run: %d %s", r.ExitCode, r.Stderr)
	} else if exists(c.ws + "/tools/bazel") {
		t.Fatalf("control: tools/bazel at the root's workspace stayed: %+v", r.Quarantined)
	}

	// A workspace in a subdirectory of the root.
	f := newPlantFixture(t)
	mkfiles(t, f.ws, map[string]string{"backend/MODULE.bazel": "module(name = \"backend\")\n", "backend/BUILD.bazel": "\n"})
	s = snapshotFor(t, domain.ModeAutoAcceptEdits, f.ws, machine().Kernel)
	if _, err := (DecisionChecker{}).ResolveFile(s, f.ws+"/backend/tools/bazel", domain.AccessWrite, false); err == nil {
		t.Errorf("a write decision on backend/tools/bazel, Bazelisk's wrapper of the workspace backend/, was allowed")
	}
	if r := sh(t, s, wrapper("backend/", f.marker)+" && echo done"); !strings.Contains(string(r.Stdout), "done") {
		t.Fatalf("premise: the command did not run: %d %s", r.ExitCode, r.Stderr)
	}
	if exists(f.ws + "/backend/tools/bazel") {
		t.Errorf("backend/tools/bazel, made by the command in the Bazel workspace backend/ (a subdirectory of the root), stayed: the person's next bazel there runs it")
	}

	// A root inside a Bazel workspace.
	g := newPlantFixture(t)
	mkfiles(t, filepath.Dir(g.ws), map[string]string{"MODULE.bazel": "module(name = \"mono\")\n"})
	s = snapshotFor(t, domain.ModeAutoAcceptEdits, g.ws, machine().Kernel)
	if r := sh(t, s, "touch REPO.bazel && "+wrapper("", g.marker)+" && echo done"); !strings.Contains(string(r.Stdout), "done") {
		t.Fatalf("premise: the command did not run: %d %s", r.ExitCode, r.Stderr)
	}
	if exists(g.ws+"/tools/bazel") && exists(g.ws+"/REPO.bazel") {
		t.Errorf("a root inside the Bazel workspace %s: the command made it a workspace of its own (REPO.bazel) with tools/bazel, both stayed: the person's next bazel in the root runs it",
			filepath.Dir(g.ws))
	}
}
