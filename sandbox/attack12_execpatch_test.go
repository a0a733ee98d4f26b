package sandbox

import (
	"encoding/json"
	"os"
	"testing"

	"turnstile/domain"
)

// TestAttack12ExecApplyPatchRefused: an exec_command that Codex applies as
// a patch itself ("apply_patch <<'EOF' … EOF") writing the workspace's
// protected .envrc is refused by the production decision checker as the
// apply_patch tool's write of it is (it was judged a shell command alone:
// allowed where shell commands are, and Codex wrote .envrc outside any
// mask). The control: the same command patching README is judged, allowed,
// as a write of README.
func TestAttack12ExecApplyPatchRefused(t *testing.T) {
	ws := tempWorkspace(t) + "/ws"
	mustDo(t, os.MkdirAll(ws, 0o755))
	s := snapshotFor(t, domain.ModeAutoAcceptEdits, ws, domain.KernelFeatures{LandlockABI: 7, Seccomp: true})
	classify := func(tool string, args map[string]any) (domain.Action, error) {
		raw, _ := json.Marshal(args)
		return domain.ClassifyResolved(domain.Invocation{ToolName: tool, Arguments: raw}, s.Sandbox.Cwd, nil, func(p string, op domain.Access, tree bool) (string, error) {
			return DecisionChecker{}.ResolveFile(s, p, op, tree)
		})
	}
	patch := func(name string) string { return "*** Begin Patch\n*** Add File: " + name + "\n+x\n*** End Patch\n" }
	if _, err := classify("apply_patch", map[string]any{"patch": patch(".envrc")}); err == nil {
		t.Fatal("apply_patch of .envrc allowed: the premise does not hold")
	}
	if a, err := classify("exec_command", map[string]any{"cmd": "apply_patch <<'EOF'\n" + patch(".envrc") + "EOF"}); err == nil {
		t.Errorf("exec_command apply_patch of .envrc allowed as %s writing %+v", a.Kind, a.Files)
	}
	a, err := classify("exec_command", map[string]any{"cmd": "apply_patch <<'EOF'\n" + patch("README") + "EOF"})
	if err != nil || len(a.Files) != 1 || a.Files[0].Path != ws+"/README" {
		t.Errorf("control: %+v %v", a.Files, err)
	}
}
