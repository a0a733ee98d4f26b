package domain

import (
	"encoding/json"
	"testing"
)

// TestAttack9DecisionWorkdirThroughALink: the ninth review. The seventh
// fixed /exec: its working directory is resolved as the kernel resolves it
// before it is shown, bound and run. A decision (the decisions API, the
// Claude Code hook), which a runtime runs itself, still judged exec_command's
// workdir lexically, never through the path resolver: with lnk a link to
// /home/u/proj/sub, {"cmd":"rm -rf *","workdir":"lnk/.."} was shown as run
// in the workspace, had the scope of {"cmd":"rm -rf *"} there, and an
// allow_for_turn of that covered it, while the kernel ran it in /home/u/proj.
func TestAttack9DecisionWorkdirThroughALink(t *testing.T) {
	resolve := func(raw string, op Access, tree bool) (string, error) {
		if raw == "lnk/.." || raw == "/w/lnk/.." {
			return "/home/u/proj", nil // lnk -> /home/u/proj/sub
		}
		return ResolvePath("/w", raw), nil
	}
	classify := func(args string) Action {
		a, err := ClassifyResolved(Invocation{ToolName: "exec_command", Arguments: json.RawMessage(args)}, "/w", nil, resolve)
		if err != nil {
			t.Fatal(err)
		}
		return a
	}
	// Since the twelfth review a workdir whose ".." leads elsewhere when it
	// is applied first (as Codex does) than after its links (the kernel)
	// is refused: the runtime may take either.
	here := classify(`{"cmd":"rm -rf *"}`)
	there, err := ClassifyResolved(Invocation{ToolName: "exec_command", Arguments: json.RawMessage(`{"cmd":"rm -rf *","workdir":"lnk/.."}`)}, "/w", nil, resolve)
	if cwd, _ := there.Scope.Get("cwd"); err == nil && (cwd != "/home/u/proj" || here.ScopeHash == there.ScopeHash) {
		t.Errorf("workdir lnk/.. judged in %q (the same scope as in the workspace: %v); the kernel runs it in /home/u/proj", cwd, here.ScopeHash == there.ScopeHash)
	}
	// control: a plain workdir is the same whichever way it is written.
	if a, b := classify(`{"cmd":"make","workdir":"sub"}`), classify(`{"cmd":"make","workdir":"/w/sub/"}`); a.ScopeHash != b.ScopeHash {
		t.Error("control: sub and /w/sub/ have different scopes")
	}
}
