package sandbox

import (
	"encoding/json"
	"testing"

	"turnstile/domain"
)

// TestAttack14GlobAbsoluteAndCommentPatterns: Claude Code's Glob does not
// give rg an absolute pattern as written: it searches the pattern's static
// directory (extractGlobBaseDirectory: what comes before the last '/'
// ahead of the first wildcard, or the directory of a pattern without one)
// with the rest of the pattern as the --glob, and rg reads a glob without a
// '/' as matching a name at every level. "/ws/*" lists every file below ws,
// and "/ws/layoffs-2027.xlsx" every file of that name below it. rg reads a
// glob that starts with '#' as a comment, no glob at all: "#x/y" lists
// every file below the path. The hook judged each a listing one level
// deep, so the names inside ws/private, which a permission profile denies,
// were listed. The control: the same forms over a tree with nothing denied
// below are listed, and an anchored relative pattern stays one level deep.
func TestAttack14GlobAbsoluteAndCommentPatterns(t *testing.T) {
	ws := tempWorkspace(t)
	mkfiles(t, ws, map[string]string{"private/layoffs-2027.xlsx": "x", "src/a.go": "package a\n", "src/lib/b.go": "package b\n", "#x/y": "y", "src/#x/y": "y"})
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
	for _, in := range []string{
		`{"pattern": "` + ws + `/*"}`,
		`{"pattern": "` + ws + `/*.xlsx"}`,
		`{"pattern": "` + ws + `/layoffs-2027.xlsx"}`,
		`{"pattern": "#x/y"}`,
		`{"pattern": "#x/*", "path": "` + ws + `"}`,
	} {
		if err := glob(in); err == nil {
			t.Errorf("Glob %s allowed; rg lists the names in the denied %s/private", in, ws)
		}
	}
	// control
	for _, in := range []string{
		`{"pattern": "` + ws + `/src/*.go"}`,
		`{"pattern": "` + ws + `/src/a.go"}`,
		`{"pattern": "#x/y", "path": "` + ws + `/src"}`,
		`{"pattern": "src/*.go"}`,
	} {
		if err := glob(in); err != nil {
			t.Errorf("control: Glob %s refused: %v", in, err)
		}
	}
}
