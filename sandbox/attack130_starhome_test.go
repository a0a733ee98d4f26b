package sandbox

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"turnstile/domain"
)

// TestAttack130_HomeNameWithStarUnmasked (hundred-and-thirtieth review,
// low: an unusual name). The sensitive patterns /home/*/.ssh … are
// expanded for the kernel mask by listing /home (sensitiveMatches), and
// each match is masked only where kernelMasks says so; kernelMasks
// refuses every path holding a "*" ("a pattern names no one file"), the
// literal match of a home whose name holds one included. The checker and
// dropInsideSensitive match the pattern element by element (globPrefix:
// "*" matches "a*b"), so a read_file of /home/a*b/.ssh/id_ed25519 is
// refused as sensitive_path, while a command of a turn rooted at that
// home (or with any grant above it) reads the key: nothing masks it.
//
// Controls (labelled): the same layout in a home whose name has no "*" is
// masked; read_file of the key in the attack turn is refused.
func TestAttack130_HomeNameWithStarUnmasked(t *testing.T) {
	requireRoot(t)
	f := requireKernel(t, true)
	if fi, err := os.Stat("/home"); err != nil || !fi.IsDir() {
		t.Skip("no /home")
	}
	const key = "OPENSSH-PRIVATE-KEY-a130-star"
	mkHome := func(pattern string) string {
		home, err := os.MkdirTemp("/home", pattern)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.RemoveAll(home) })
		os.Chmod(home, 0o755)
		p := filepath.Join(home, ".ssh", "id_ed25519")
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(key+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		return home
	}
	cat := func(home string) (*domain.TurnExecutionSecuritySnapshot, string) {
		s := snapshotFor(t, domain.ModeAutoAcceptEdits, home, f.Kernel)
		r := sh(t, s, `cat .ssh/id_ed25519 2>&1; echo done`)
		t.Logf("%s: exit %d, stdout %q", home, r.ExitCode, r.Stdout)
		return s, string(r.Stdout)
	}
	// CONTROL: an ordinary home's key is masked.
	if _, out := cat(mkHome("turnstile130-")); strings.Contains(out, key) {
		t.Fatalf("control: the key of an ordinary home was read")
	}
	// ATTACK: a home whose name holds "*".
	home := mkHome("turnstile130*star-*")
	s, out := cat(home)
	// CONTROL: the decision refuses the same key.
	if _, err := (DecisionChecker{}).ResolveFile(s, filepath.Join(home, ".ssh", "id_ed25519"), domain.AccessRead, false); err == nil {
		t.Fatalf("control: read_file of %s/.ssh/id_ed25519 is allowed", home)
	}
	if strings.Contains(out, key) {
		t.Errorf("a command of a turn rooted at %s read its ~/.ssh key (read_file of it is refused as sensitive): the home's name holds a \"*\", and kernelMasks masks no path that holds one", home)
	}
}
