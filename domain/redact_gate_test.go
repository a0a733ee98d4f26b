package domain

import (
	"strings"
	"testing"

	"pgregory.net/rapid"
)

// redactFragments are pieces of secrets, option names, URLs and separators
// that the property below strings together, so that most generated texts
// hold several patterns' needles and many hold real matches.
var redactFragments = []string{
	"--password", "--Passwd", "-p", "TOKEN", "token", "api_key", "Api-Key", "ACCESS_KEY", "secret", "credential",
	"=", ":", " ", "'", "\"", "&", ";", ",", "(", ")", "?", "/", "-", "-u", "--user", "alice:hunter2",
	"Authorization", "proxy-authorization", "Cookie", "set-cookie", "Bearer", "bearer",
	"https://", "http://user:pw@host/x?token=abc&k=v", "ftp://", "://",
	"ghp_0123456789abcdefABCDEF", "github_pat_0123456789abcdef_x", "sk-0123456789abcdefXYZ", "xoxb-12345678-abc",
	"AKIA0123456789ABCDEF", "ASIAABCDEFGHIJKLMNOP", "eyJhbGciOi.eyJzdWIiOi.sig", "glpat-0123456789abcdefghij",
	"npm_0123456789abcdefghijklmnopqrstuvwx", "AIza0123456789abcdefghijklmnopqrstuv",
	"sk_live_0123456789abcdefXYZ", "rk_test_0123456789abcdefXYZ", "hf_0123456789abcdefghijklmnopqrstuvwx",
	"SG.0123456789abcdefXY.0123456789abcdefXY", "pypi-" + strings.Repeat("AgEIcHlwaS5vcmc", 4),
	"dop_v1_" + strings.Repeat("0123456789abcdef", 4), "shpat_0123456789abcdef0123456789abcdef",
	"src/main.go", "{\"path\":\"/work/src/main.go\"}", "go test ./...", "x", "value", "\n", "\t",
	`{"kty":"oct","k":"`, `"d"`, `"dp":`, `\"qi\":\"`, "GawgguFyGrWKav7AX4VKUg", `"`, `\"`, `"pq"`,
}

// TestRedactGatesChangeNothing: the gates only skip patterns that cannot
// match, so redacting with them equals running every pattern, for texts
// made of the fragments the patterns look for (and the fixed cases of
// TestRedactSecretsInCommands, via RedactSecrets).
func TestRedactGatesChangeNothing(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		parts := rapid.SliceOfN(rapid.SampledFrom(redactFragments), 1, 12).Draw(t, "parts")
		s := strings.Join(parts, "")
		want := redactGated(s, allGates, nil, false)
		if got := redactGated(s, gatesOf(s), nil, false); got != want {
			t.Fatalf("%q: gated %q, every pattern %q", s, got, want)
		}
		// RedactSecrets runs the patterns on each line on its own.
		// RedactSecrets reads which variables the whole text exposes
		// (exposedVars) once, for every line.
		lines := strings.Split(s, "\n")
		exposed := func() map[string]bool {
			if strings.IndexByte(s, '=') < 0 {
				return nil
			}
			return exposedVars(s)
		}
		for i, line := range lines {
			lines[i] = redactGated(line, allGates, exposed, false)
		}
		want = strings.Join(lines, "\n")
		if got := RedactSecrets(s); got != want {
			t.Fatalf("%q: RedactSecrets %q, every pattern %q", s, got, want)
		}
	})
	// Control: the gates do skip patterns on an ordinary path and scope.
	for _, s := range []string{"src/main.go", `{"path":"/work/src/main.go"}`} {
		if g := gatesOf(s); g.header || g.assign || g.option || g.user || g.bearer || g.token {
			t.Fatalf("%q: gates %+v, want every regexp skipped", s, g)
		}
	}
	// A GitHub fine-grained token on its own holds none of the old filter's
	// needles ("gh" is not in "github_pat_"): it went through unredacted.
	if got := RedactSecrets("github_pat_0123456789abcdef_x"); got != "[redacted]" {
		t.Fatalf("github_pat_ alone: %q", got)
	}
	// And they do not skip one that matches.
	if got := RedactSecrets("curl -H 'Authorization: Bearer abcdef123' -u bob:pw --api-key=k1"); strings.Contains(got, "abcdef123") || strings.Contains(got, "pw") || strings.Contains(got, "k1") {
		t.Fatalf("a secret survived: %q", got)
	}
}
