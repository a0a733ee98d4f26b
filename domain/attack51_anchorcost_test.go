package domain

import (
	"fmt"
	"strings"
	"testing"
)

// anchorRootsEnv: n project roots depth levels below the workspace, each
// component named comp.
func anchorRootsEnv(n, depth int, comp string) ProfileEnv {
	ws := "/work/repo"
	env := ProfileEnv{WorkspaceRoot: ws, Cwd: ws}
	for i := 0; i < n; i++ {
		env.ProjectRoots = append(env.ProjectRoots, fmt.Sprintf("%s/p%03d%s", ws, i, strings.Repeat("/"+comp, depth)))
	}
	return env
}

// TestAttack51AnchorCost: 30dd239 bounds TestAttack49RootCapCost (no
// allowed_roots), but with allowed_roots every ancestor of a root whose
// name a key's first component matches is an anchor (rootKey.starts), and
// each anchor adds the keys' deny copies that lie inside the root
// (inside): a root <repo>/p/secrets/secrets/.../secrets, d levels deep,
// under the ordinary ":workspace_roots/secrets" = "deny", gets d anchors
// and ~d copies (<anchor>/secrets at every level), and capRoots then
// compares every added copy with every rule (the lowering loop and
// slices.Contains): work (n·d)² for n such roots. The start request
// allows 256 roots of 4,096 bytes in 1 MiB (api/decode.go). Measured
// (BenchmarkAttack51AnchorCost, -benchtime 1x, this machine):
//
//	64 roots 300 deep, components "a":       77 ms,  32 MB,    19,524 objects
//	64 roots 300 deep, components "secrets": 2.3 s,  333 MB,  350,466 objects
//	128 roots:                               6.1 s,  665 MB,  700,300 objects
//	256 roots (a 620 KB request):            24.9 s, 1.34 GB, 1,399,969 objects
//
// per start request (and again on a child turn or a profile change), on
// roots the runtime (the agent's credential) names, each redundant: the
// root is already capped to deny.
//
// The assertion counts allocations (deterministic, not timed): the
// attack's roots against the same number of honest roots of the same
// depth; the bound leaves 4x.
func TestAttack51AnchorCost(t *testing.T) {
	set := rootCapCostProfile()
	cons := &Constraints{AllowedRoots: []string{"/work"}}
	allocs := func(comp string) float64 {
		env := anchorRootsEnv(64, 300, comp)
		return testing.AllocsPerRun(1, func() {
			if _, err := CompileProfile(set, "dev", env, cons); err != nil {
				t.Fatal(err)
			}
		})
	}
	honest := allocs("a")
	if honest > 100_000 {
		t.Fatalf("control: 64 honest roots 300 deep allocate %.0f objects", honest)
	}
	if a := allocs("secrets"); a > 4*honest {
		t.Errorf("64 project roots 300 levels deep, each component named like a key: the compile allocates %.0f objects, %.0fx the honest roots' %.0f: capRoots adds a copy per anchor and compares every copy with every rule", a, a/honest, honest)
	}
}

func BenchmarkAttack51AnchorCost(b *testing.B) {
	set := rootCapCostProfile()
	cons := &Constraints{AllowedRoots: []string{"/work"}}
	for _, c := range []struct {
		n, d int
		comp string
	}{{64, 300, "a"}, {64, 300, "secrets"}, {128, 300, "secrets"}, {256, 300, "secrets"}} {
		env := anchorRootsEnv(c.n, c.d, c.comp)
		b.Run(fmt.Sprintf("roots%d_depth%d_%s", c.n, c.d, c.comp), func(b *testing.B) {
			b.ReportAllocs()
			for range b.N {
				if _, err := CompileProfile(set, "dev", env, cons); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
