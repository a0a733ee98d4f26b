package domain

import (
	"fmt"
	"strings"
	"testing"
)

// benchCompileRoots compiles a profile with root-relative keys (a glob
// among them) for a turn of nroots project roots depth components deep:
// what a runtime may send (256 roots, paths of up to 4,096 bytes) must not
// make a turn start expensive (capRoots looks rules up by prefix).
func benchCompileRoots(b *testing.B, nroots, depth int) {
	set := ProfileSet{"dev": {Name: "dev", Extends: BuiltinWorkspace, Filesystem: map[string]Access{
		":workspace_roots": AccessWrite, ":workspace_roots/secrets": AccessDeny, ":workspace_roots/a/b": AccessRead,
		":workspace_roots/**/x": AccessDeny, ":workspace_roots/c": AccessWrite, "**/private": AccessDeny, "/srv": AccessWrite}}}
	var roots []string
	for i := range nroots {
		roots = append(roots, "/w"+strings.Repeat("/d", depth)+fmt.Sprint("/p", i))
	}
	env := ProfileEnv{WorkspaceRoot: "/w", Cwd: "/w", ProjectRoots: roots}
	for b.Loop() {
		if _, err := CompileProfile(set, "dev", env, nil); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkCompileRoots(b *testing.B) {
	for _, c := range []struct{ n, depth int }{{1, 1}, {256, 5}, {1, 1000}, {256, 100}} {
		b.Run(fmt.Sprintf("roots=%d/depth=%d", c.n, c.depth), func(b *testing.B) { benchCompileRoots(b, c.n, c.depth) })
	}
}
