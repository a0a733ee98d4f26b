package sandbox

import (
	"os"
	"strings"
	"testing"

	"turnstile/domain"
)

// TestAttack159_MiseConfDAndEnvConfigRefs (review 159, high: host code
// execution at the person's next `cd` into the project with mise
// activated). mise reads a project's .config/mise/conf.d/*.toml (every
// file, alphabetically, beside .config/mise/config.toml) and, when the
// person's MISE_ENV names ENV, mise.ENV.toml: their [env] _.source
// scripts are sourced by the shell hook, their [hooks] scripts run. The
// files themselves are kept read-only (".config/mise" is protected whole;
// mise.*.toml is a namedFile, workspacefiles.go), but the scripts they
// name are not read: protectLauncherRefs reads only the launcher items
// (miseConfigs, launcherrefs.go), which hold neither conf.d/*.toml nor
// mise.ENV.toml. A command rewrites scripts/confd-env.sh and
// scripts/dev-env.sh (the configs unchanged, still trusted) and the
// person's mise sources them as the person.
//
// Control: the same [env] _.source line in mise.toml keeps its script
// (scripts/env.sh) read-only: refused to a file tool, not rewritten by the
// same command.
func TestAttack159_MiseConfDAndEnvConfigRefs(t *testing.T) {
	f := newPlantFixture(t)
	mkfiles(t, f.ws, map[string]string{
		"mise.toml":                         "[env]\n_.source = \"scripts/env.sh\"\n",
		".config/mise/conf.d/10-local.toml": "[env]\n_.source = \"scripts/confd-env.sh\"\n",
		"mise.dev.toml":                     "[env]\n_.source = \"scripts/dev-env.sh\"\n",
		"scripts/env.sh":                    "export A=1\n",
		"scripts/confd-env.sh":              "export B=1\n",
		"scripts/dev-env.sh":                "export C=1\n",
	})
	s := snapshotFor(t, domain.ModeAutoAcceptEdits, f.ws, machine().Kernel)
	if _, err := (DecisionChecker{}).ResolveFile(s, f.ws+"/scripts/env.sh", domain.AccessWrite, false); err == nil {
		t.Fatalf("control: a write of scripts/env.sh, which mise.toml's _.source names, was allowed")
	}
	attacks := map[string]string{"scripts/confd-env.sh": ".config/mise/conf.d/10-local.toml", "scripts/dev-env.sh": "mise.dev.toml"}
	for n, cfg := range attacks {
		if _, err := (DecisionChecker{}).ResolveFile(s, f.ws+"/"+n, domain.AccessWrite, false); err == nil {
			t.Errorf("a file tool's write of %s, which %s's _.source names (mise sources it), was allowed", n, cfg)
		}
	}
	r := sh(t, s, "echo 'touch /tmp/pwned' >> scripts/env.sh; echo 'touch /tmp/pwned' >> scripts/confd-env.sh; echo 'touch /tmp/pwned' >> scripts/dev-env.sh; echo done")
	if !strings.Contains(string(r.Stdout), "done") {
		t.Fatalf("premise: the command did not run: %d %s", r.ExitCode, r.Stderr)
	}
	if b, _ := os.ReadFile(f.ws + "/scripts/env.sh"); strings.Contains(string(b), "pwned") {
		t.Fatalf("control: scripts/env.sh, mise.toml's _.source, was rewritten by the command")
	}
	for n, cfg := range attacks {
		if b, _ := os.ReadFile(f.ws + "/" + n); strings.Contains(string(b), "pwned") {
			t.Errorf("%s, which %s's _.source names, was rewritten by the command: %q", n, cfg, b)
		}
	}
}
