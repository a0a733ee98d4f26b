package domain

import "testing"

// TestAttack15ProfileBraceSetAfterBrace: a profile's key with a brace set
// is refused (f6063c0), but the check looked at the first '{' of a
// component alone: "**/${APP}.{pem,key}" or "/ws/{x}{secrets,private}" = "deny",
// whose first brace holds no comma, compiled, and path.Match read the set
// as literal characters, so that the operator's deny of server.pem and
// server.key denied neither and the agent read them. Every brace is looked
// at now. The controls: braces without a comma, before and after each
// other, are literal names as before, and the keys one per alternative
// deny the file.
func TestAttack15ProfileBraceSetAfterBrace(t *testing.T) {
	denied := profileDenies
	for _, tc := range []struct{ key, path string }{
		{"/ws/{x}{secrets,private}", "/ws/{x}private/a.txt"},
		{"**/${APP}.{pem,key}", "/ws/${APP}.key"},
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
		{map[string]Access{"/ws/{x}{y}": AccessDeny}, "/ws/{x}{y}/a", true},
		{map[string]Access{"/ws/}{x}": AccessDeny}, "/ws/}{x}/a", true},
		{map[string]Access{"**/{x}.pem": AccessDeny, "**/{x}.key": AccessDeny}, "/ws/{x}.key", true},
	} {
		d, err := denied(tc.fs, tc.path)
		if err != nil || d != tc.deny {
			t.Errorf("control %v, %s: denied %v, %v", tc.fs, tc.path, d, err)
		}
	}
}
