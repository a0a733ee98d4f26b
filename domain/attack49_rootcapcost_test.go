package domain

import (
	"fmt"
	"strings"
	"testing"
)

// rootCapCostProfile is an ordinary operator profile: the workspace
// writable, a deny, a read carve-out, an overlay, a glob deny and a
// project-root subpath.
func rootCapCostProfile() ProfileSet {
	return ProfileSet{"dev": {Name: "dev", Extends: BuiltinWorkspace, Filesystem: map[string]Access{
		":workspace_roots":                   AccessWrite,
		":workspace_roots/secrets":           AccessDeny,
		":workspace_roots/.github/workflows": AccessRead,
		":workspace_roots/node_modules":      AccessOverlay,
		":workspace_roots/**/*.pem":          AccessDeny,
		":project_roots/build":               AccessWrite,
	}}}
}

// deepRootsEnv is a turn's roots as the runtime names them: n project
// roots, each depth directories below the workspace (a start request
// carries up to 256 project roots of up to 4,096 bytes: ~2,000 levels).
func deepRootsEnv(n, depth int) ProfileEnv {
	ws := "/work/repo"
	env := ProfileEnv{WorkspaceRoot: ws, Cwd: ws}
	for i := 0; i < n; i++ {
		env.ProjectRoots = append(env.ProjectRoots, fmt.Sprintf("%s/p%03d%s", ws, i, strings.Repeat("/a", depth)))
	}
	return env
}

// TestAttack49RootCapCost: capRoots (ee29aea) expands every root-token key
// at every ancestor of every root, cleaning and matching the whole root
// path each time (CleanPath, splitComps in ResolvePathRules), and then
// resolves each root rule against all the others until nothing changes:
// work quadratic in a root's depth, times the number of rules (keys x
// roots), at every turn start, on roots the runtime (the agent's
// credential) names. The start request allows 256 project roots of 4,096
// bytes (api/decode.go) inside a 1 MiB body. Measured on this machine
// (BenchmarkAttack49CompileDeepRoots, go test -bench): 16 roots 400 levels
// deep take ~8.7 s to compile against ~14 ms before ee29aea; 32 roots 200
// deep allocate 6.2 M objects / 1.8 GB (8,479 objects / 13 MB before);
// 256 roots 100 deep (a 51 KB request) take ~16 s. The depth term is
// quadratic: at 256 roots ~2,000 deep (a 1 MiB request) one start request
// holds a core for hours, and a child turn or a mid-turn profile change
// compiles again.
//
// The assertion counts allocations (deterministic, not timed): before
// ee29aea the compile of 32 roots is 8,479 objects at any depth; the bound
// leaves 20x that, far below what the fix spends.
//
// Control: the shallow compile stays well within the bound.
func TestAttack49RootCapCost(t *testing.T) {
	set := rootCapCostProfile()
	const bound = 200_000
	allocs := func(n, depth int) float64 {
		env := deepRootsEnv(n, depth)
		return testing.AllocsPerRun(1, func() {
			if _, err := CompileProfile(set, "dev", env, nil); err != nil {
				t.Fatal(err)
			}
		})
	}
	if a := allocs(32, 2); a > bound {
		t.Fatalf("control: 32 shallow roots allocate %v objects (bound %d)", a, bound)
	}
	if a := allocs(32, 200); a > bound {
		t.Errorf("32 project roots 200 levels deep: the compile allocates %.0f objects (bound %d; 8,479 before ee29aea): capRoots' work grows with roots x keys x depth^2", a, bound)
	}
}

func BenchmarkAttack49CompileDeepRoots(b *testing.B) {
	set := rootCapCostProfile()
	for _, c := range [][2]int{{16, 10}, {16, 100}, {16, 400}, {64, 100}} {
		env := deepRootsEnv(c[0], c[1])
		b.Run(fmt.Sprintf("roots%d_depth%d", c[0], c[1]), func(b *testing.B) {
			b.ReportAllocs()
			for range b.N {
				if _, err := CompileProfile(set, "dev", env, nil); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
