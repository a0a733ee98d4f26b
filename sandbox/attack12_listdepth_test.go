package sandbox

import (
	"encoding/json"
	"testing"

	"turnstile/domain"
)

// TestAttack12ListingIntoADeniedDirectory: Codex's list_dir lists depth
// levels below its directory (2 when not given), and Claude Code's LS, which
// the hook classifies as list_dir, lists a tree, as its Glob does with "**". list_dir was judged a read
// of its directory alone, so a listing of the workspace showed the names
// inside ws/private, a directory the permission profile denies (list_dir
// of ws/private itself is refused). The control: a listing one level deep
// of the workspace, and one of a tree with nothing denied in it, are
// allowed; so is a listing that shows the name of a file a glob denies
// ("**/*.env"), whose content is not read.
func TestAttack12ListingIntoADeniedDirectory(t *testing.T) {
	ws := tempWorkspace(t)
	mkfiles(t, ws, map[string]string{"private/layoffs-2027.xlsx": "x", "web/.env": "KEY=1\n", "src/a.go": "package a\n"})
	s := profileSnapshot(t, ws, map[string]domain.Access{ws + "/private": domain.AccessDeny, "**/*.env": domain.AccessDeny})
	decideInv := func(inv domain.Invocation) error {
		return decideChecked(&s, inv)
	}
	decide := func(args map[string]any) error {
		raw, _ := json.Marshal(args)
		return decideInv(domain.Invocation{ToolName: "list_dir", Arguments: raw})
	}
	glob := func(pattern string) error {
		inv, err := domain.ClaudeCodeInvocation("Glob", json.RawMessage(`{"pattern": "`+pattern+`"}`), ws)
		if err != nil {
			t.Fatal(err)
		}
		return decideInv(inv)
	}
	if err := decide(map[string]any{"dir_path": ws + "/private", "depth": 1}); err == nil {
		t.Fatal("list_dir of the denied directory allowed: the premise does not hold")
	}
	for name, args := range map[string]map[string]any{
		"Codex's default depth": {"dir_path": ws},
		"depth 5":               {"dir_path": ws, "depth": 5},
		"Claude Code LS":        {"path": ws},
	} {
		if err := decide(args); err == nil {
			t.Errorf("%s: list_dir of %s allowed; it lists the names in the denied %s/private", name, ws, ws)
		}
	}
	if err := glob("**/*.xlsx"); err == nil {
		t.Errorf("Claude Code Glob **/*.xlsx of %s allowed; it lists the names in the denied %s/private", ws, ws)
	}
	// A pattern with a '/' is anchored (rg reads a name pattern, "*.md",
	// at every level: TestAttack13GlobNameAtAnyLevel).
	if err := glob("src/*.md"); err != nil {
		t.Errorf("control: Claude Code Glob src/*.md refused: %v", err)
	}
	// A denied file (a sensitive one here) below is listed by name only.
	domain.AddSensitivePaths(&s, []string{ws + "/src/key.pem"})
	mkfiles(t, ws, map[string]string{"src/key.pem": "-----BEGIN PRIVATE KEY-----\n"})
	for name, args := range map[string]map[string]any{
		"depth 1":         {"dir_path": ws, "depth": 1},
		"src":             {"dir_path": ws + "/src", "depth": 3},
		"web (.env name)": {"dir_path": ws + "/web", "depth": 3},
	} {
		if err := decide(args); err != nil {
			t.Errorf("control %s: refused: %v", name, err)
		}
	}
}
