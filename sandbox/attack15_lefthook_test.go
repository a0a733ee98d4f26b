package sandbox

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"turnstile/domain"
)

// TestAttack15LefthookOtherNames (fifteenth attack review): lefthook reads
// its main config as lefthook, .lefthook or .config/lefthook and its local
// config, merged on top of the main one, as lefthook-local, .lefthook-local
// or .config/lefthook-local, each with any of .yml, .yaml, .json, .jsonc
// and .toml. The protected list held only some of those fifteen names each:
// an existing lefthook.jsonc or .config/lefthook.toml was writable, and a
// lefthook-local.toml a command made beside the person's lefthook.yml
// stayed, so the hook lefthook install put in .git/hooks ran its
// pre-commit command on the person's next commit. Controls: other files
// with those extensions stay writable.
func TestAttack15LefthookOtherNames(t *testing.T) {
	f := requireKernel(t, true)
	ws := tempWorkspace(t)
	existing := map[string]string{
		"lefthook.yml":               "pre-commit:\n  commands: {}\n",
		"lefthook.jsonc":             "{}\n",
		".lefthook.jsonc":            "{}\n",
		".config/lefthook.toml":      "\n",
		".config/lefthook.json":      "{}\n",
		".config/lefthook.jsonc":     "{}\n",
		"lefthook-local.json":        "{}\n",
		".lefthook-local.toml":       "\n",
		".config/lefthook-local.yml": "{}\n",
		"package.json":               "{}\n",
		"Cargo.toml":                 "\n",
		".config/other.toml":         "\n",
		"tsconfig.jsonc":             "{}\n",
	}
	for rel, content := range existing {
		p := filepath.Join(ws, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	s := snapshotFor(t, domain.ModeAutoAcceptEdits, ws, f.Kernel)
	for _, rel := range []string{"package.json", "Cargo.toml", ".config/other.toml", "tsconfig.jsonc"} {
		if r := sh(t, s, "echo x >> "+rel); r.ExitCode != 0 {
			t.Fatalf("control: %s was not writable: %d %s", rel, r.ExitCode, r.Stderr)
		}
		if _, err := (DecisionChecker{}).ResolveFile(s, rel, domain.AccessWrite, false); err != nil {
			t.Fatalf("control: a write decision on %s was refused: %v", rel, err)
		}
	}
	for _, rel := range []string{"lefthook.jsonc", ".lefthook.jsonc", ".config/lefthook.toml", ".config/lefthook.json",
		".config/lefthook.jsonc", "lefthook-local.json", ".lefthook-local.toml", ".config/lefthook-local.yml"} {
		sh(t, s, "echo pwned >> "+rel)
		if b, _ := os.ReadFile(filepath.Join(ws, rel)); strings.Contains(string(b), "pwned") {
			t.Errorf("%s was written by the command", rel)
		}
		if _, err := (DecisionChecker{}).ResolveFile(s, rel, domain.AccessWrite, false); err == nil {
			t.Errorf("a write decision on %s was allowed", rel)
		}
	}
	const payload = "[pre-commit.commands.x]\nrun = \"id > /tmp/pwned\"\n"
	for _, rel := range []string{"lefthook-local.toml", ".config/lefthook-local.jsonc", "lefthook-local.jsonc"} {
		fresh := tempWorkspace(t)
		if err := os.WriteFile(filepath.Join(fresh, "lefthook.yml"), []byte("pre-commit: {}\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		fs := snapshotFor(t, domain.ModeAutoAcceptEdits, fresh, f.Kernel)
		mk := ""
		if strings.Contains(rel, "/") {
			mk = "mkdir -p .config && "
		}
		r := sh(t, fs, mk+"printf '%s' '"+payload+"' > "+rel)
		if _, err := os.Stat(filepath.Join(fresh, rel)); err == nil {
			t.Errorf("a %s the command made stays: %+v", rel, r.Quarantined)
		}
	}
}
