package profilefile

import (
	"testing"

	"turnstile/domain"
)

// TestAttack98_ExtendsKeySpelling: a profile that extends another and
// narrows one of its parent's filesystem entries, writing the key in
// another of the spellings the README and the domain model call the same
// key ("a trailing /** means the subtree, which a path already is";
// ":project_roots" is the older name of ":workspace_roots"; Profile's
// Filesystem doc: "Keys are stored in their normalised form, so "/a/b/"
// and "/a/b" are the same key"), does not replace the parent's entry:
// flatten merges the chain by the key as written, so both rules are
// compiled, at the same pattern and specificity, and the tie goes to
// write (tieRank: write > read). The profile reads "these are read-only"
// and compiles to writable, and under :workspace's auto_accept_edits
// table its writes are allowed without asking anyone. Within one profile
// "/srv/data" and "/srv/data/**" are refused as "the same key"
// (Profile.validate); across extends nothing says so (turnstile profiles
// check passes the file).
//
// The control: the same child written with the parent's spelling is
// read-only, so the test fails only on the spelling.
func TestAttack98_ExtendsKeySpelling(t *testing.T) {
	const file = `
[permissions.base]
extends = ":read-only"
[permissions.base.filesystem]
"/srv/data" = "write"

# The same narrowing, three spellings the docs call the key "/srv/data".
[permissions.subtree]
extends = "base"
[permissions.subtree.filesystem]
"/srv/data/**" = "read"

[permissions.slash]
extends = "base"
[permissions.slash.filesystem]
"/srv/data/" = "read"

# A read-only reviewer over the :workspace built-in, whose roots are
# written: the roots' subtree, and the older name of the token.
[permissions.reviewer]
extends = ":workspace"
[permissions.reviewer.filesystem.":workspace_roots"]
"**" = "read"

[permissions.reviewer_old]
extends = ":workspace"
[permissions.reviewer_old.filesystem]
":project_roots" = "read"

# Controls: the parent's own spelling.
[permissions.control]
extends = "base"
[permissions.control.filesystem]
"/srv/data" = "read"

[permissions.reviewer_control]
extends = ":workspace"
[permissions.reviewer_control.filesystem]
":workspace_roots" = "read"
`
	f, err := Parse("profiles.toml", []byte(file))
	if err != nil {
		t.Fatalf("the file is refused, so nothing compiles wider: %v", err)
	}
	if len(f.Warnings) != 0 {
		t.Fatalf("warnings: %v", f.Warnings)
	}
	env := domain.ProfileEnv{Home: "/home/me", Cwd: "/home/me/code/app", WorkspaceRoot: "/home/me/code/app", TmpDir: "/tmp/t1"}
	check := func(profile, p string) domain.PathDecision {
		t.Helper()
		cp, err := domain.CompileProfile(f.Profiles, profile, env, nil)
		if err != nil {
			t.Fatalf("%s: %v", profile, err)
		}
		return cp.Explain(p)
	}
	// Controls: the honest spelling narrows the parent's write to read.
	for _, c := range [][2]string{{"control", "/srv/data/report.csv"}, {"reviewer_control", "/home/me/code/app/main.go"}} {
		if d := check(c[0], c[1]); d.Access != domain.AccessRead {
			t.Fatalf("control %s: %s is %s by %+v, want read", c[0], c[1], d.Access, d.Rule)
		}
	}
	for _, c := range [][2]string{
		{"subtree", "/srv/data/report.csv"},
		{"slash", "/srv/data/report.csv"},
		{"reviewer", "/home/me/code/app/main.go"},
		{"reviewer_old", "/home/me/code/app/main.go"},
	} {
		if d := check(c[0], c[1]); d.Access != domain.AccessRead {
			t.Errorf("profile %s says read-only, but %s compiles to %s by the parent's rule %+v", c[0], c[1], d.Access, d.Rule)
		}
	}
}
