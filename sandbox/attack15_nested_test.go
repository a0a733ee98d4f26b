package sandbox

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"turnstile/domain"
)

// TestAttack15NestedRepoToolSettingsWritable (fifteenth attack review): the
// protected list was kept at each writable root and the cwd, and a nested
// repository's .git with it, but not the list's files in that
// repository's work tree: a command rewrote ws/sub/.pre-commit-config.yaml
// and ws/sub/lefthook.yml, read by the hooks the person installed in
// ws/sub on their next commit there, and ws/sub/.vscode and ws/sub/.envrc,
// read when sub is opened as a project; a write decision on each was
// allowed; a lefthook-local.yml a command made there stayed. A
// submodule's work tree (a .git file) was the same. Controls:
// another file of the nested repository, and the same names in a
// directory that is no repository, stay writable, and a new source file
// of the nested repository stays.
func TestAttack15NestedRepoToolSettingsWritable(t *testing.T) {
	f := requireKernel(t, true)
	ws := tempWorkspace(t)
	for _, d := range []string{ws, filepath.Join(ws, "sub")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		if out, err := hostGitRun(t, d, "init", "-q"); err != nil {
			t.Fatal(out, err)
		}
	}
	// A submodule's work tree: its .git is a file naming its git dir.
	if err := os.MkdirAll(filepath.Join(ws, ".git/modules"), 0o755); err != nil {
		t.Fatal(err)
	}
	if out, err := hostGitRun(t, ws, "init", "-q", "--separate-git-dir", filepath.Join(ws, ".git/modules/lib"), filepath.Join(ws, "vendor/lib")); err != nil {
		t.Fatal(out, err)
	}
	settings := []string{"sub/.pre-commit-config.yaml", "sub/lefthook.yml", "sub/.vscode/tasks.json", "sub/.envrc",
		"vendor/lib/.pre-commit-config.yaml"}
	// The root's workspace file is kept by its own rule, not as an item
	// of the list (a nested repository's file of that name is kept by the
	// same rule since the eighteenth review: TestAttack18NestedWorkspaceFile).
	controls := []string{"sub/README", "vendor/lib/README", "plain/.pre-commit-config.yaml", "project.code-workspace"}
	for _, rel := range append(append([]string{}, settings...), controls...) {
		p := filepath.Join(ws, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		body := "repos: []\n"
		if strings.HasSuffix(rel, ".code-workspace") || strings.HasSuffix(rel, ".json") {
			// JSON: a VS Code file that cannot be read refuses the
			// commands (the hundred-and-seventy-second review).
			body = "{}\n"
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	s := snapshotFor(t, domain.ModeAutoAcceptEdits, ws, f.Kernel)
	for _, rel := range controls[:len(controls)-1] {
		if r := sh(t, s, "echo x >> "+rel); r.ExitCode != 0 {
			t.Fatalf("control: %s was not writable: %d %s", rel, r.ExitCode, r.Stderr)
		}
		if _, err := (DecisionChecker{}).ResolveFile(s, rel, domain.AccessWrite, false); err != nil {
			t.Fatalf("control: a write decision on %s was refused: %v", rel, err)
		}
	}
	// Made by the command where the nested repository had none: set
	// aside after it, as at a root; another new file stays.
	r := sh(t, s, "echo pwned > sub/lefthook-local.yml && echo pwned > vendor/lib/lefthook.yml && mkdir -p sub/src && echo package main > sub/src/main.go")
	if r.ExitCode != 0 {
		t.Fatalf("the command failed: %d %s", r.ExitCode, r.Stderr)
	}
	if _, err := os.Stat(filepath.Join(ws, "sub/src/main.go")); err != nil {
		t.Fatalf("control: a new file of the nested repository went: %v %+v", err, r.Quarantined)
	}
	for _, rel := range []string{"sub/lefthook-local.yml", "vendor/lib/lefthook.yml"} {
		if _, err := os.Stat(filepath.Join(ws, rel)); err == nil {
			t.Errorf("a %s the command made stays: %+v", rel, r.Quarantined)
		}
	}
	for _, rel := range settings {
		sh(t, s, "echo '- repo: local' >> "+rel+"; echo pwned >> "+rel)
		if b, _ := os.ReadFile(filepath.Join(ws, rel)); strings.Contains(string(b), "pwned") {
			t.Errorf("%s was written by the command", rel)
		}
		if _, err := (DecisionChecker{}).ResolveFile(s, rel, domain.AccessWrite, false); err == nil {
			t.Errorf("a write decision on %s was allowed", rel)
		}
	}
}
