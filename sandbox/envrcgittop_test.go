package sandbox

import (
	"os"
	"strings"
	"testing"

	"turnstile/domain"
)

// TestEnvrcNestedGitToplevel: a .envrc below its repository's top
// sources a script under the top ($(git rev-parse --show-toplevel) is
// the top, not the .envrc's directory). The script stays read-only to a
// file tool and to the command, as one the .envrc names by its own
// directory does. Control: a script beside it that nothing names is
// written by both.
func TestEnvrcNestedGitToplevel(t *testing.T) {
	f := newPlantFixture(t)
	mkfiles(t, f.ws, map[string]string{
		"sub/.envrc":       "source \"$(git rev-parse --show-toplevel)/scripts/top.sh\"\n",
		"scripts/top.sh":   "export TOP=1\n",
		"scripts/other.sh": "export OTHER=1\n",
	})
	if top := strings.TrimSpace(hostGit(t, f.ws+"/sub", "rev-parse", "--show-toplevel")); top != f.ws {
		t.Fatalf("premise: git's top of sub is %q, not %q", top, f.ws)
	}
	s := snapshotFor(t, domain.ModeAutoAcceptEdits, f.ws, machine().Kernel)
	if _, err := (DecisionChecker{}).ResolveFile(s, f.ws+"/scripts/top.sh", domain.AccessWrite, false); err == nil {
		t.Errorf("a file tool's write of scripts/top.sh, which sub/.envrc sources under the repository's top, was allowed")
	}
	if _, err := (DecisionChecker{}).ResolveFile(s, f.ws+"/scripts/other.sh", domain.AccessWrite, false); err != nil {
		t.Errorf("control: a file tool's write of scripts/other.sh was refused: %v", err)
	}
	r := sh(t, s, "for n in top other; do echo 'touch /tmp/pwned' >> scripts/$n.sh; done; echo done")
	if !strings.Contains(string(r.Stdout), "done") {
		t.Fatalf("premise: the command did not run: %d %s", r.ExitCode, r.Stderr)
	}
	if b, _ := os.ReadFile(f.ws + "/scripts/top.sh"); strings.Contains(string(b), "pwned") {
		t.Errorf("scripts/top.sh, which sub/.envrc sources, was rewritten by the command: %q", b)
	}
	if b, _ := os.ReadFile(f.ws + "/scripts/other.sh"); !strings.Contains(string(b), "pwned") {
		t.Errorf("control: scripts/other.sh was not written by the command: %q", b)
	}
}

// TestEnvrcGitToplevelMadeByCommand: the command makes a repository
// between a .envrc and the root (git init a, for a/b/.envrc), so that
// the top the .envrc names is a/, and writes the script there, which
// did not exist: it is set aside after the command. Control: a script
// beside it that nothing names stays.
func TestEnvrcGitToplevelMadeByCommand(t *testing.T) {
	f := newPlantFixture(t)
	mkfiles(t, f.ws, map[string]string{
		"a/b/.envrc": "source \"$(git rev-parse --show-toplevel)/scripts/top.sh\"\n",
	})
	s := snapshotFor(t, domain.ModeAutoAcceptEdits, f.ws, machine().Kernel)
	r := sh(t, s, agentGit+"init -q a && mkdir -p a/scripts && echo 'touch /tmp/pwned' > a/scripts/top.sh && echo ok > a/scripts/other.sh && echo done")
	if !strings.Contains(string(r.Stdout), "done") {
		t.Fatalf("premise: the command did not run: %d %s", r.ExitCode, r.Stderr)
	}
	if b, err := os.ReadFile(f.ws + "/a/scripts/top.sh"); err == nil {
		t.Errorf("a/scripts/top.sh, which a/b/.envrc sources under the top the command made, stayed: %q", b)
	}
	if _, err := os.Stat(f.ws + "/a/scripts/other.sh"); err != nil {
		t.Errorf("control: a/scripts/other.sh was not left: %v", err)
	}
}
