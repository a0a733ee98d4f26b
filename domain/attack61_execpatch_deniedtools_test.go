package domain

import (
	"encoding/json"
	"testing"
)

// TestAttack61ExecPatchEscapesDeniedTools — severity: low.
//
// The attack: a profile denies the tool apply_patch (denied_tools:
// ["apply_patch"], or an allowed_tools list without it) and allows shell
// commands. The agent sends the same patch as an exec_command whose script
// is `apply_patch <<'EOF' … EOF`. Codex does not run that command: it
// intercepts it and applies the patch itself, as its apply_patch tool does
// (maybe_parse_apply_patch), outside the command's sandbox. turnstile knows
// this — Classify reads the patch (execPatch) and makes the call a file_write
// of each file it names too (Action.Also, patch_paths) — but Evaluate checks
// the tool lists against the call's own name only (ToolsAllowed(a.ToolName)
// in domain/evaluate.go): "exec_command" is not denied, so the patch the
// operator forbade is allowed and applied.
//
// Why it works: domain/evaluate.go Evaluate → p.ToolsAllowed(a.ToolName); the
// exec patch is recognised in domain/classify.go (classifier.exec, execPatch)
// but only its files and its second kind are judged, not the tool it is.
//
// Fix: an exec_command Codex applies as a patch is the tool apply_patch to
// the tool lists too: Evaluate refuses it when ToolsAllowed("apply_patch")
// refuses (e.g. Action records the patch tool, and the list check runs for
// both names).
//
// CONTROL: the same patch sent as apply_patch is denied by denied_tools, and
// an ordinary shell command is still allowed.
func TestAttack61ExecPatchEscapesDeniedTools(t *testing.T) {
	patch := "*** Begin Patch\n*** Add File: notes.txt\n+hello\n*** End Patch\n"
	for _, req := range []ProfileRequest{
		{Mode: ModeFullAccess, DeniedTools: []string{"apply_patch"}},
		{Mode: ModeFullAccess, AllowedTools: []string{"exec_command", "read_file"}},
	} {
		s := testSnapshot(t, ModeFullAccess)
		s.PermissionProfile = ResolveProfile(&req, SourceComposer)

		// CONTROL 1: the patch as apply_patch is denied by the tool list.
		direct := mustClassify(t, Invocation{ToolName: "apply_patch", Arguments: attack61JSON(t, map[string]any{"patch": patch})}, "/work/repo")
		if d := Evaluate(&s, &direct, nil); d.Behavior != BehaviorDeny {
			t.Fatalf("control: apply_patch under %+v is %s by %s, want deny", req, d.Behavior, d.DecidedBy)
		}
		// CONTROL 2: an ordinary command is allowed.
		plain := mustClassify(t, Invocation{ToolName: "exec_command", Arguments: attack61JSON(t, map[string]any{"cmd": "go test ./..."})}, "/work/repo")
		if d := Evaluate(&s, &plain, nil); d.Behavior != BehaviorAllow {
			t.Fatalf("control: a plain command under %+v is %s by %s, want allow", req, d.Behavior, d.DecidedBy)
		}

		// ATTACK: the same patch, which Codex applies itself, through exec_command.
		viaExec := mustClassify(t, Invocation{ToolName: "exec_command", Arguments: attack61JSON(t, map[string]any{"cmd": "apply_patch <<'EOF'\n" + patch + "EOF\n"})}, "/work/repo")
		if viaExec.Also != ActionFileWrite || len(viaExec.Files) != 1 || viaExec.Files[0].Path != "/work/repo/notes.txt" {
			t.Fatalf("precondition: the exec patch is not read as a write of notes.txt: also %q files %+v", viaExec.Also, viaExec.Files)
		}
		if d := Evaluate(&s, &viaExec, nil); d.Behavior != BehaviorDeny {
			t.Errorf("under %+v the apply_patch the profile forbids is %s (%s by %s) when sent as exec_command, which Codex applies as apply_patch", req, d.Behavior, d.Reason, d.DecidedBy)
		}
	}
}

func attack61JSON(t *testing.T, v any) json.RawMessage {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
