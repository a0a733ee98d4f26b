package domain

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

// TestAttack59CdArgumentWithRedirectHidesPatchDir (fifty-ninth review,
// high): an exec_command that Codex applies as a patch itself, in the form
// `cd DIR && apply_patch <<'EOF' … EOF`, whose cd argument is a quoted word
// holding the program's name and a "<<" ('apply_patch <<x'), is judged as
// if the patch's names were relative to the command's working directory:
// Codex writes them in DIR.
//
// Why: execPatch (domain/classify.go) finds each place the program's name
// stands before a "<<" on its line and takes the first such "<<" as the
// redirect ("redirect := slices.MinFunc(progs, …)"), then drops every
// place of the name after that redirect ("progs = slices.DeleteFunc(progs,
// … p.at > redirect)"). With 'apply_patch <<x' as the cd argument, the
// "<<" inside the quotes is that first redirect; the real `apply_patch`
// after "&&" lies past it and is dropped, so first and last are both the
// name inside the quotes and the directory is read from the text before
// it, "cd '" — no "&&" there, no directory: dirs is [""] alone. Codex's
// grammar (codex-rs/apply-patch/src/invocation.rs
// extract_apply_patch_from_bash) matches `cd (raw_string) && apply_patch
// <heredoc>` and takes the raw string's content, "apply_patch <<x", as the
// workdir: every file of the patch is written at
// cwd/"apply_patch <<x"/name (AbsolutePathBuf join; the kernel follows a
// link there). No preparation is needed: Codex joins lexically, so
// 'apply_patch <</../../../home/user/.ssh' is the directory /home/user/.ssh
// for it (the ".." after "apply_patch <<" cancels it, two more climb out of
// /work/repo), and `*** Add File: authorized_keys` writes
// /home/user/.ssh/authorized_keys — outside the workspace, outside
// allowed_paths, applied by Codex outside the command's sandbox — while
// the person and the policy are shown /work/repo/authorized_keys. Or the
// agent makes "apply_patch <<x" a link to .github/workflows with one
// command, and the patch writes a workflow while cwd/ci.yml is shown.
//
// Control: the same patch after `cd 'sub dir' && …` is judged in that
// directory (the resolver here follows both names as links to
// .github/workflows, as sandbox.DecisionChecker.ResolveFile would).
//
// Severity: high (a write outside what was judged, to protected paths,
// from a call the policy allows or a person approves as cwd/ci.yml).
func TestAttack59CdArgumentWithRedirectHidesPatchDir(t *testing.T) {
	snap := testSnapshot(t, ModeSupervised)
	cwd := snap.Sandbox.Cwd
	const body = "*** Begin Patch\n*** Add File: ci.yml\n+on: push\n*** End Patch\n"
	// Both directory names are links to .github/workflows.
	resolve := func(raw string, _ Access, _ bool) (string, error) {
		p := ResolvePath(cwd, raw)
		for _, link := range []string{"sub dir", "apply_patch <<x"} {
			if rest, ok := strings.CutPrefix(p, cwd+"/"+link+"/"); ok {
				return cwd + "/.github/workflows/" + rest, nil
			}
		}
		return p, nil
	}
	classify := func(cmd string) (Action, error) {
		raw, _ := json.Marshal(map[string]any{"cmd": cmd})
		return ClassifyResolved(Invocation{ToolName: "exec_command", Arguments: raw}, cwd, nil, resolve)
	}
	target := cwd + "/.github/workflows/ci.yml"
	wrote := func(a Action, p string) bool { return slices.Contains(a.Files, FileOp{Path: p, Access: AccessWrite}) }

	// Control: an ordinary quoted cd directory is joined.
	a, err := classify("cd 'sub dir' && apply_patch <<'EOF'\n" + body + "EOF\n")
	if err != nil || !wrote(a, target) || a.Also != ActionFileWrite {
		t.Fatalf("control: cd 'sub dir' judged %+v (%v)", a.Files, err)
	}

	// The attack: the cd argument holds the program's name and a "<<".
	if a, err := classify("cd 'apply_patch <<x' && apply_patch <<'EOF'\n" + body + "EOF\n"); err == nil && !wrote(a, target) {
		t.Errorf("Codex applies the patch in cwd/'apply_patch <<x' (a link to .github/workflows: it writes %s); the classifier judged only %+v (also %q)", target, a.Files, a.Also)
	}
	// The same with ".." after it, which Codex applies lexically: no link.
	keys := "*** Begin Patch\n*** Add File: authorized_keys\n+ssh-ed25519 AAAA attacker\n*** End Patch\n"
	if a, err := classify("cd 'apply_patch <</../../../home/user/.ssh' && apply_patch <<'EOF'\n" + keys + "EOF\n"); err == nil && !wrote(a, "/home/user/.ssh/authorized_keys") {
		t.Errorf("Codex writes /home/user/.ssh/authorized_keys (cwd joined with 'apply_patch <</../../../home/user/.ssh', lexically); the classifier judged only %+v (also %q): %s", a.Files, a.Also, Evaluate(&snap, &a, nil).Behavior)
	}
}
