package domain

import "testing"

// TestAttack16ProfileBraceSetAcrossSlash: a profile's key with a brace set
// is refused (f6063c0, 37e21f7), but each component was looked at on its
// own, so a set whose alternatives hold a '/' ("/ws/{secrets,private/keys}",
// "**/{.env,config/secrets.json}") had no component holding both braces:
// the key compiled as the literal names "{secrets,private" and "keys}"
// (no '*', '?' or '[' made it a glob), and the operator's deny of
// /ws/private/keys and config/secrets.json denied neither, which the agent
// read. A brace set is looked for across the whole key now. The controls:
// braces without a comma between them across components are literal names
// as before, and the keys one per alternative deny the files.
func TestAttack16ProfileBraceSetAcrossSlash(t *testing.T) {
	for _, tc := range []struct{ key, path string }{
		{"/ws/{secrets,private/keys}", "/ws/private/keys/id.pem"},
		{"**/{.env,config/secrets.json}", "/ws/app/config/secrets.json"},
		{"/ws/{a/x,b}/*.pem", "/ws/a/x/k.pem"},
	} {
		d, err := profileDenies(map[string]Access{tc.key: AccessDeny}, tc.path)
		if err == nil && !d {
			t.Errorf("%q = deny compiled, and %s is not denied", tc.key, tc.path)
		}
	}
	// control
	for _, tc := range []struct {
		fs   map[string]Access
		path string
	}{
		{map[string]Access{"/ws/{x/y}/a,b}": AccessDeny}, "/ws/{x/y}/a,b}/f"},
		{map[string]Access{"/ws/a,{b/c}": AccessDeny}, "/ws/a,{b/c}/f"},
		{map[string]Access{"/ws/secrets": AccessDeny, "/ws/private/keys": AccessDeny}, "/ws/private/keys/id.pem"},
		{map[string]Access{"**/.env": AccessDeny, "**/config/secrets.json": AccessDeny}, "/ws/app/config/secrets.json"},
	} {
		if d, err := profileDenies(tc.fs, tc.path); err != nil || !d {
			t.Errorf("control %v, %s: denied %v, %v", tc.fs, tc.path, d, err)
		}
	}
}
