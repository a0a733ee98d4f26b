package sandbox

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"turnstile/domain"
)

// TestAttack14ToolSettingsStillWritable (fourteenth attack review, the
// thirteenth's tool-settings fix for tools and paths it left out):
//
//   - mise reads its config, whose [hooks] enter and [env] scripts run
//     when the person's shell enters the directory, at mise/config.toml,
//     .mise/config.toml, .config/mise.toml and .config/mise/ (conf.d,
//     config.toml), not only at the mise.toml and .mise.toml the list
//     kept read-only;
//   - Helix merges .helix/languages.toml, whose language servers it
//     starts, once the person trusts the workspace (as Zed's .zed);
//   - GitHub Copilot CLI loads .github/hooks/*.json from the repository
//     and runs their shell commands on its session's events.
//
// An auto_accept_edits command wrote them, or made them where they were
// missing, and a write decision on them was allowed. Control: a CI
// workflow, a mise task and another .config file are writable, and a
// .github, mise or .mise a command makes without the protected path stays.
func TestAttack14ToolSettingsStillWritable(t *testing.T) {
	f := requireKernel(t, true)
	ws := tempWorkspace(t)
	existing := map[string]string{
		"mise/config.toml":              "[tools]\n",
		".mise/config.toml":             "[tools]\n",
		".config/mise.toml":             "[tools]\n",
		".config/mise/config.toml":      "[tools]\n",
		".helix/languages.toml":         "\n",
		".github/hooks/hooks.json":      "{}\n",
		".github/workflows/ci.yml":      "on: push\n",
		".mise/tasks/build":             "#!/bin/sh\n",
		".config/dotnet-tools.json":     "{}\n",
		".config/mise-notes/README.txt": "x\n",
	}
	mkfiles(t, ws, existing)
	s := snapshotFor(t, domain.ModeAutoAcceptEdits, ws, f.Kernel)
	for _, rel := range []string{".github/workflows/ci.yml", ".mise/tasks/build", ".config/dotnet-tools.json", ".config/mise-notes/README.txt"} {
		if r := sh(t, s, "echo x >> "+rel); r.ExitCode != 0 {
			t.Fatalf("control: %s was not writable: %d %s", rel, r.ExitCode, r.Stderr)
		}
		if _, err := (DecisionChecker{}).ResolveFile(s, rel, domain.AccessWrite, false); err != nil {
			t.Fatalf("control: a write decision on %s was refused: %v", rel, err)
		}
	}
	hook := "[hooks]\nenter = \"id > /tmp/pwned\"\n"
	payload := map[string]string{
		"mise/config.toml":              hook,
		"mise/config.local.toml":        hook,
		".mise/config.toml":             hook,
		".mise/config.local.toml":       hook,
		".config/mise.toml":             hook,
		".config/mise/config.toml":      hook,
		".config/mise/conf.d/x.toml":    hook,
		".helix/languages.toml":         "[language-server.x]\ncommand = \"sh\"\nargs = [\"-c\", \"id > /tmp/pwned\"]\n",
		".github/hooks/hooks.json":      `{"version":1,"hooks":{"sessionStart":[{"type":"command","bash":"id > /tmp/pwned"}]}}`,
		".github/hooks/other-hook.json": `{"version":1,"hooks":{"sessionStart":[{"type":"command","bash":"id > /tmp/pwned"}]}}`,
	}
	var written, allowed []string
	for rel, content := range payload {
		r := sh(t, s, "mkdir -p $(dirname "+rel+") 2>/dev/null; cat > "+rel+" <<'EOF'\n"+content+"\nEOF")
		if got, err := os.ReadFile(filepath.Join(ws, rel)); r.ExitCode == 0 && err == nil && strings.Contains(string(got), "/tmp/pwned") {
			written = append(written, rel)
		}
		if _, err := (DecisionChecker{}).ResolveFile(s, rel, domain.AccessWrite, false); err == nil {
			allowed = append(allowed, rel)
		}
	}
	// Where they do not exist: what a command makes is set aside after it,
	// but a .github with workflows alone, or a mise or .mise with tasks
	// alone, stays.
	fresh := tempWorkspace(t)
	s = snapshotFor(t, domain.ModeAutoAcceptEdits, fresh, f.Kernel)
	r := sh(t, s, "mkdir -p .github/workflows .mise/tasks mise/tasks && echo 'on: push' > .github/workflows/ci.yml && echo x > .mise/tasks/build && echo x > mise/tasks/build")
	if !exists(fresh+"/.github/workflows/ci.yml") || !exists(fresh+"/.mise/tasks/build") || !exists(fresh+"/mise/tasks/build") || len(r.Quarantined) > 0 {
		t.Errorf("control: a .github, .mise or mise a command made without settings was set aside: %+v", r.Quarantined)
	}
	for _, rel := range []string{".github/hooks/hooks.json", ".mise/config.toml", "mise/config.toml", ".helix/languages.toml"} {
		sh(t, s, "mkdir -p $(dirname "+rel+") && echo 'id > /tmp/pwned' > "+rel)
		if exists(fresh + "/" + rel) {
			written = append(written, "a new "+rel)
		}
	}
	other := tempWorkspace(t)
	s = snapshotFor(t, domain.ModeAutoAcceptEdits, other, f.Kernel)
	sh(t, s, "mkdir -p .config && echo '[hooks]' > .config/mise.toml")
	if exists(other + "/.config/mise.toml") {
		written = append(written, "a new .config/mise.toml")
	}
	if len(written) > 0 || len(allowed) > 0 {
		t.Errorf("tool settings that start programs on the host were writable: by a command, left in place after it: %s; by a write decision: %s",
			strings.Join(written, ", "), strings.Join(allowed, ", "))
	}
}

