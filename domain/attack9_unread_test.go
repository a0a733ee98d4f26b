package domain

import (
	"errors"
	"strings"
	"testing"
)

// TestAttack9UnreadArgumentsShareAGrant: the ninth review. exec_command,
// web_fetch and download_url bind in their scope only the arguments the
// classifier reads; any other was neither hashed nor shown. Codex's
// exec_command takes sandbox_permissions ("require_escalated": run without
// its sandbox), shell, login and prefix_rule; an HTTP tool takes headers
// and a body. An allow_for_turn of {"cmd":"make"} covered {"cmd":"make",
// "sandbox_permissions":"require_escalated"} and {"cmd":"make","shell":
// "/w/evil"}, and the person asked saw "Run make" for each.
func TestAttack9UnreadArgumentsShareAGrant(t *testing.T) {
	for _, c := range []struct{ tool, base, other, shown string }{
		{"exec_command", `{"cmd":"make"}`, `{"cmd":"make","sandbox_permissions":"require_escalated"}`, "require_escalated"},
		{"exec_command", `{"cmd":"make"}`, `{"cmd":"make","shell":"/w/evil"}`, "/w/evil"},
		{"exec_command", `{"cmd":"make"}`, `{"cmd":"make","login":true}`, "login"},
		{"web_fetch", `{"url":"https://api.example.com/issues","method":"POST"}`, `{"url":"https://api.example.com/issues","method":"POST","body":"{\"title\":\"pwned\"}"}`, "pwned"},
		{"download_url", `{"url":"https://example.com/x.sh","destination":"x.sh"}`, `{"url":"https://example.com/x.sh","destination":"x.sh","mode":"0755"}`, "0755"},
	} {
		a, err := Classify(Invocation{ToolName: c.tool, Arguments: []byte(c.base)}, "/w", nil)
		if err != nil {
			t.Fatal(err)
		}
		b, err := Classify(Invocation{ToolName: c.tool, Arguments: []byte(c.other)}, "/w", nil)
		var fe *FieldError
		if errors.As(err, &fe) {
			continue // refused
		}
		if err != nil {
			t.Fatal(err)
		}
		shown := b.Summary
		for _, d := range b.Details {
			shown += "\n" + d.Value
		}
		if a.ScopeHash == b.ScopeHash || !strings.Contains(shown, c.shown) {
			t.Errorf("%s: %s and %s: same scope %v, shown %q", c.tool, c.base, c.other, a.ScopeHash == b.ScopeHash, shown)
		}
	}
	// control: the same call written another way keeps its grant.
	a, _ := Classify(Invocation{ToolName: "exec_command", Arguments: []byte(`{"cmd":"make"}`)}, "/w", nil)
	b, _ := Classify(Invocation{ToolName: "exec_command", Arguments: []byte(`{"workdir":".","cmd":"make"}`)}, "/w", nil)
	if a.ScopeHash == "" || a.ScopeHash != b.ScopeHash {
		t.Errorf("control: make and make in . have different scopes")
	}
}
