package sandbox

import (
	"encoding/json"
	"testing"

	"turnstile/domain"
)

// TestAttack15GlobClassCrossesSlash: rg matches a --glob with its '*' and
// '?' kept within a name (literal_separator), but a character class is
// any byte it holds: a negated one, "[^q]" or "[!q]", and a range over
// '/', "[.-0]", match the '/' between two names. Claude Code's Glob of
// "src/*[^q]*[^q]*" lists src/conf/private/layoffs-2027.xlsx, three levels
// below src; the hook judged it a listing one level deep (one element from
// the first wildcard on), so the names inside src/conf/private, which a
// permission profile denies, were listed. The control: a class that holds
// no '/' stays one level deep and is allowed, and the same deep forms over
// a tree with nothing denied below are listed.
func TestAttack15GlobClassCrossesSlash(t *testing.T) {
	ws := tempWorkspace(t)
	mkfiles(t, ws, map[string]string{"src/conf/private/layoffs-2027.xlsx": "x", "src/a.go": "package a\n", "lib/x/y/z.go": "package z\n"})
	s := profileSnapshot(t, ws, map[string]domain.Access{ws + "/src/conf/private": domain.AccessDeny})
	glob := func(in string) error {
		inv, err := domain.ClaudeCodeInvocation("Glob", json.RawMessage(in), ws)
		if err != nil {
			return err
		}
		return decideChecked(&s, inv)
	}
	if err := glob(`{"pattern": "src/**/*.xlsx"}`); err == nil {
		t.Fatal("Glob src/**/*.xlsx allowed: the premise does not hold")
	}
	for _, p := range []string{"src/*[^q]*[^q]*", "src/*[!q]*[!q]*", "src/*[.-0]*[.-0]*", "src/conf[/]private[/]*", ws + "/src/*[^q]*[^q]*"} {
		if err := glob(`{"pattern": "` + p + `"}`); err == nil {
			t.Errorf("Glob %s allowed; rg lists the names in the denied %s/src/conf/private", p, ws)
		}
	}
	// control
	for _, p := range []string{"src/*.[gx]o", "src/[a-z].go", "lib/*[^q]*[^q]*", "src/*[]-]"} {
		if err := glob(`{"pattern": "` + p + `"}`); err != nil {
			t.Errorf("control: Glob %s refused: %v", p, err)
		}
	}
}
