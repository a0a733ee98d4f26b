package domain

import "testing"

// TestAttack49RootsVouchForEachOther: capRoots' second pass lowers a
// root's rule when the profile's OTHER rules (every rule not expanded from
// the same root) decide less at its path, and repeats "until nothing
// changes" - starting from every root's rule uncapped. Two roots the
// runtime names can therefore vouch for each other: root A's subpath write
// key (":workspace_roots/workflows" = "write", in the fix's own test
// profile) lands exactly at root B, so at B the "other rules" hold A's
// write, as specific as the profile's read and winning the tie; at A's
// subpath the other rules hold B's bare write. Neither is ever lowered, and
// the profile's absolute read-only tree ("/srv" = write, "/srv/ro" =
// read) is writable at <ro>/ci/workflows. Each root alone is capped to
// read. The same pair inside the profile's glob deny ("**/private") makes
// <repo>/app/private/workflows readable and writable.
//
// Controls: the same profile keeps /srv/ro/ci/workflows read for a
// turn rooted at either directory alone, and /srv/app (in the writable
// /srv) keeps write.
func TestAttack49RootsVouchForEachOther(t *testing.T) {
	dev := &Profile{Name: "dev", Extends: BuiltinWorkspace, Filesystem: map[string]Access{
		":workspace_roots":                   AccessWrite,
		":workspace_roots/secrets":           AccessDeny,
		":workspace_roots/.github/workflows": AccessRead,
		":workspace_roots/workflows":         AccessWrite,
		"**/private":                         AccessDeny,
		"/srv":                               AccessWrite,
		"/srv/ro":                            AccessRead,
	}}
	set := ProfileSet{"dev": dev}
	const target = "/srv/ro/ci/workflows/release.yml"
	explain := func(ws string, prs ...string) PathDecision {
		cp, err := CompileProfile(set, "dev", ProfileEnv{WorkspaceRoot: ws, Cwd: ws, ProjectRoots: prs}, nil)
		if err != nil {
			t.Fatal(err)
		}
		return cp.Explain(target)
	}
	// Controls.
	if d := explain("/srv/ro/ci"); d.Access != AccessRead {
		t.Fatalf("control: rooted at /srv/ro/ci: %s", d.Access)
	}
	if d := explain("/srv/ro/ci/workflows"); d.Access != AccessRead {
		t.Fatalf("control: rooted at /srv/ro/ci/workflows: %s", d.Access)
	}
	cp, err := CompileProfile(set, "dev", ProfileEnv{WorkspaceRoot: "/srv/app", Cwd: "/srv/app"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if d := cp.Explain("/srv/app/main.go"); d.Access != AccessWrite {
		t.Fatalf("control: /srv/app: %s", d.Access)
	}
	// The attack: both roots at once.
	if d := explain("/srv/ro/ci", "/srv/ro/ci/workflows"); d.Access != AccessRead {
		key := ""
		if d.Rule != nil {
			key = d.Rule.Key + " at " + d.Rule.Pattern
		}
		t.Errorf("roots /srv/ro/ci and /srv/ro/ci/workflows together: %s is %s (rule %s), want read", target, d.Access, key)
	}
	// The same pair inside the glob deny "**/private".
	const secret = "/w/app/private/workflows/deploy.key"
	for _, roots := range [][]string{{"/w", "/w/app/private/workflows"}, {"/w", "/w/app/private", "/w/app/private/workflows"}} {
		cp, err := CompileProfile(set, "dev", ProfileEnv{WorkspaceRoot: roots[0], Cwd: roots[0], ProjectRoots: roots[1:]}, nil)
		if err != nil {
			t.Fatal(err)
		}
		d := cp.Explain(secret)
		if len(roots) == 2 && d.Access != AccessDeny {
			t.Fatalf("control: the project root inside **/private alone: %s is %s", secret, d.Access)
		}
		if d.Access != AccessDeny {
			t.Errorf("roots %v: %s is %s, want deny (**/private)", roots, secret, d.Access)
		}
	}
}
