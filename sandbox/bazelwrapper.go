package sandbox

import "os"

// Bazelisk's wrapper.
//
// Bazelisk (the `bazel` most people run) runs <workspace>/tools/bazel in
// place of Bazel when it exists, in the workspace it finds above the cwd
// (a directory with a MODULE.bazel, REPO.bazel, WORKSPACE or
// WORKSPACE.bazel). As a protected path of every root it pinned every
// link named tools and set aside one a command made; so it is kept
// read-only (or watched where it does not exist: refused to a write
// decision, set aside when a command makes it) only at a writable root,
// or a nested repository's work tree, that is a Bazel workspace when the
// command starts.

// bazelMarkers are the files that make a directory Bazel's workspace.
var bazelMarkers = []string{"MODULE.bazel", "REPO.bazel", "WORKSPACE", "WORKSPACE.bazel"}

// bazelWrapper keeps dir's tools/bazel read-only, or watches it, when dir
// is a Bazel workspace.
func (d *discovery) bazelWrapper(dir string) {
	for _, m := range bazelMarkers {
		if _, err := os.Lstat(joinPath(dir, m)); err == nil {
			d.launcherRef(dir, "tools/bazel")
			return
		}
	}
}
