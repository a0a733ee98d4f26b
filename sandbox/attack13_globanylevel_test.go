package sandbox

import (
	"encoding/json"
	"testing"

	"turnstile/domain"
)

// TestAttack13GlobNameAtAnyLevel: Claude Code's Glob runs rg --files
// --glob PATTERN over its path, and rg reads a glob as .gitignore does: a
// pattern without a '/' matches a file's name at any level below. The hook
// judged a Glob of "*.xlsx" (or of a plain name) a listing one level deep,
// so its names inside ws/private, which a permission profile denies and a
// listing of which is refused, were listed (or a guessed name there
// confirmed). The control: a pattern with a '/' is anchored to the path and
// shows the levels it names, and a name pattern of a tree with nothing
// denied below is listed.
func TestAttack13GlobNameAtAnyLevel(t *testing.T) {
	ws := tempWorkspace(t)
	mkfiles(t, ws, map[string]string{"private/layoffs-2027.xlsx": "x", "src/a.go": "package a\n", "src/b.md": "b\n"})
	s := profileSnapshot(t, ws, map[string]domain.Access{ws + "/private": domain.AccessDeny})
	glob := func(in string) error {
		inv, err := domain.ClaudeCodeInvocation("Glob", json.RawMessage(in), ws)
		if err != nil {
			return err
		}
		return decideChecked(&s, inv)
	}
	if err := glob(`{"pattern": "private/*"}`); err == nil {
		t.Fatal("Glob private/* allowed: the premise does not hold")
	}
	for _, in := range []string{`{"pattern": "*.xlsx"}`, `{"pattern": "layoffs-2027.xlsx"}`, `{"pattern": "*", "path": "` + ws + `"}`} {
		if err := glob(in); err == nil {
			t.Errorf("Glob %s allowed; rg lists the names in the denied %s/private", in, ws)
		}
	}
	// control: anchored patterns, and a tree with nothing denied below.
	for _, in := range []string{`{"pattern": "src/*.go"}`, `{"pattern": "*.md", "path": "` + ws + `/src"}`, `{"pattern": "src/b.md"}`} {
		if err := glob(in); err != nil {
			t.Errorf("control: Glob %s refused: %v", in, err)
		}
	}
}

// TestAttack13GlobNegated: rg reads a glob that starts with '!' as an
// exclusion, and with no other glob lists every other file at every level
// below the path it is given (Claude Code's Glob passes its path, the
// workspace, and the pattern as --glob). The hook judged "!x/y" a listing
// one level deep of ws/!x, a directory the agent made, so the names
// inside ws/private, which a permission profile denies, were listed. The
// control: a negated pattern of a tree with nothing denied below is
// listed.
func TestAttack13GlobNegated(t *testing.T) {
	ws := tempWorkspace(t)
	mkfiles(t, ws, map[string]string{"private/layoffs-2027.xlsx": "x", "!x/y": "y", "src/!x/y": "y", "src/a.go": "package a\n"})
	s := profileSnapshot(t, ws, map[string]domain.Access{ws + "/private": domain.AccessDeny})
	glob := func(in string) error {
		inv, err := domain.ClaudeCodeInvocation("Glob", json.RawMessage(in), ws)
		if err != nil {
			return err
		}
		return decideChecked(&s, inv)
	}
	for _, in := range []string{`{"pattern": "!x/y"}`, `{"pattern": "!x/*"}`} {
		if err := glob(in); err == nil {
			t.Errorf("Glob %s allowed; rg lists every other file below %s, the names in the denied %s/private among them", in, ws, ws)
		}
	}
	// control
	if err := glob(`{"pattern": "!x/y", "path": "` + ws + `/src"}`); err != nil {
		t.Errorf("control: Glob !x/y of src refused: %v", err)
	}
}
