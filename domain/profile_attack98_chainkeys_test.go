package domain

import (
	"slices"
	"strings"
	"testing"
)

// TestProfileChainMergesSpellings: along an extends chain a child's entry
// replaces its parent's however either key is written (the ninety-eighth
// review): a workspace root removed as "/srv/a/" and a socket refused as
// "/run/x//s.sock" are removed and refused; the same spellings as the
// parent's (the controls) do the same. Within one profile two spellings of
// one key are refused.
func TestProfileChainMergesSpellings(t *testing.T) {
	env := ProfileEnv{Home: "/home/me", Cwd: "/w", WorkspaceRoot: "/w"}
	parent := &Profile{Name: "parent", Extends: BuiltinWorkspace,
		WorkspaceRoots: map[string]bool{"/srv/a": true},
		Network:        ProfileNetwork{UnixSockets: map[string]bool{"/run/x/s.sock": true}}}
	for _, c := range []struct{ root, sock string }{{"/srv/a", "/run/x/s.sock"}, {"/srv/a/", "/run/x//s.sock"}} {
		child := &Profile{Name: "child", Extends: "parent",
			WorkspaceRoots: map[string]bool{c.root: false},
			Network:        ProfileNetwork{UnixSockets: map[string]bool{c.sock: false}}}
		cp, err := CompileProfile(ProfileSet{"parent": parent, "child": child}, "child", env, nil)
		if err != nil {
			t.Fatal(err)
		}
		if slices.Contains(cp.WorkspaceRoots, "/srv/a") {
			t.Errorf("child removes %q: roots still %v", c.root, cp.WorkspaceRoots)
		}
		if slices.Contains(cp.Network.UnixSockets, "/run/x/s.sock") {
			t.Errorf("child refuses %q: sockets still %v", c.sock, cp.Network.UnixSockets)
		}
	}
	// Control: the parent alone keeps both.
	cp, err := CompileProfile(ProfileSet{"parent": parent}, "parent", env, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(cp.WorkspaceRoots, "/srv/a") || !slices.Contains(cp.Network.UnixSockets, "/run/x/s.sock") {
		t.Fatalf("control: parent's roots %v, sockets %v", cp.WorkspaceRoots, cp.Network.UnixSockets)
	}
	for _, p := range []*Profile{
		{Name: "p", Filesystem: map[string]Access{":project_roots": AccessWrite, ":workspace_roots": AccessRead}},
		{Name: "p", WorkspaceRoots: map[string]bool{"/srv/a": true, "/srv/a/": false}},
		{Name: "p", Network: ProfileNetwork{UnixSockets: map[string]bool{"/run/s.sock": true, "/run//s.sock": false}}},
	} {
		errs := p.Validate()
		if len(errs) != 1 || !strings.Contains(errs[0].Error(), "the same") {
			t.Errorf("%+v: %v, want one 'the same' error", p, errs)
		}
	}
}
