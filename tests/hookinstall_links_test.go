package tests

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestHookInstallRefusesLinksOutOfTheProject: hook install opens every name
// inside the project without leaving it (the seventy-fifth review): a
// .claude that links out of the project, and a settings.json that is a
// link, are refused and nothing where they lead changes; the control, the
// same project with .claude a directory of its own, is installed.
func TestHookInstallRefusesLinksOutOfTheProject(t *testing.T) {
	t.Parallel()
	install := func(project string) (string, string, int) {
		return runCLI(t, "hook", "install", "claude-code", "--project", project, "--server", "http://127.0.0.1:1", "--server-user", "0", "--server-key", testKey)
	}
	outside := t.TempDir()
	victim := filepath.Join(outside, "settings.json")
	if err := os.WriteFile(victim, []byte("{\"victim\": true}\n"), 0o600); err != nil {
		t.Fatal(err)
	}

	dirLink := t.TempDir()
	if err := os.Symlink(outside, filepath.Join(dirLink, ".claude")); err != nil {
		t.Fatal(err)
	}
	fileLink := t.TempDir()
	if err := os.Mkdir(filepath.Join(fileLink, ".claude"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(victim, filepath.Join(fileLink, ".claude", "settings.json")); err != nil {
		t.Fatal(err)
	}
	for name, project := range map[string]string{".claude link": dirLink, "settings.json link": fileLink} {
		if _, stderr, code := install(project); code == 0 || !strings.Contains(stderr, "link") {
			t.Errorf("%s: hook install exit %d: %s", name, code, stderr)
		}
	}
	if b, _ := os.ReadFile(victim); string(b) != "{\"victim\": true}\n" {
		t.Errorf("the file outside the project changed: %q", b)
	}
	if ents, _ := os.ReadDir(outside); len(ents) != 1 {
		t.Errorf("files were made outside the project: %v", ents)
	}

	ctl := t.TempDir()
	if _, stderr, code := install(ctl); code != 0 {
		t.Fatalf("control: hook install exit %d: %s", code, stderr)
	}
	if b, err := os.ReadFile(filepath.Join(ctl, ".claude", "settings.json")); err != nil || !strings.Contains(string(b), "PreToolUse") {
		t.Fatalf("control: settings %q, %v", b, err)
	}
}
