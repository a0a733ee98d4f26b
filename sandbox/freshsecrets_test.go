package sandbox

import (
	"os"
	"path/filepath"
	"testing"

	"turnstile/domain"
)

// TestFreshSecretsRefused: a secret DecisionChecker.Fresh names now is
// refused to a file decision, a tree read holding it too, whatever the
// snapshot listed at its start; a sibling of it, and a tree beside it,
// are read (the control).
func TestFreshSecretsRefused(t *testing.T) {
	ws := tempWorkspace(t)
	data := filepath.Join(ws, "state", "turnstile")
	mkfilesB(t, ws, "state/turnstile/", "src/")
	mustDo(t, os.WriteFile(filepath.Join(data, "x.readmodels.checkpoint"), []byte("c"), 0o600))
	mustDo(t, os.WriteFile(filepath.Join(ws, "state", "notes.txt"), []byte("n"), 0o644))
	s := snapshotFor(t, domain.ModeAutoAcceptEdits, ws, machine().Kernel)
	c := DecisionChecker{Fresh: func() []string { return []string{data} }}
	for _, p := range []string{filepath.Join(data, "x.readmodels.checkpoint"), data} {
		if _, err := c.ResolveFile(s, p, domain.AccessRead, false); err == nil {
			t.Errorf("a read of %s, a secret Fresh names, was allowed", p)
		}
	}
	if _, err := c.ResolveFile(s, filepath.Join(ws, "state"), domain.AccessRead, true); err == nil {
		t.Errorf("a tree read of the directory holding a secret Fresh names was allowed")
	}
	if _, err := c.ResolveFile(s, filepath.Join(ws, "state", "notes.txt"), domain.AccessRead, false); err != nil {
		t.Errorf("control: a read beside the secret: %v", err)
	}
	if _, err := c.ResolveFile(s, filepath.Join(ws, "src"), domain.AccessRead, true); err != nil {
		t.Errorf("control: a tree read beside the secret: %v", err)
	}
}
