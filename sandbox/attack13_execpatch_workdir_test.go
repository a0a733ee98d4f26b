package sandbox

import (
	"encoding/json"
	"os"
	"testing"

	"turnstile/domain"
)

// TestAttack13ExecApplyPatchWorkdirLink: Codex resolves exec_command's
// workdir with AbsolutePathBuf, lexically, and joins the names of a patch
// it applies itself to that: with workdir "lnk" (a link the agent made to
// a/b) and "*** Add File: ../.envrc", Codex wrote ws/lnk/../.envrc, that is
// the workspace's protected ws/.envrc. The classifier joined the names to
// the workdir it had resolved through the link (ws/a/b), so both ways of
// reading the '..' led to ws/a/.envrc, which was allowed. The control: the
// same patch from a workdir that is no link, and a name without '..'
// through the link, are judged as before.
func TestAttack13ExecApplyPatchWorkdirLink(t *testing.T) {
	ws := tempWorkspace(t) + "/ws"
	mustDo(t, os.MkdirAll(ws+"/a/b", 0o755))
	mustDo(t, os.Symlink("a/b", ws+"/lnk"))
	s := snapshotFor(t, domain.ModeAutoAcceptEdits, ws, domain.KernelFeatures{LandlockABI: 7, Seccomp: true})
	classify := func(args map[string]any) (domain.Action, error) {
		raw, _ := json.Marshal(args)
		return domain.ClassifyResolved(domain.Invocation{ToolName: "exec_command", Arguments: raw}, s.Sandbox.Cwd, nil, func(p string, op domain.Access, tree bool) (string, error) {
			return DecisionChecker{}.ResolveFile(s, p, op, tree)
		})
	}
	patch := func(name string) string {
		return "apply_patch <<'EOF'\n*** Begin Patch\n*** Add File: " + name + "\n+x\n*** End Patch\nEOF"
	}
	if _, err := classify(map[string]any{"cmd": patch(".envrc")}); err == nil {
		t.Fatal("exec apply_patch of .envrc allowed: the premise does not hold")
	}
	if a, err := classify(map[string]any{"cmd": patch("../.envrc"), "workdir": "lnk"}); err == nil {
		t.Errorf("workdir lnk, ../.envrc: allowed as a write of %+v; Codex writes %s/lnk/../.envrc = %s/.envrc", a.Files, ws, ws)
	}
	// control
	a, err := classify(map[string]any{"cmd": patch("../x.txt"), "workdir": "a/b"})
	if err != nil || len(a.Files) != 1 || a.Files[0].Path != ws+"/a/x.txt" {
		t.Errorf("control: workdir a/b, ../x.txt: %+v %v", a.Files, err)
	}
	a, err = classify(map[string]any{"cmd": patch("x.txt"), "workdir": "lnk"})
	if err != nil || len(a.Files) != 1 || a.Files[0].Path != ws+"/a/b/x.txt" {
		t.Errorf("control: workdir lnk, x.txt: %+v %v", a.Files, err)
	}
}
