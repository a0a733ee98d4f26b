package sandbox

import (
	"os"
	"strings"
	"testing"

	"turnstile/domain"
)

// TestAttack166EnvrcSourceEnvGitTop (review 166): direnv's source_env
// given a DIRECTORY sources that directory's .envrc (unchecked by direnv
// allow). A nested .envrc naming the repository's top itself,
// source_env "$(git rev-parse --show-toplevel)", is skipped by
// launcherrefs.go launcherRef ("the top itself, or no name under it":
// rest == ""), so when the command makes a repository between the .envrc
// and the root (git init -q a, for a/b/.envrc: the case
// TestEnvrcGitToplevelMadeByCommand covers for a name under the top), the
// .envrc it writes at the new top, a/.envrc, stays after it and is sourced
// at the person's next cd into a/b. Control: the same .envrc's
// source_env_if_exists "$(git rev-parse --show-toplevel)/.envrc.shared"
// (a name under the top) made by the command at a/ is set aside; an
// unrelated file the command writes at a/ stays.
func TestAttack166EnvrcSourceEnvGitTop(t *testing.T) {
	f := newPlantFixture(t)
	mkfiles(t, f.ws, map[string]string{
		"a/b/.envrc": "source_env \"$(git rev-parse --show-toplevel)\"\n" +
			"source_env_if_exists \"$(git rev-parse --show-toplevel)/.envrc.shared\"\n",
	})
	s := snapshotFor(t, domain.ModeAutoAcceptEdits, f.ws, machine().Kernel)
	r := sh(t, s, agentGit+"init -q a && echo 'touch /tmp/pwned' > a/.envrc && echo 'touch /tmp/pwned' > a/.envrc.shared && echo ok > a/notes.txt && echo done")
	if !strings.Contains(string(r.Stdout), "done") {
		t.Fatalf("premise: the command did not run: %d %s", r.ExitCode, r.Stderr)
	}
	if top := strings.TrimSpace(hostGit(t, f.ws+"/a/b", "rev-parse", "--show-toplevel")); top != f.ws+"/a" {
		t.Fatalf("premise: git's top of a/b is %q, not %q", top, f.ws+"/a")
	}
	if _, err := os.Stat(f.ws + "/a/notes.txt"); err != nil {
		t.Fatalf("control: a/notes.txt was not left: %v", err)
	}
	if b, err := os.ReadFile(f.ws + "/a/.envrc.shared"); err == nil {
		t.Fatalf("control: a/.envrc.shared, named under the top, stayed: %q", b)
	}
	if b, err := os.ReadFile(f.ws + "/a/.envrc"); err == nil {
		t.Errorf("a/.envrc, which a/b/.envrc sources through source_env \"$(git rev-parse --show-toplevel)\" at the top the command made, stayed: %q", b)
	}
}
