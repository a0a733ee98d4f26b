package sandbox

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"turnstile/domain"
)

// TestAttack15OtherHookManagersConfigs (fifteenth attack review, a variant
// of 9893db3 for the other git hook managers): hk's hook, which hk install
// puts in .git/hooks, reads hk.pkl, .config/hk.pkl and their local
// overrides hk.local.pkl and .config/hk.local.pkl on the person's next
// commit and runs the steps they name, and prek, which reads
// pre-commit's config, takes it as .pre-commit-config.yml as well as
// .yaml, and its own as prek.toml. None was protected: a command rewrote each, a write decision on
// each was allowed, and an hk.local.pkl a command made beside the
// person's hk.pkl stayed. Controls: another Pkl file and another YAML
// file at the root are written by a command and a decision.
func TestAttack15OtherHookManagersConfigs(t *testing.T) {
	f := requireKernel(t, true)
	ws := tempWorkspace(t)
	existing := []string{"hk.pkl", ".config/hk.pkl", ".config/hk.local.pkl", ".pre-commit-config.yml", "prek.toml", "app.pkl", "docker-compose.yml"}
	for _, rel := range existing {
		p := filepath.Join(ws, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("// x\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	s := snapshotFor(t, domain.ModeAutoAcceptEdits, ws, f.Kernel)
	for _, rel := range []string{"app.pkl", "docker-compose.yml"} {
		if r := sh(t, s, "echo '# x' >> "+rel); r.ExitCode != 0 {
			t.Fatalf("control: %s was not writable: %d %s", rel, r.ExitCode, r.Stderr)
		}
		if _, err := (DecisionChecker{}).ResolveFile(s, rel, domain.AccessWrite, false); err != nil {
			t.Fatalf("control: a write decision on %s was refused: %v", rel, err)
		}
	}
	for _, rel := range existing[:5] {
		sh(t, s, "echo pwned >> "+rel)
		if b, _ := os.ReadFile(filepath.Join(ws, rel)); strings.Contains(string(b), "pwned") {
			t.Errorf("%s was written by the command", rel)
		}
		if _, err := (DecisionChecker{}).ResolveFile(s, rel, domain.AccessWrite, false); err == nil {
			t.Errorf("a write decision on %s was allowed", rel)
		}
	}
	r := sh(t, s, "echo pwned > hk.local.pkl")
	if _, err := os.Stat(filepath.Join(ws, "hk.local.pkl")); err == nil {
		t.Errorf("an hk.local.pkl the command made stays: %+v", r.Quarantined)
	}
}
