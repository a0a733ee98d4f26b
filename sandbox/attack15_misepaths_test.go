package sandbox

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"turnstile/domain"
)

// TestAttack15MiseOtherConfigPaths (fifteenth attack review, variants of
// f377a65 and 22c82e3): mise reads its config, with [hooks] enter and
// [env] scripts that run when the person's shell enters the directory, at
// .config/mise.local.toml and at the legacy .rtx.toml and .rtx.local.toml
// as well, and an environment's at .config/mise.ENV.toml and
// .config/mise.ENV.local.toml. None was protected: a command rewrote each,
// a write decision on each was allowed, and a .config/mise.dev.toml a
// command made in an existing .config stayed. Controls: another .config
// file and a TOML file at the root are written by a command and a
// decision.
func TestAttack15MiseOtherConfigPaths(t *testing.T) {
	f := requireKernel(t, true)
	ws := tempWorkspace(t)
	existing := []string{".config/mise.local.toml", ".rtx.toml", ".rtx.local.toml", ".config/mise.development.toml",
		".config/mise.ci.local.toml", ".config/nextest.toml", "rustfmt.toml"}
	for _, rel := range existing {
		p := filepath.Join(ws, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("[tools]\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	clockPast(t, filepath.Join(ws, ".config"))
	s := snapshotFor(t, domain.ModeAutoAcceptEdits, ws, f.Kernel)
	for _, rel := range []string{".config/nextest.toml", "rustfmt.toml"} {
		if r := sh(t, s, "echo '# x' >> "+rel); r.ExitCode != 0 {
			t.Fatalf("control: %s was not writable: %d %s", rel, r.ExitCode, r.Stderr)
		}
		if _, err := (DecisionChecker{}).ResolveFile(s, rel, domain.AccessWrite, false); err != nil {
			t.Fatalf("control: a write decision on %s was refused: %v", rel, err)
		}
	}
	const hook = "[hooks]\\nenter = \\\"id > /tmp/pwned\\\"\\n"
	for _, rel := range existing[:5] {
		sh(t, s, "printf \""+hook+"\" >> "+rel)
		if b, _ := os.ReadFile(filepath.Join(ws, rel)); strings.Contains(string(b), "pwned") {
			t.Errorf("%s was written by the command", rel)
		}
		if _, err := (DecisionChecker{}).ResolveFile(s, rel, domain.AccessWrite, false); err == nil {
			t.Errorf("a write decision on %s was allowed", rel)
		}
	}
	r := sh(t, s, "printf \""+hook+"\" > .config/mise.dev.toml")
	if b, err := os.ReadFile(filepath.Join(ws, ".config/mise.dev.toml")); err == nil && strings.Contains(string(b), "pwned") {
		t.Errorf("a .config/mise.dev.toml the command made stays: %+v", r.Quarantined)
	}
	if _, err := (DecisionChecker{}).ResolveFile(s, ".config/mise.staging.toml", domain.AccessWrite, false); err == nil {
		t.Errorf("a write decision on a new .config/mise.staging.toml was allowed")
	}
}
