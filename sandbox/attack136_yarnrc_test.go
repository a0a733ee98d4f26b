package sandbox

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"turnstile/domain"
)

// TestAttack136_YarnPathFileStays (review 136, the command side of
// tests/attack136_toolchainfile_test.go): yarn's .yarnrc ("yarn-path")
// and .yarnrc.yml ("yarnPath"), and rustup's rust-toolchain.toml
// ([toolchain] path), read in the cwd and each directory above it, make
// the person's next yarn or cargo there run the program they name, as
// asdf's .tool-versions "path:DIR" does. A restricted command writes them
// at the workspace root and they stay after it, where the same command's
// .tool-versions is refused (TestAttack136_YarnPathFileStaysControl).
func TestAttack136_YarnPathFileStays(t *testing.T) {
	f := requireKernel(t, true)
	ws := tempWorkspace(t)
	mkfiles(t, ws, map[string]string{"package.json": "{}\n", "sub/README": "x\n"})
	clockPast(t, ws)
	s := snapshotFor(t, domain.ModeAutoAcceptEdits, ws, f.Kernel)
	r := sh(t, s, `printf 'yarn-path "./evil.js"\n' > .yarnrc; printf 'yarnPath: ./evil.cjs\n' > .yarnrc.yml; `+
		`printf '[toolchain]\npath = "/tmp/evil-toolchain"\n' > rust-toolchain.toml; printf 'yarnPath: ../evil.cjs\n' > sub/.yarnrc.yml; echo done`)
	if r.ExitCode != 0 || !strings.Contains(string(r.Stdout), "done") {
		t.Fatalf("the command failed (%d): %s", r.ExitCode, r.Stderr)
	}
	for name, marker := range map[string]string{".yarnrc": "yarn-path", ".yarnrc.yml": "yarnPath", "rust-toolchain.toml": "path =", "sub/.yarnrc.yml": "yarnPath"} {
		if b, err := os.ReadFile(filepath.Join(ws, name)); err == nil && strings.Contains(string(b), marker) {
			t.Errorf("%s the command made stays (%q), as .tool-versions would not: the person's next yarn or cargo there runs the file it names", name, strings.TrimSpace(string(b)))
		}
	}
}

// TestAttack136_YarnPathFileStaysControl: the same command's .tool-versions
// (asdf's path version) does not stay.
func TestAttack136_YarnPathFileStaysControl(t *testing.T) {
	f := requireKernel(t, true)
	ws := tempWorkspace(t)
	mkfiles(t, ws, map[string]string{"package.json": "{}\n", "sub/README": "x\n"})
	clockPast(t, ws)
	s := snapshotFor(t, domain.ModeAutoAcceptEdits, ws, f.Kernel)
	r := sh(t, s, `printf 'nodejs path:/tmp/evil-node\n' > .tool-versions; printf '{"x":1}\n' > package.json; echo done`)
	if !strings.Contains(string(r.Stdout), "done") {
		t.Fatalf("the command did not run (%d): %s", r.ExitCode, r.Stderr)
	}
	if b, err := os.ReadFile(filepath.Join(ws, ".tool-versions")); err == nil && strings.Contains(string(b), "path:") {
		t.Errorf("control: .tool-versions the command made stays")
	}
	if !strings.Contains(readFile(t, filepath.Join(ws, "package.json")), `"x"`) {
		t.Errorf("control: package.json was not written")
	}
}
