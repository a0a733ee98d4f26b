package domain

import "testing"

// TestAttack14ProfileBraceSetDeny: a profile's glob keys are matched with
// path.Match, which has no brace sets, and a key holding one was accepted
// as a literal name: "**/*.{pem,key}" = "deny", the usual way to write
// "every .pem and .key file", denied only a file named "x.{pem,key}", so
// the agent read ws/certs/server.key in a turn whose profile the operator
// believed denied it (and "/ws/{secrets,private}" = "deny" denied neither
// directory). A key with a brace set is now a configuration error naming
// it, as a glob with read or write is. The control: the same denies
// written one key per alternative deny the files, and a key with a brace
// but no set ("/ws/{x}") is a literal path as before.
func TestAttack14ProfileBraceSetDeny(t *testing.T) {
	denied := profileDenies
	for _, tc := range []struct {
		key, path string
	}{
		{"**/*.{pem,key}", "/ws/certs/server.key"},
		{"/ws/{secrets,private}", "/ws/private/a.txt"},
		{":workspace_roots/{secrets,private}", "/ws/secrets/a.txt"},
	} {
		d, err := denied(map[string]Access{tc.key: AccessDeny}, tc.path)
		if err == nil && !d {
			t.Errorf("%q = deny compiled, and %s is not denied", tc.key, tc.path)
		}
	}
	// control
	for _, tc := range []struct {
		fs   map[string]Access
		path string
		deny bool
	}{
		{map[string]Access{"**/*.pem": AccessDeny, "**/*.key": AccessDeny}, "/ws/certs/server.key", true},
		{map[string]Access{"/ws/secrets": AccessDeny, "/ws/private": AccessDeny}, "/ws/private/a.txt", true},
		{map[string]Access{"/ws/{x}": AccessDeny}, "/ws/{x}/a", true},
		{map[string]Access{"/ws/{x}": AccessDeny}, "/ws/x/a", false},
	} {
		d, err := denied(tc.fs, tc.path)
		if err != nil || d != tc.deny {
			t.Errorf("control %v, %s: denied %v, %v", tc.fs, tc.path, d, err)
		}
	}
}
