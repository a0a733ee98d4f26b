package sandbox

import (
	"testing"

	"turnstile/domain"
)

// TestAttack140_LauncherRefVariableDefault: launcherRef drops every path
// holding a "$" ("a variable the tool expands"), but the tools expand a
// variable with a default to the default when it is unset: Yarn's
// .yarnrc.yml settings take ${NAME:-fallback} (and ${NAME-fallback}),
// R's .Renviron ${NAME-default}. A .yarnrc.yml "yarnPath:
// ${YARN_RELEASE:-.yarn/releases/yarn-4.5.0.cjs}" names the release as
// plainly as the fixed form does for anyone without YARN_RELEASE set, and
// the release stays writable to a file tool. Control
// (TestAttack140_LauncherRefVariableDefaultControl): the same files with
// the path written plainly keep it read-only.
func TestAttack140_LauncherRefVariableDefault(t *testing.T) {
	for _, c := range []struct{ name, file, data, target string }{
		{"yarnPathDefault", ".yarnrc.yml", "yarnPath: ${YARN_RELEASE_A140:-.yarn/releases/yarn-4.5.0.cjs}\n", ".yarn/releases/yarn-4.5.0.cjs"},
		{"yarnPluginDefault", ".yarnrc.yml", "plugins:\n  - path: ${YARN_PLUGIN_A140-.yarn/plugins/p.cjs}\n", ".yarn/plugins/p.cjs"},
		{"rProfileDefault", ".Renviron", "R_PROFILE_USER=${R_PROFILE_A140-tools/x.R}\n", "tools/x.R"},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := newPlantFixture(t)
			mkfiles(t, f.ws, map[string]string{c.file: c.data, c.target: "original\n"})
			s := snapshotFor(t, domain.ModeAutoAcceptEdits, f.ws, machine().Kernel)
			if _, err := (DecisionChecker{}).ResolveFile(s, c.file, domain.AccessWrite, false); err == nil {
				t.Fatalf("premise: %s itself is writable", c.file)
			}
			if _, err := (DecisionChecker{}).ResolveFile(s, c.target, domain.AccessWrite, false); err == nil {
				t.Errorf("ESCAPED (decision): a write of %s, which %s names by a variable's default (%q), was allowed", c.target, c.file, c.data)
			}
		})
	}
}

func TestAttack140_LauncherRefVariableDefaultControl(t *testing.T) {
	for _, c := range []struct{ name, file, data, target string }{
		{"yarnPath", ".yarnrc.yml", "yarnPath: .yarn/releases/yarn-4.5.0.cjs\n", ".yarn/releases/yarn-4.5.0.cjs"},
		{"yarnPlugin", ".yarnrc.yml", "plugins:\n  - path: .yarn/plugins/p.cjs\n", ".yarn/plugins/p.cjs"},
		{"rProfile", ".Renviron", "R_PROFILE_USER=tools/x.R\n", "tools/x.R"},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := newPlantFixture(t)
			mkfiles(t, f.ws, map[string]string{c.file: c.data, c.target: "original\n", "tools/other": "o\n"})
			s := snapshotFor(t, domain.ModeAutoAcceptEdits, f.ws, machine().Kernel)
			if _, err := (DecisionChecker{}).ResolveFile(s, c.target, domain.AccessWrite, false); err == nil {
				t.Errorf("control: a write of %s, named plainly, was allowed", c.target)
			}
			if _, err := (DecisionChecker{}).ResolveFile(s, "tools/other", domain.AccessWrite, false); err != nil {
				t.Errorf("control: a write of tools/other: %v", err)
			}
		})
	}
}
