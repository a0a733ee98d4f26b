package domain

import "testing"

func TestGlobDenyBelow(t *testing.T) {
	rules := []PathRule{
		{Pattern: "/w/**/secrets/*.pem", Glob: true, Access: AccessDeny},
		{Pattern: "/w/vault/**", Glob: true, Access: AccessDeny},
		{Pattern: "/w/**/open/*", Glob: true, Access: AccessWrite},
		{Pattern: "/w/**/keys/**/*.pem", Glob: true, Access: AccessDeny},
		{Pattern: "/w/**/*.env", Glob: true, Access: AccessDeny},
	}
	for p, want := range map[string]bool{
		"/w/secrets":          true,
		"/w/a/b/secrets":      true,
		"/w/vault":            true,
		"/w/vault/x":          false, // matched by the rule itself
		"/w":                  true,
		"/w/a":                false, // only ** matched a
		"/w/a/b.pem":          false,
		"/w/secrets/prod.pem": false,
		"/w/a/open":           false, // a write rule
		"/x/secrets":          false,
		"/w/keys/sub":         true,  // below keys, through **
		"/w/a/b":              false, // "/w/**/*.env": only ** leads there
	} {
		if got := GlobDenyBelow(rules, p); got != want {
			t.Errorf("GlobDenyBelow(%s) = %v, want %v", p, got, want)
		}
	}
}
