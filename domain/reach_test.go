package domain

import "testing"

// TestRestrictsReachSystemOnly (the eighty-sixth review): an operator's
// required_deny makes full_access compile as a sandbox that is not
// unrestricted, yet the profile restricts nothing of its own, so a
// command a CLI runtime runs is not held to more than a full_access
// turn's: RestrictsReach is false. Controls: a profile that adds a rule of
// its own beside the same constraint (a read-only /etc, a deny) restricts
// reach; so does read_only; full_access without constraints does not.
func TestRestrictsReachSystemOnly(t *testing.T) {
	cons := &Constraints{RequiredDeny: []string{"/home/u/.ssh"}}
	cat := &ProfileCatalog{Home: "/home/u", Constraints: cons, Profiles: ProfileSet{
		"etc-ro": {Name: "etc-ro", Extends: BuiltinDangerFullAccess, Filesystem: map[string]Access{"/etc": AccessRead}},
		"deny":   {Name: "deny", Extends: BuiltinDangerFullAccess, Filesystem: map[string]Access{"/srv/secret": AccessDeny}},
	}}
	in := SnapshotInputs{WorkspaceRoot: "/work/a", Cwd: "/work/a", ExecutionBackend: BackendClaudeCLI}
	for _, c := range []struct {
		req  ProfileRequest
		cat  *ProfileCatalog
		want bool
	}{
		{ProfileRequest{Mode: ModeFullAccess}, &ProfileCatalog{Home: "/home/u"}, false},
		{ProfileRequest{Mode: ModeFullAccess}, cat, false},
		{ProfileRequest{Profile: BuiltinDangerFullAccess}, cat, false},
		{ProfileRequest{Profile: "etc-ro"}, cat, true},
		{ProfileRequest{Profile: "deny"}, cat, true},
		{ProfileRequest{Mode: ModeSupervised}, cat, true},
	} {
		s, err := SelectSnapshot(&c.req, c.cat, SourceComposer, in)
		if err != nil {
			t.Fatalf("%+v: %v", c.req, err)
		}
		if got := s.RestrictsReach(); got != c.want {
			t.Errorf("%+v (constraints %v): RestrictsReach = %v, want %v (sandbox %s)", c.req, c.cat.Constraints != nil, got, c.want, s.Sandbox.Mode)
		}
	}
}
