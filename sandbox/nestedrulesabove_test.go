package sandbox

import (
	"os"
	"strings"
	"testing"
)

// TestSetAsideNestedCreatedEachItemBelow: in a nested repository's work
// tree that lacked a first name of rulesOnlyAbove (.config, .github, a
// profile's list may hold several items below either), the directory the
// command made is set aside when any item of the list below it was made,
// not only the first (the ninetieth review); one holding none of them
// stays (an honest .config/dotnet-tools.json, .github/workflows).
func TestSetAsideNestedCreatedEachItemBelow(t *testing.T) {
	for _, c := range []struct {
		made  string
		aside bool
	}{
		{".config/lefthook.yml", true},
		{".config/mise/config.toml", true},
		{".config/dotnet-tools.json", false},
		{".github/hooks/hooks.json", true},
		{".github/copilot/x.json", true},
		{".github/workflows/ci.yml", false},
	} {
		root := tempWorkspace(t)
		wt := root + "/vendor/lib"
		mkfiles(t, wt, map[string]string{"README": "lib\n", c.made: "x\n"})
		pc := &plantCheck{
			nestedFirsts: [][2]string{{".config", ".config/mise.toml"}, {".github", ".github/copilot/x.json"}},
			nestedRels:   []string{".config/mise.toml", ".config/mise", ".config/lefthook.yml", ".github/copilot/x.json", ".github/hooks"},
			nestedAbsent: []nestedAbsent{{wt: wt, root: root}},
		}
		found := pc.setAsideNestedCreated()
		first, _, _ := strings.Cut(c.made, "/")
		_, err := os.Lstat(wt + "/" + first)
		switch {
		case c.aside && (err == nil || len(found) != 1):
			t.Errorf("%s made in a nested work tree without it: not set aside (%v)", c.made, found)
		case !c.aside && (err != nil || len(found) != 0):
			t.Errorf("%s (no item of the list) made in a nested work tree: set aside (%v)", c.made, found)
		}
	}
}
