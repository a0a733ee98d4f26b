package sandbox

import (
	"os"
	"strings"
	"testing"

	"turnstile/domain"
)

// TestAttack158_EnvrcGitToplevel (review 158, high: host code
// execution when the person's direnv next loads .envrc). What .envrc
// sources is kept read-only (launcherRefsOf's line parser, envrcBareRefs),
// and the project's directory is read where the script names it by $PWD,
// ${PWD} or $(pwd) (envrcPWDAnywhere) or through expand_path
// (substValues). Two idioms that name the same directory are not read:
//
//   - `$(git rev-parse --show-toplevel)/scripts/top.sh` (a .envrc at a
//     repository's top, the usual place);
//   - `$(dirname "${BASH_SOURCE[0]}")/scripts/env.sh`, the script
//     directory idiom (direnv's source_env runs `. "./.envrc"` from the
//     file's own directory, so BASH_SOURCE[0] is ./.envrc).
//
// The line parser drops a word holding "$" (launcherRef), and the bare
// reader takes a command substitution only of expand_path, realpath,
// readlink, echo or printf with nothing after it. So the person's own
// scripts that .envrc sources, which exist, stay writable: the command
// appends to them, and the person's next `cd` into the project (.envrc
// unchanged, still allowed) runs the agent's code as the person.
//
// Control: `source scripts/base.sh` in the same .envrc keeps base.sh
// read-only to a file tool and to the command.
func TestAttack158_EnvrcGitToplevel(t *testing.T) {
	f := newPlantFixture(t)
	mkfiles(t, f.ws, map[string]string{
		".envrc": "source scripts/base.sh\n" +
			"source \"$(git rev-parse --show-toplevel)/scripts/top.sh\"\n",
		"scripts/base.sh": "export BASE=1\n",
		"scripts/top.sh":  "export TOP=1\n",
		"scripts/env.sh":  "export ENV=1\n",
	})
	s := snapshotFor(t, domain.ModeAutoAcceptEdits, f.ws, machine().Kernel)
	if _, err := (DecisionChecker{}).ResolveFile(s, f.ws+"/scripts/base.sh", domain.AccessWrite, false); err == nil {
		t.Fatalf("control: a write of scripts/base.sh, which .envrc sources, was allowed")
	}
	attacks := []string{"scripts/top.sh"}
	for _, n := range attacks {
		if _, err := (DecisionChecker{}).ResolveFile(s, f.ws+"/"+n, domain.AccessWrite, false); err == nil {
			t.Errorf("a file tool's write of %s, which .envrc sources through the project directory's idiom, was allowed", n)
		}
	}
	r := sh(t, s, "for n in base top env; do echo 'touch /tmp/pwned' >> scripts/$n.sh; done; echo done")
	if !strings.Contains(string(r.Stdout), "done") {
		t.Fatalf("premise: the command did not run: %d %s", r.ExitCode, r.Stderr)
	}
	if b, _ := os.ReadFile(f.ws + "/scripts/base.sh"); strings.Contains(string(b), "pwned") {
		t.Fatalf("control: scripts/base.sh, which .envrc sources, was rewritten by the command")
	}
	for _, n := range attacks {
		if b, _ := os.ReadFile(f.ws + "/" + n); strings.Contains(string(b), "pwned") {
			t.Errorf("%s, which .envrc sources, was rewritten by the command: %q", n, b)
		}
	}
}

// TestAttack158_EnvrcBashSourceDir: the second idiom alone (review 158, high: host code
// execution when the person's direnv next loads .envrc). What .envrc
// sources is kept read-only (launcherRefsOf's line parser, envrcBareRefs),
// and the project's directory is read where the script names it by $PWD,
// ${PWD} or $(pwd) (envrcPWDAnywhere) or through expand_path
// (substValues). Two idioms that name the same directory are not read:
//
//   - `$(git rev-parse --show-toplevel)/scripts/top.sh` (a .envrc at a
//     repository's top, the usual place);
//   - `$(dirname "${BASH_SOURCE[0]}")/scripts/env.sh`, the script
//     directory idiom (direnv's source_env runs `. "./.envrc"` from the
//     file's own directory, so BASH_SOURCE[0] is ./.envrc).
//
// The line parser drops a word holding "$" (launcherRef), and the bare
// reader takes a command substitution only of expand_path, realpath,
// readlink, echo or printf with nothing after it. So the person's own
// scripts that .envrc sources, which exist, stay writable: the command
// appends to them, and the person's next `cd` into the project (.envrc
// unchanged, still allowed) runs the agent's code as the person.
//
// Control: `source scripts/base.sh` in the same .envrc keeps base.sh
// read-only to a file tool and to the command.
func TestAttack158_EnvrcBashSourceDir(t *testing.T) {
	f := newPlantFixture(t)
	mkfiles(t, f.ws, map[string]string{
		".envrc": "source scripts/base.sh\n" +
			"source \"$(dirname \"${BASH_SOURCE[0]}\")/scripts/env.sh\"\n",
		"scripts/base.sh": "export BASE=1\n",
		"scripts/top.sh":  "export TOP=1\n",
		"scripts/env.sh":  "export ENV=1\n",
	})
	s := snapshotFor(t, domain.ModeAutoAcceptEdits, f.ws, machine().Kernel)
	if _, err := (DecisionChecker{}).ResolveFile(s, f.ws+"/scripts/base.sh", domain.AccessWrite, false); err == nil {
		t.Fatalf("control: a write of scripts/base.sh, which .envrc sources, was allowed")
	}
	attacks := []string{"scripts/env.sh"}
	for _, n := range attacks {
		if _, err := (DecisionChecker{}).ResolveFile(s, f.ws+"/"+n, domain.AccessWrite, false); err == nil {
			t.Errorf("a file tool's write of %s, which .envrc sources through the project directory's idiom, was allowed", n)
		}
	}
	r := sh(t, s, "for n in base top env; do echo 'touch /tmp/pwned' >> scripts/$n.sh; done; echo done")
	if !strings.Contains(string(r.Stdout), "done") {
		t.Fatalf("premise: the command did not run: %d %s", r.ExitCode, r.Stderr)
	}
	if b, _ := os.ReadFile(f.ws + "/scripts/base.sh"); strings.Contains(string(b), "pwned") {
		t.Fatalf("control: scripts/base.sh, which .envrc sources, was rewritten by the command")
	}
	for _, n := range attacks {
		if b, _ := os.ReadFile(f.ws + "/" + n); strings.Contains(string(b), "pwned") {
			t.Errorf("%s, which .envrc sources, was rewritten by the command: %q", n, b)
		}
	}
}
