package sandbox

import (
	"os"
	"path/filepath"
)

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
// command starts, or a directory the discovery walk found holding a marker,
// or a root inside a workspace. A workspace the command makes where none
// was (a marker and tools/bazel in a directory of no workspace) is not
// covered.

// bazelMarkers are the files that make a directory Bazel's workspace.
var bazelMarkers = []string{"MODULE.bazel", "REPO.bazel", "WORKSPACE", "WORKSPACE.bazel"}

// bazelWrapper keeps dir's tools/bazel read-only, or watches it, when dir
// is a Bazel workspace.
func (d *discovery) bazelWrapper(dir string) {
	if bazelWorkspace(dir) {
		d.launcherRef(dir, "tools/bazel")
	}
}

// bazelRoot is bazelWrapper for a writable root, which is watched also
// where it lies inside a Bazel workspace (a marker above it): a command
// that makes it a workspace of its own (an empty REPO.bazel) with a
// tools/bazel had the person's next bazel there run it (the
// hundred-and-fifty-fourth review).
func (d *discovery) bazelRoot(root string) {
	for dir := root; ; dir = filepath.Dir(dir) {
		if bazelWorkspace(dir) {
			d.launcherRef(root, "tools/bazel")
			return
		}
		if dir == "/" {
			return
		}
	}
}

// bazelMarkerName reports whether name is one of bazelMarkers.
// (The comparison allocates nothing: the walk asks for every name.)
func bazelMarkerName(name []byte) bool {
	for _, m := range bazelMarkers {
		if string(name) == m {
			return true
		}
	}
	return false
}

// bazelWorkspace reports whether dir holds a Bazel workspace's marker.
func bazelWorkspace(dir string) bool {
	for _, m := range bazelMarkers {
		if _, err := os.Lstat(joinPath(dir, m)); err == nil {
			return true
		}
	}
	return false
}
