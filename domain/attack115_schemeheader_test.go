package domain

import (
	"strings"
	"testing"
)

// TestAttack115_SchemeHeaderShownWhole (medium, a leak of honest secrets):
// a header's value may begin with a scheme word and a space, which the
// header pattern hides with the credential ("Authorization: Basic x" is
// shown "Authorization: [redacted]", replaceClipped's scheme). Since a
// hidden value must be inert (redact_inert.go), a hidden part holding a
// blank is never inert, not even in a header's place (urlOrHeaderBefore
// lets only '/' and '+' through): the whole command is shown, nothing of
// it hidden. Every `curl -H "Authorization: Basic …"`, GitHub's documented
// `Authorization: token ghp_…`, `Proxy-Authorization: Basic …` and
// `Digest …` now puts the credential in clear in the approval request and
// the events' action records, and with it what REFERENCE §7 says never
// appears in clear in audit rows: a URL's query values and a path under
// ~/.ssh in the same command. The commit before the inert rule (273e05d)
// hid all of them.
// Control: the same commands with a Bearer credential (hidden by the
// bearer pattern alone, no blank in the hidden part) keep the credential,
// the query value and the ~/.ssh path hidden.
func TestAttack115_SchemeHeaderShownWhole(t *testing.T) {
	const basic = "dXNlcjpwYXNzd29yZA=="
	const ghp = "ghp_0123456789abcdefghijABCDEFGHIJ012345"
	const query = "Hn4kQ9wLx2PzR7tV"
	const key = ".ssh/client.key"
	cases := []struct {
		cmd     string
		secrets []string
	}{
		{`curl -H "Authorization: Basic ` + basic + `" https://api.example.com/v1/x`, []string{basic}},
		{`curl -H "Authorization: token ` + ghp + `" https://api.github.com/user`, []string{ghp}},
		{`curl -H "Proxy-Authorization: Basic ` + basic + `" https://api.example.com/v1/x`, []string{basic}},
		{`curl --key ~/` + key + ` -H "Authorization: Basic ` + basic + `" "https://api.example.com/v1/x?access_token=` + query + `"`, []string{basic, key, query}},
	}
	t.Run("control", func(t *testing.T) {
		for _, c := range cases {
			cmd := strings.NewReplacer("Basic ", "Bearer ", "token ", "Bearer ").Replace(c.cmd)
			for _, s := range []string{shownExec(t, map[string]any{"cmd": cmd}), attack42ShownBash(t, cmd), attack108ShownStdin(t, cmd+"\n")} {
				for _, sec := range c.secrets {
					if strings.Contains(s, sec) {
						t.Fatalf("control: %q shows %s:\n%s", cmd, sec, s)
					}
				}
			}
		}
	})
	for _, c := range cases {
		for view, s := range map[string]string{
			"exec_command":     shownExec(t, map[string]any{"cmd": c.cmd}),
			"Claude Code Bash": attack42ShownBash(t, c.cmd),
			"write_stdin":      attack108ShownStdin(t, c.cmd+"\n"),
		} {
			for _, sec := range c.secrets {
				if strings.Contains(s, sec) {
					t.Errorf("%s: %q\nshows the honest secret %s in clear (request and events):\n%s", view, c.cmd, sec, s)
				}
			}
		}
	}
}

// TestAttack115_SchemeHeaderEnvValue (medium): the same in an exec's
// environment. The way actions/checkout hands git its credential,
// GIT_CONFIG_COUNT=1, GIT_CONFIG_KEY_0=http.https://github.com/.extraheader,
// GIT_CONFIG_VALUE_0="AUTHORIZATION: basic …", is shown by name (GIT_*) and
// its value redacted as a shell command (envValueShown): the hidden part
// "basic …" holds a blank, is not inert, and the value is shown whole, the
// credential in clear (273e05d showed "AUTHORIZATION: [redacted]").
// Control: the same with a Bearer credential stays hidden.
func TestAttack115_SchemeHeaderEnvValue(t *testing.T) {
	const cred = "eC1hY2Nlc3MtdG9rZW46Z2hzXzEyMzQ1"
	env := func(scheme string) map[string]any {
		return map[string]any{"GIT_CONFIG_COUNT": "1", "GIT_CONFIG_KEY_0": "http.https://github.com/.extraheader",
			"GIT_CONFIG_VALUE_0": "AUTHORIZATION: " + scheme + " " + cred}
	}
	argv := []string{"git", "fetch", "origin"}
	if s := shownExec(t, map[string]any{"argv": argv, "env": env("bearer")}); strings.Contains(s, cred) {
		t.Fatalf("control: a bearer credential is shown:\n%s", s)
	}
	if s := shownExec(t, map[string]any{"argv": argv, "env": env("basic")}); strings.Contains(s, cred) {
		t.Errorf("an honest basic credential in GIT_CONFIG_VALUE_0 is shown in clear:\n%s", s)
	}
}
