package sandbox

import (
	"encoding/json"
	"errors"
	"testing"

	"turnstile/domain"
)

// TestAttack12TreeReadOfADeniedSubtree: a permission profile that denies a
// directory inside the workspace (ws/private = deny) or a glob of files in
// it ("**/*.env" = deny) refused read_file of what it denies, but a
// grep_files of the workspace, a read of the whole tree, was allowed: the
// tree check looked for sensitive paths below alone. Codex's grep_files
// runs rg over the tree (the names of the files whose content matches a
// pattern: an oracle on the denied content), and Claude Code's Grep, which
// the hook classifies as grep_files, prints the matching lines themselves.
// The control: a tree with nothing denied below it is read, and the denied
// files are refused one by one as before.
func TestAttack12TreeReadOfADeniedSubtree(t *testing.T) {
	ws := tempWorkspace(t)
	mkfiles(t, ws, map[string]string{"private/plan.txt": "the plan\n", "web/.env": "KEY=sk-secret\n", "src/a.go": "package a\n"})
	s := profileSnapshot(t, ws, map[string]domain.Access{ws + "/private": domain.AccessDeny, "**/*.env": domain.AccessDeny})
	resolve := func(p string, op domain.Access, tree bool) (string, error) {
		return DecisionChecker{}.ResolveFile(&s, p, op, tree)
	}
	decide := func(inv domain.Invocation) error {
		_, err := domain.ClassifyResolved(inv, s.Sandbox.Cwd, nil, resolve)
		return err
	}
	call := func(tool string, args map[string]any) domain.Invocation {
		raw, _ := json.Marshal(args)
		return domain.Invocation{ToolName: tool, Arguments: raw}
	}
	refused := func(err error) bool { var r CodedRefusal; return errors.As(err, &r) }
	// The premise: the denied files are refused one by one.
	for _, p := range []string{"private/plan.txt", "web/.env"} {
		if err := decide(call("read_file", map[string]any{"path": p})); !refused(err) {
			t.Fatalf("read_file %s: %v; the profile denies it", p, err)
		}
	}
	grep, err := domain.ClaudeCodeInvocation("Grep", json.RawMessage(`{"pattern": "sk-", "path": "`+ws+`", "output_mode": "content"}`), ws)
	if err != nil {
		t.Fatal(err)
	}
	for name, inv := range map[string]domain.Invocation{
		"grep_files of the workspace":  call("grep_files", map[string]any{"pattern": "plan"}),
		"grep_files of web":            call("grep_files", map[string]any{"path": "web", "pattern": "KEY"}),
		"Claude Code Grep of the root": grep,
	} {
		if err := decide(inv); !refused(err) {
			t.Errorf("%s: %v; it reads what the profile denies", name, err)
		}
	}
	// control: a tree with nothing denied below it.
	if err := decide(call("grep_files", map[string]any{"path": "src", "pattern": "package"})); err != nil {
		t.Errorf("control: grep_files of src refused: %v", err)
	}
}
