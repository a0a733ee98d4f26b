package domain

import (
	"strings"
	"testing"
)

// TestAttack100_ChainTokenAlias (hundredth review, medium): the
// ninety-eighth review's fix merges an extends chain by chainKey, the
// key's normal form, so that "/srv/data/**" or ":project_roots" in a child
// replaces its parent's "/srv/data" or ":workspace_roots". But a special
// token followed by a subpath names an absolute path too, and chainKey
// leaves the token in place: ":root/srv/data" is "/srv/data" (":root" is
// all of /), ":root" is "/", and ":slash_tmp/cache" is "/tmp/cache". A
// child that narrows its parent's write to read, written with the other
// spelling, keeps the parent's write beside its read: both expand to the
// same pattern at the same specificity, and the tie goes to write
// (tieRank). The profile reads "read-only" and compiles to writable;
// Explain names the parent's rule. Within one profile the two spellings
// are not refused either (validate compares chainKeys).
//
// Controls: the same children written with the parent's spelling compile
// to read.
func TestAttack100_ChainTokenAlias(t *testing.T) {
	env := ProfileEnv{Home: "/home/me", Cwd: "/w", WorkspaceRoot: "/w", TmpDir: "/tmp/t1"}
	cases := []struct {
		name, extends, parentKey, childKey, probe string
	}{
		{"root-sub", BuiltinWorkspace, "/srv/data", ":root/srv/data", "/srv/data/report.csv"},
		{"root-sub-reversed", BuiltinWorkspace, ":root/srv/data", "/srv/data", "/srv/data/report.csv"},
		{"slash-tmp", BuiltinWorkspace, ":slash_tmp", "/tmp", "/tmp/shared/x"},
		{"slash-tmp-sub", BuiltinWorkspace, "/tmp/cache", ":slash_tmp/cache", "/tmp/cache/x"},
		// A read-only whole disk over :danger-full-access (whose
		// filesystem is ":root" = "write"), written "/".
		{"whole-disk", BuiltinDangerFullAccess, "", "/", "/srv/anything"},
	}
	for _, c := range cases {
		for _, honest := range []bool{true, false} {
			childKey := c.childKey
			if honest {
				childKey = c.parentKey
				if c.parentKey == "" {
					childKey = TokenRoot
				}
			}
			name := c.name + map[bool]string{true: "/control", false: "/attack"}[honest]
			t.Run(name, func(t *testing.T) {
				set := ProfileSet{}
				parentName := c.extends
				if c.parentKey != "" {
					set["parent"] = &Profile{Name: "parent", Extends: c.extends, Filesystem: map[string]Access{c.parentKey: AccessWrite}}
					parentName = "parent"
				}
				set["reviewer"] = &Profile{Name: "reviewer", Extends: parentName, Filesystem: map[string]Access{childKey: AccessRead}}
				cp, err := CompileProfile(set, "reviewer", env, nil)
				if err != nil {
					t.Fatal(err)
				}
				d := cp.Explain(c.probe)
				if d.Access != AccessRead {
					rule := "none"
					if d.Rule != nil {
						rule = d.Rule.Key + " (" + string(d.Rule.Access) + ", from " + d.Rule.Origin + ")"
					}
					parentKey := c.parentKey
					if parentKey == "" {
						parentKey = TokenRoot
					}
					t.Errorf("the child narrows %q to read with %q, but %s compiles to %s by %s", parentKey, childKey, c.probe, d.Access, rule)
				}
			})
		}
	}
	// Within one profile, two spellings of one path are refused like
	// "/srv/data" and "/srv/data/**" are (the control).
	for _, keys := range [][2]string{{"/srv/data", "/srv/data/**"}, {"/srv/data", ":root/srv/data"}, {"/tmp", ":slash_tmp"}} {
		p := &Profile{Name: "p", Filesystem: map[string]Access{keys[0]: AccessWrite, keys[1]: AccessRead}}
		errs := p.Validate()
		if len(errs) != 1 || !strings.Contains(errs[0].Error(), "the same") {
			t.Errorf("one profile with %q = write and %q = read: %v, want one 'the same' error", keys[0], keys[1], errs)
		}
	}
}
