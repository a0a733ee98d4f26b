package domain

import (
	"strings"
	"testing"
)

// TestAttack108_WholeShowsKnownToken: a false show the plain-command rule
// brought (a923763). An honest, common command that calls an API with a
// real token and formats the answer, `curl -H 'Authorization: Bearer
// ghp_…' https://api.github.com/user | jq -c .` (or `| python3 -m
// json.tool`, `| head -c 200`), is judged not plain: "-c" is "a short
// option holding c" (namesCode), python3 is a code reader fed by a pipe
// (feedsCode). The approval request then shows the token whole, of a
// known shape (ghp_), which it hid before the rule. The pipe carries curl's output, not the token:
// nothing of the text becomes what runs. Control: the same command into
// `jq .` hides the token.
func TestAttack108_WholeShowsKnownToken(t *testing.T) {
	tok := "ghp_" + "aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5"
	call := "curl -s -H 'Authorization: Bearer " + tok + "' https://api.github.com/user | "
	if s := shownExec(t, map[string]any{"cmd": call + "jq ."}); strings.Contains(s, tok) {
		t.Fatalf("control: the command into jq . shows the token:\n%s", s)
	}
	for _, tail := range []string{"jq -c .", "python3 -m json.tool", "head -c 200"} {
		if s := shownExec(t, map[string]any{"cmd": call + tail}); strings.Contains(s, tok) {
			t.Errorf("an honest %q shows a GitHub token whole:\n%s", call+tail, s)
		}
		if s := attack42ShownBash(t, call+tail); strings.Contains(s, tok) {
			t.Errorf("Claude Code Bash %q shows a GitHub token whole:\n%s", call+tail, s)
		}
	}
}
