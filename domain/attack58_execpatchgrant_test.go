package domain

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

// TestAttack58ExecPatchGrantFollowsLink: an allow_for_turn grant of a
// Codex exec_command that Codex applies as a patch itself ("apply_patch
// <<'EOF' … EOF": a file_write of each file the patch names, judged on the
// paths as resolved through their links) covers the same command after a
// link on the way has been re-pointed: the patch then writes another file
// than the one the person was shown, and the call is allowed
// (cached_approval) without anyone being asked.
//
// Why: exec (domain/classify.go) puts the command, argv, cwd, tty, timeout
// and bindings in the scope, but not the resolved files of the patch it
// judges (c.a.Files, filled from execPatch's names through the resolver).
// apply_patch's scope (classifier.patch) holds the resolved "path"/"paths",
// so the same patch through the apply_patch tool asks again once the link
// leads elsewhere (the README: "Every path rule (roots, allowed_paths,
// grants, the scope hash) applies to the resolved path"). The grant key
// (Evaluate, GrantFor) is mode, tool, action and scope hash only, so the
// exec grant is one for the command text, whatever files it writes.
//
// Scenario (supervised: file_write asks, shell_command asks): the agent
// runs `apply_patch <<'EOF' *** Add File: docs/ci.yml …` through
// exec_command; the person is shown "File /work/repo/docs/ci.yml" and
// answers allow_for_turn. docs then becomes a link to .github/workflows (a
// checkout of a branch that has it so, a command the person allowed once,
// another process); the agent repeats the command, Codex writes
// .github/workflows/ci.yml (CI with the repository's secrets), and the
// decision is allow, cached. The resolver here stands for the server's
// (sandbox.DecisionChecker.ResolveFile), which follows the link.
//
// Control: the same patch through the apply_patch tool has another scope
// hash once the link is re-pointed, and asks; the exec call without a
// grant asks.
//
// Severity: medium (a write the policy says must be asked, to a file no
// person was shown, inside the roots the resource checks still allow).
func TestAttack58ExecPatchGrantFollowsLink(t *testing.T) {
	snap := testSnapshot(t, ModeSupervised)
	cwd := snap.Sandbox.Cwd
	patch := "*** Begin Patch\n*** Add File: docs/ci.yml\n+on: push\n*** End Patch\n"
	plain := func(raw string, _ Access, _ bool) (string, error) { return ResolvePath(cwd, raw), nil }
	relinked := func(raw string, _ Access, _ bool) (string, error) {
		p := ResolvePath(cwd, raw)
		if rest, ok := strings.CutPrefix(p, cwd+"/docs"); ok {
			return cwd + "/.github/workflows" + rest, nil // docs -> .github/workflows
		}
		return p, nil
	}
	classify := func(tool string, args map[string]any, resolve PathResolver) Action {
		t.Helper()
		raw, _ := json.Marshal(args)
		a, err := ClassifyResolved(Invocation{ToolName: tool, Arguments: raw}, cwd, nil, resolve)
		if err != nil {
			t.Fatalf("%s: %v", tool, err)
		}
		return a
	}
	wrote := func(a Action, p string) bool { return slices.Contains(a.Files, FileOp{Path: p, Access: AccessWrite}) }
	shown, target := cwd+"/docs/ci.yml", cwd+"/.github/workflows/ci.yml"

	// Control: the apply_patch tool binds the resolved path.
	patchArgs := map[string]any{"patch": patch}
	p1, p2 := classify("apply_patch", patchArgs, plain), classify("apply_patch", patchArgs, relinked)
	if !wrote(p1, shown) || !wrote(p2, target) {
		t.Fatalf("control: apply_patch files %+v then %+v", p1.Files, p2.Files)
	}
	grants := GrantSet{GrantFor(snap.PermissionProfile.Mode, &p1): {}}
	if d := Evaluate(&snap, &p2, grants); d.Behavior != BehaviorAsk {
		t.Fatalf("control: apply_patch through the re-pointed link: %s %s, want ask", d.Behavior, d.Reason)
	}

	// The attack: the same patch applied by Codex from exec_command.
	execArgs := map[string]any{"cmd": "apply_patch <<'EOF'\n" + patch + "EOF\n"}
	e1 := classify("exec_command", execArgs, plain)
	if !wrote(e1, shown) || e1.Also != ActionFileWrite {
		t.Fatalf("control: exec_command judged %+v (%s)", e1.Files, e1.Also)
	}
	if d := Evaluate(&snap, &e1, nil); d.Behavior != BehaviorAsk {
		t.Fatalf("control: the exec patch without a grant: %s, want ask", d.Behavior)
	}
	grants = GrantSet{GrantFor(snap.PermissionProfile.Mode, &e1): {}}
	e2 := classify("exec_command", execArgs, relinked)
	if !wrote(e2, target) || wrote(e2, shown) {
		t.Fatalf("the re-pointed call judged %+v", e2.Files)
	}
	if d := Evaluate(&snap, &e2, grants); d.Behavior != BehaviorAsk {
		t.Errorf("the grant of the exec patch writing %s allowed it writing %s (%s, %s, scope hash equal: %v): "+
			"the exec scope does not bind the resolved files of the patch Codex applies", shown, target, d.Behavior, d.Reason, e1.ScopeHash == e2.ScopeHash)
	}
}
