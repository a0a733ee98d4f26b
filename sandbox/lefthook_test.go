package sandbox

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"turnstile/domain"
)

// TestLefthookConfigReadOnly (fourteenth review, left open by the
// reviewer): lefthook's config and scripts were writable, as
// .pre-commit-config.yaml no longer is; the hook `lefthook install` put in
// .git/hooks reads them on the person's next commit, so a command that
// added a pre-commit command there ran it on the host. They are read-only
// now, for commands and write decisions, and one a command makes at the
// root is set aside after it. Controls: another YAML file at the root is
// writable, and so is a file in a directory lefthook does not read.
func TestLefthookConfigReadOnly(t *testing.T) {
	f := requireKernel(t, true)
	ws := tempWorkspace(t)
	existing := map[string]string{
		"lefthook.yml":                 "pre-commit:\n  commands: {}\n",
		".lefthook/pre-commit/lint.sh": "#!/bin/sh\n",
		".config/lefthook.yaml":        "pre-push: {}\n",
		"docker-compose.yml":           "services: {}\n",
		".lefthooks-notes/a.txt":       "x\n",
	}
	mkfiles(t, ws, existing)
	s := snapshotFor(t, domain.ModeAutoAcceptEdits, ws, f.Kernel)
	for _, rel := range []string{"docker-compose.yml", ".lefthooks-notes/a.txt"} {
		if r := sh(t, s, "echo x >> "+rel); r.ExitCode != 0 {
			t.Fatalf("control: %s was not writable: %d %s", rel, r.ExitCode, r.Stderr)
		}
		if _, err := (DecisionChecker{}).ResolveFile(s, rel, domain.AccessWrite, false); err != nil {
			t.Fatalf("control: a write decision on %s was refused: %v", rel, err)
		}
	}
	const payload = "pre-commit:\n  commands:\n    x:\n      run: id > /tmp/pwned\n"
	for _, rel := range []string{"lefthook.yml", ".lefthook/pre-commit/lint.sh", ".config/lefthook.yaml"} {
		sh(t, s, "printf '%s' '"+payload+"' >> "+rel)
		if b, _ := os.ReadFile(filepath.Join(ws, rel)); strings.Contains(string(b), "pwned") {
			t.Errorf("%s was written by the command", rel)
		}
		if _, err := (DecisionChecker{}).ResolveFile(s, rel, domain.AccessWrite, false); err == nil {
			t.Errorf("a write decision on %s was allowed", rel)
		}
	}
	fresh := tempWorkspace(t)
	s = snapshotFor(t, domain.ModeAutoAcceptEdits, fresh, f.Kernel)
	r := sh(t, s, "printf '%s' '"+payload+"' > .lefthook-local.yml")
	if _, err := os.Stat(filepath.Join(fresh, ".lefthook-local.yml")); err == nil {
		t.Errorf("a .lefthook-local.yml the command made stays: %+v", r.Quarantined)
	}
}
