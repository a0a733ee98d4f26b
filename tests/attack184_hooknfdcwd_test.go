package tests

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/text/unicode/norm"
)

// TestAttack184_HookNFDCwdRelativeWrite (hundred-and-eighty-fourth
// review): Claude Code resolves a file tool's relative path against its
// cwd and puts the whole result in Unicode normal form C (expandPath:
// path.resolve(cwd, p).normalize('NFC')). ccCleanPath refuses a path that
// is not in NFC, but checks only the path the tool names: the cwd the hook
// input carries (Claude Code's, which its Bash `cd` moves) is joined to it
// as written. With the cwd in a directory whose name is decomposed
// (ws/Cafe\u0301), a relative Write of notes.txt is judged as
// ws/Cafe\u0301/notes.txt, a plain file of the workspace, and allowed;
// Claude Code writes ws/Caf\u00e9/notes.txt, another name, here a symlink
// that leads out of the workspace.
//
// Controls: the path Claude Code writes, named absolute, is denied (the
// link leads out of the root); the same relative Write from a cwd whose
// name is composed is allowed.
func TestAttack184_HookNFDCwdRelativeWrite(t *testing.T) {
	t.Parallel()
	base := t.TempDir()
	base, _ = filepath.EvalSymlinks(base)
	ws := filepath.Join(base, "ws")
	outside := filepath.Join(base, "outside")
	if err := os.MkdirAll(outside, 0o755); err != nil {
		t.Fatal(err)
	}
	s := ccServer(t, ws, "auto_accept_edits", nil)
	agent := roAs(s, roCreate(t, s, "a184-nfd", "runtime", "ws-cc"))

	nfd := "Cafe\u0301"         // decomposed: e + COMBINING ACUTE ACCENT
	nfc := norm.NFC.String(nfd) // composed: U+00E9
	if nfd == nfc {
		t.Fatal("test setup: the names must differ")
	}
	// The workspace holds a directory with the decomposed name (the cwd
	// Claude Code's Bash cd'd into) and, under the composed name, a link
	// out of the workspace (as a cloned repository may hold one).
	cwd := filepath.Join(ws, nfd)
	if err := os.MkdirAll(cwd, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(cwd, "notes.txt"), []byte("x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(ws, nfc)); err != nil {
		t.Fatal(err)
	}
	plain := filepath.Join(ws, "plain")
	if err := os.MkdirAll(plain, 0o755); err != nil {
		t.Fatal(err)
	}

	// Where Claude Code's Write lands: expandPath.
	lands := norm.NFC.String(filepath.Join(cwd, "notes.txt"))
	if node, err := exec.LookPath("node"); err == nil {
		out, err := exec.Command(node, "-e", `process.stdout.write(require("path").resolve(process.argv[1], "notes.txt").normalize("NFC"))`, cwd).Output()
		if err != nil {
			t.Fatal(err)
		}
		if string(out) != lands {
			t.Fatalf("node resolves %q against %q to %q, the test expects %q", "notes.txt", cwd, out, lands)
		}
	}
	real, err := filepath.EvalSymlinks(filepath.Dir(lands))
	if err != nil || real != outside {
		t.Fatalf("test setup: %s leads to %s (%v), want %s", filepath.Dir(lands), real, err, outside)
	}

	write := func(session, cwd, filePath string) string {
		return agent.hookHTTP(ccEdit(t, ccPayload(t, "pre_write", session, ws), map[string]any{
			"cwd": cwd, "tool_input": map[string]any{"file_path": filePath, "content": "pwned\n"}}))
	}
	// Control: the file Claude Code writes, named as it is, is not allowed.
	if out := write("a184-nfd-c1", ws, lands); strings.Contains(out, `"permissionDecision":"allow"`) {
		t.Fatalf("control: Write of %s (a link out of the workspace): %s, want no allow", lands, out)
	}
	// Control: a relative Write from a composed cwd is allowed.
	if out := write("a184-nfd-c2", plain, "notes.txt"); !strings.Contains(out, `"permissionDecision":"allow"`) {
		t.Fatalf("control: relative Write of notes.txt from %s: %s, want allow", plain, out)
	}
	// The attack: the same relative Write from the decomposed cwd.
	out := write("a184-nfd-a", cwd, "notes.txt")
	t.Logf("relative Write of notes.txt from cwd %+q: %s", cwd, out)
	if strings.Contains(out, `"permissionDecision":"allow"`) {
		t.Errorf("a relative Write from a cwd not in NFC (%+q) was allowed as a write of %+q; Claude Code writes %+q, which leads to %s, outside the workspace",
			cwd, filepath.Join(cwd, "notes.txt"), lands, outside)
	}
}

// TestAttack184_HookNFDProjectRootRelativeWrite: the same without any link
// planted. A project whose own directory has a decomposed name (a checkout
// copied from macOS, which writes names decomposed) is configured as it
// lies on disk; Claude Code's cwd is that directory. A relative Write of
// notes.txt is judged as a write inside the project and allowed; Claude
// Code writes the composed name beside it (its Write makes the missing
// directories), outside every root of the turn.
//
// Control: the path Claude Code writes, named absolute, is not allowed.
func TestAttack184_HookNFDProjectRootRelativeWrite(t *testing.T) {
	t.Parallel()
	base := t.TempDir()
	base, _ = filepath.EvalSymlinks(base)
	ws := filepath.Join(base, "Cafe\u0301")
	s := ccServer(t, ws, "auto_accept_edits", nil)
	agent := roAs(s, roCreate(t, s, "a184-nfdroot", "runtime", "ws-cc"))

	lands := norm.NFC.String(filepath.Join(ws, "notes.txt"))
	if domainWithin(lands, ws) {
		t.Fatalf("test setup: %+q lies in %+q", lands, ws)
	}
	write := func(session, filePath string) string {
		return agent.hookHTTP(ccEdit(t, ccPayload(t, "pre_write", session, ws), map[string]any{
			"tool_input": map[string]any{"file_path": filePath, "content": "x\n"}}))
	}
	if out := write("a184-nfdroot-c", lands); strings.Contains(out, `"permissionDecision":"allow"`) {
		t.Fatalf("control: Write of %+q (outside the project %+q): %s, want no allow", lands, ws, out)
	}
	out := write("a184-nfdroot-a", "notes.txt")
	t.Logf("relative Write of notes.txt from the project's own cwd %+q: %s", ws, out)
	if strings.Contains(out, `"permissionDecision":"allow"`) {
		t.Errorf("a relative Write from the project's cwd %+q (not in NFC) was allowed; Claude Code writes %+q, outside the project", ws, lands)
	}
}

// domainWithin reports whether p is root or below it.
func domainWithin(p, root string) bool {
	return p == root || strings.HasPrefix(p, root+"/")
}
