package sandbox

import (
	"strings"
	"testing"

	"turnstile/domain"
)

// TestAttack158_BazelNestedWorkspaceInWorkspace (review 158, medium: host
// code execution on the person's next `bazel` in a package directory).
// Bazelisk runs <workspace>/tools/bazel in place of Bazel, the workspace
// being the nearest directory above the cwd with a marker (MODULE.bazel,
// REPO.bazel, WORKSPACE, WORKSPACE.bazel). bazelwrapper.go watches
// tools/bazel at a writable root that is a workspace or lies inside one
// (bazelRoot, review 154) and in the directories that held a marker when
// the walk ran (bazelDirs); the README leaves out only "a workspace a
// command makes where there was none (a marker and tools/bazel in a
// directory of no workspace)". A package directory of the root's own
// workspace (pkg/ below a root holding MODULE.bazel) is a directory of a
// workspace, yet one command that writes an empty pkg/REPO.bazel and
// pkg/tools/bazel keeps both: nothing after the command looks for a
// marker it made inside a workspace, and the person's next `bazel test
// :all` in pkg/ (Bazelisk finds pkg/ first) runs the command's wrapper.
// This is review 154's root-inside-a-workspace case one level down.
//
// Control: the same wrapper at the root (the workspace) is set aside.
func TestAttack158_BazelNestedWorkspaceInWorkspace(t *testing.T) {
	wrapper := func(dir string) string {
		return "mkdir -p " + dir + "tools && printf '#!/bin/sh\\ntouch /tmp/pwned\\n' > " + dir + "tools/bazel && chmod +x " + dir + "tools/bazel"
	}
	c := newPlantFixture(t)
	mkfiles(t, c.ws, map[string]string{"MODULE.bazel": "module(name = \"x\")\n", "pkg/BUILD.bazel": "\n"})
	s := snapshotFor(t, domain.ModeAutoAcceptEdits, c.ws, machine().Kernel)
	if r := sh(t, s, wrapper("")+" && echo done"); !strings.Contains(string(r.Stdout), "done") {
		t.Fatalf("control: the command did not run: %d %s", r.ExitCode, r.Stderr)
	} else if exists(c.ws + "/tools/bazel") {
		t.Fatalf("control: tools/bazel at the root's workspace stayed: %+v", r.Quarantined)
	}

	f := newPlantFixture(t)
	mkfiles(t, f.ws, map[string]string{"MODULE.bazel": "module(name = \"x\")\n", "pkg/BUILD.bazel": "\n"})
	s = snapshotFor(t, domain.ModeAutoAcceptEdits, f.ws, machine().Kernel)
	r := sh(t, s, "touch pkg/REPO.bazel && "+wrapper("pkg/")+" && echo done")
	if !strings.Contains(string(r.Stdout), "done") {
		t.Fatalf("premise: the command did not run: %d %s", r.ExitCode, r.Stderr)
	}
	if exists(f.ws+"/pkg/tools/bazel") && exists(f.ws+"/pkg/REPO.bazel") {
		t.Errorf("pkg/REPO.bazel and pkg/tools/bazel, made by the command in a package directory of the root's Bazel workspace, stayed: the person's next bazel in pkg/ runs the wrapper (quarantined: %+v)", r.Quarantined)
	}
}