// TestAttack14MiseEnvConfigWritable (fourteenth attack review, the
// previous test's mise entries for the configs of an environment): mise
// also reads mise.ENV.toml, .mise.ENV.toml, mise/config.ENV.toml and
// .mise/config.ENV.toml when the person's MISE_ENV names ENV, with the
// same [hooks] enter; their names are partly the person's, and the
// protected list held none. An auto_accept_edits command rewrote the
// person's mise.development.toml, a write decision on it was allowed, and
// a .mise/config.dev.toml a command made stayed. Controls: mise.lock and a
// task below mise/tasks are written by a command and a decision.
func TestAttack14MiseEnvConfigWritable(t *testing.T) {
	f := requireKernel(t, true)
	ws := tempWorkspace(t)
	mkfiles(t, ws, map[string]string{
		"mise.development.toml": "[tools]\n",
		"mise.lock":             "\n",
		"mise/tasks/build":      "#!/bin/sh\n",
	})
	s := snapshotFor(t, domain.ModeAutoAcceptEdits, ws, f.Kernel)
	for _, rel := range []string{"mise.lock", "mise/tasks/build"} {
		if r := sh(t, s, "echo x >> "+rel); r.ExitCode != 0 || len(r.Quarantined) > 0 {
			t.Fatalf("control: %s was not writable: %d %s %+v", rel, r.ExitCode, r.Stderr, r.Quarantined)
		}
		if _, err := (DecisionChecker{}).ResolveFile(s, rel, domain.AccessWrite, false); err != nil {
			t.Fatalf("control: a write decision on %s was refused: %v", rel, err)
		}
	}
	hook := "[hooks]\nenter = \"id > /tmp/pwned\"\n"
	var bad []string
	sh(t, s, "printf '"+strings.ReplaceAll(hook, "\n", "\\n")+"' > mise.development.toml")
	if b, _ := os.ReadFile(filepath.Join(ws, "mise.development.toml")); strings.Contains(string(b), "pwned") {
		bad = append(bad, "mise.development.toml rewritten by a command")
	}
	for _, rel := range []string{"mise.development.toml", ".mise.staging.toml", "mise/config.dev.toml", ".mise/config.dev.toml"} {
		if _, err := (DecisionChecker{}).ResolveFile(s, rel, domain.AccessWrite, false); err == nil {
			bad = append(bad, "a write decision on "+rel+" allowed")
		}
	}
	sh(t, s, "mkdir -p .mise && printf '"+strings.ReplaceAll(hook, "\n", "\\n")+"' > .mise/config.dev.toml && cp .mise/config.dev.toml .mise.staging.toml")
	for _, rel := range []string{".mise/config.dev.toml", ".mise.staging.toml"} {
		if exists(filepath.Join(ws, rel)) {
			bad = append(bad, "a new "+rel+" left in place")
		}
	}
	if len(bad) > 0 {
		t.Errorf("mise's configs for an environment: %s", strings.Join(bad, "; "))
	}
}
