package domain

import "testing"

// TestAttack102_ChildRootTokenDropsParentDeny: afe93a4's childRulesWin
// drops every rule whose expanded pattern a profile further down the
// extends chain also produced. It compares the patterns after the root
// tokens are expanded, and the roots are the runtime's (the turn's
// workspace_root and project_roots, which the agent names when it starts a
// turn). So a child that (re)states ":project_roots" = "write" (or
// ":workspace_roots") now *replaces* any parent rule at whichever path the
// agent names as a root: the operator's parent "/srv/data" = "deny" is
// dropped as "the child's rule for the same paths" when the agent starts
// its turn with project_roots = ["/srv/data"], and /srv/data compiles to
// write. Before afe93a4 both rules stayed, and deny won the tie
// (tieRank); a deny of the parent above a root still caps it (capRoots),
// one at the root itself no longer does.
//
// Controls: the parent alone, with the same project root, denies; the
// child with another project root keeps the parent's deny of /srv/data.
func TestAttack102_ChildRootTokenDropsParentDeny(t *testing.T) {
	set := ProfileSet{
		"base": &Profile{Name: "base", Extends: BuiltinWorkspace, Filesystem: map[string]Access{"/srv/data": AccessDeny}},
		"dev":  &Profile{Name: "dev", Extends: "base", Filesystem: map[string]Access{TokenProjectRoots: AccessWrite}},
	}
	env := func(roots ...string) ProfileEnv {
		return ProfileEnv{Home: "/home/me", Cwd: "/w", WorkspaceRoot: "/w", TmpDir: "/tmp/t1", ProjectRoots: roots}
	}
	explain := func(name string, e ProfileEnv, p string) PathDecision {
		t.Helper()
		cp, err := CompileProfile(set, name, e, nil)
		if err != nil {
			t.Fatal(err)
		}
		return cp.Explain(p)
	}
	if d := explain("base", env("/srv/data"), "/srv/data/db.sqlite"); d.Access != AccessDeny {
		t.Fatalf("control: the parent alone with project root /srv/data: %s", d.Access)
	}
	if d := explain("dev", env("/srv/other"), "/srv/data/db.sqlite"); d.Access != AccessDeny {
		t.Fatalf("control: the child with project root /srv/other: %s", d.Access)
	}
	if d := explain("dev", env("/srv/other"), "/srv/other/x"); d.Access != AccessWrite {
		t.Fatalf("control: the child's project root is written: %s", d.Access)
	}
	if d := explain("dev", env("/srv/data"), "/srv/data/db.sqlite"); d.Access != AccessWrite {
		// passes: record what it is
		t.Logf("child with project root /srv/data: %s", d.Access)
	} else {
		rule := "none"
		if d.Rule != nil {
			rule = d.Rule.Key + " from " + d.Rule.Origin
		}
		t.Errorf("the parent denies /srv/data; the child restates :project_roots = write, and with the turn's project root /srv/data (the agent's choice) /srv/data/db.sqlite compiles to %s by %s", d.Access, rule)
	}
}

// TestAttack102_ChildRootTokenDropsParentOverlay: the same with the
// parent's overlay: "/w/node_modules" = "overlay" (the host's directory
// read, the command's writes kept in a layer) is dropped when the child
// restates ":project_roots" = "write" and the agent names /w/node_modules
// as its project root, and capRootsInOverlays, which runs after
// childRulesWin, no longer sees an overlay to lower the root to: the
// host's node_modules compiles to write. Control: the parent alone keeps
// the overlay there.
func TestAttack102_ChildRootTokenDropsParentOverlay(t *testing.T) {
	set := ProfileSet{
		"base": &Profile{Name: "base", Extends: BuiltinWorkspace, Filesystem: map[string]Access{"/w/node_modules": AccessOverlay}},
		"dev":  &Profile{Name: "dev", Extends: "base", Filesystem: map[string]Access{TokenProjectRoots: AccessWrite}},
	}
	env := ProfileEnv{Home: "/home/me", Cwd: "/w", WorkspaceRoot: "/w", TmpDir: "/tmp/t1", ProjectRoots: []string{"/w/node_modules"}}
	for _, name := range []string{"base", "dev"} {
		cp, err := CompileProfile(set, name, env, nil)
		if err != nil {
			t.Fatal(err)
		}
		d := cp.Explain("/w/node_modules/left-pad/index.js")
		if d.Access == AccessWrite {
			rule := "none"
			if d.Rule != nil {
				rule = d.Rule.Key + " from " + d.Rule.Origin
			}
			if name == "base" {
				t.Fatalf("control: the parent alone writes the overlay: %s", rule)
			}
			t.Errorf("the parent overlays /w/node_modules; with the child's :project_roots = write and the project root /w/node_modules, it compiles to write by %s", rule)
		} else if name == "dev" {
			t.Logf("dev: %s overlay=%v", d.Access, d.Rule != nil && d.Rule.Overlay)
		}
	}
}
