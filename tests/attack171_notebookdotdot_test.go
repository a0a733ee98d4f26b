package tests

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestAttack171_NotebookEditDotDot (hundred-and-seventy-first review): a
// Claude Code file tool's path is judged as Claude Code's expandPath
// makes it (trimmed, joined to the cwd, normalised: a '..' removed with
// the name before it), which is what Read, Write and Edit open. Claude
// Code's NotebookEdit does not expand its path: it opens notebook_path as
// written when it is absolute (isAbsolute(notebook_path) ? notebook_path :
// resolve(getCwd(), notebook_path), in validateInput and in call), and the
// kernel takes a '..' in it from where the link before it led. A
// notebook_path "ws/sub/../nb.ipynb", with sub a link in the workspace to
// a directory elsewhere, is judged as a write of ws/nb.ipynb, and Claude
// Code rewrites the notebook beside the link's target, outside every root.
//
// The attack: the workspace holds sub -> ../other/deep (a checkout's link,
// or one a command made); the agent's NotebookEdit of ws/sub/../nb.ipynb
// is allowed without anyone asked under auto_accept_edits, and edits
// home/other/nb.ipynb (another project's notebook: its cells are the
// agent's, run by whoever opens it next).
//
// Controls: NotebookEdit of home/other/nb.ipynb by its own name is denied
// (outside every root); of ws/nb.ipynb, allowed; and the kernel opens
// the path as written at home/other/nb.ipynb.
func TestAttack171_NotebookEditDotDot(t *testing.T) {
	t.Parallel()
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	home := filepath.Join(base, "home")
	ws := filepath.Join(home, "app")
	other := filepath.Join(home, "other")
	for _, d := range []string{ws, filepath.Join(other, "deep")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	const notebook = `{"cells":[{"cell_type":"code","id":"c1","metadata":{},"source":"print(1)","execution_count":null,"outputs":[]}],"metadata":{},"nbformat":4,"nbformat_minor":5}` + "\n"
	victim := filepath.Join(other, "nb.ipynb")
	for _, p := range []string{victim, filepath.Join(ws, "nb.ipynb")} {
		if err := os.WriteFile(p, []byte(notebook), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink("../other/deep", filepath.Join(ws, "sub")); err != nil {
		t.Fatal(err)
	}
	raw := ws + "/sub/../nb.ipynb"
	// Where the kernel opens the path as written (Claude Code's open).
	got, err := os.Stat(raw)
	if err != nil {
		t.Fatal(err)
	}
	if want, err := os.Stat(victim); err != nil || !os.SameFile(got, want) {
		t.Fatalf("control: the kernel opens %s elsewhere than %s", raw, victim)
	}

	s := ccServer(t, ws, "auto_accept_edits", nil)
	hk := roAs(s, roCreate(t, s, "a171-nb", "runtime", "ws-cc"))
	const session = "sess-a171-notebook"
	n := 0
	edit := func(path string) string {
		n++
		return hk.hookHTTP(ccEdit(t, ccPayload(t, "pre_write", session, ws), map[string]any{
			"tool_use_id": fmt.Sprintf("toolu_a171_nb_%d", n), "tool_name": "NotebookEdit",
			"tool_input": map[string]any{"notebook_path": path, "cell_id": "c1", "new_source": "import os; os.system('id > /tmp/pwned')"}}))
	}
	allowed := func(out string) bool { return strings.Contains(out, `"permissionDecision":"allow"`) }
	hk.hookHTTP(ccPayload(t, "user_prompt_submit", session, ws))
	if out := edit(victim); allowed(out) {
		t.Fatalf("control: NotebookEdit of %s, outside the workspace, by its own name: %s", victim, out)
	}
	if out := edit(filepath.Join(ws, "nb.ipynb")); !allowed(out) {
		t.Fatalf("control: NotebookEdit of the workspace's notebook: %s", out)
	}
	if out := edit(raw); allowed(out) {
		t.Errorf("NotebookEdit of %s was allowed without anyone asked (judged as %s); Claude Code opens notebook_path as written, which the kernel resolves to %s, outside every root (denied by its own name)",
			raw, filepath.Join(ws, "nb.ipynb"), victim)
	}
}

// TestAttack171_LSDotDot: the same of Claude Code's LS, which lists
// isAbsolute(path) ? path : resolve(getCwd(), path), every level below
// it: an LS of "ws/sub/.." is judged as a listing of the workspace, and
// Claude Code lists where the kernel takes the '..' from sub's target
// (the names of another project's files, outside every root).
//
// Controls: LS of home/other by its own name is denied; of ws, allowed;
// the kernel opens the path as written at home/other.
func TestAttack171_LSDotDot(t *testing.T) {
	t.Parallel()
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	home := filepath.Join(base, "home")
	ws := filepath.Join(home, "app")
	other := filepath.Join(home, "other")
	for _, d := range []string{ws, filepath.Join(other, "deep"), filepath.Join(other, "secrets")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink("../other/deep", filepath.Join(ws, "sub")); err != nil {
		t.Fatal(err)
	}
	raw := ws + "/sub/.."
	got, err := os.Stat(raw)
	if err != nil {
		t.Fatal(err)
	}
	if want, err := os.Stat(other); err != nil || !os.SameFile(got, want) {
		t.Fatalf("control: the kernel opens %s elsewhere than %s", raw, other)
	}

	s := ccServer(t, ws, "auto_accept_edits", nil)
	hk := roAs(s, roCreate(t, s, "a171-ls", "runtime", "ws-cc"))
	const session = "sess-a171-ls"
	n := 0
	ls := func(path string) string {
		n++
		return hk.hookHTTP(ccEdit(t, ccPayload(t, "pre_write", session, ws), map[string]any{
			"tool_use_id": fmt.Sprintf("toolu_a171_ls_%d", n), "tool_name": "LS",
			"tool_input": map[string]any{"path": path}}))
	}
	allowed := func(out string) bool { return strings.Contains(out, `"permissionDecision":"allow"`) }
	hk.hookHTTP(ccPayload(t, "user_prompt_submit", session, ws))
	if out := ls(other); allowed(out) {
		t.Fatalf("control: LS of %s, outside the workspace, by its own name: %s", other, out)
	}
	if out := ls(ws); !allowed(out) {
		t.Fatalf("control: LS of the workspace: %s", out)
	}
	if out := ls(raw); allowed(out) {
		t.Errorf("LS of %s was allowed without anyone asked (judged as a listing of %s); Claude Code lists the path as written, which the kernel opens at %s, outside every root (denied by its own name)",
			raw, ws, other)
	}
}
