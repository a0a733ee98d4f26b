package sandbox

import (
	"os"
	"testing"

	"turnstile/domain"
)

// TestAttack73DenyWithMissingParentIsCreated (seventy-third review,
// medium): a profile's deny entry inside a writable root whose parent
// directory does not exist when a command starts (ws/secret/prod = deny,
// before ws/secret is made) is neither mounted (effectiveCarves skips a
// missing carve-out) nor held (holds() holds a missing deny only where its
// parent is already a directory), nor set aside after the command the way
// a missing read carve-out (ws/a/b/c = read) is. A command therefore
// creates the denied path and writes there: "deny entries neither readable
// nor writable" does not hold. Worse, what it leaves stays on disk: a file
// planted at the denied name as a hard link to a file of the workspace
// (ln leak secret/prod/key) receives whatever the person or a host tool
// later writes there in place (echo "$KEY" > secret/prod/key), and the
// agent's next command reads it through ws/leak, while the profile and the
// decisions still say the key is denied.
//
// Fix: hold a missing deny entry's first missing component (or hold the
// chain down to it, as a reserved name is held), or set aside after the
// command the first component the command created on the way to a deny
// entry, as setAsideMade does for a missing read carve-out.
//
// Control: the same deny whose parent exists is held (mkdir refused, nothing
// left on disk), and the missing read carve-out's tree is set aside.
func TestAttack73DenyWithMissingParentIsCreated(t *testing.T) {
	requireRoot(t)
	requireKernel(t, true)
	base := visibleWorkspace(t)
	ws := base + "/ws"
	if err := os.MkdirAll(ws+"/held", 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(ws+"/leak", []byte("agent's\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s := execProfileSnapshot(t, ws, map[string]domain.Access{
		ws + "/held/prod":   domain.AccessDeny,
		ws + "/secret/prod": domain.AccessDeny,
		ws + "/a/b/c":       domain.AccessRead,
	})
	// Control: a deny whose parent exists cannot be created; the command
	// still writes the workspace around it.
	r := sh(t, &s, `mkdir -p held/prod && echo planted > held/prod/key; echo ok > ok`)
	if exists(ws+"/held/prod/key") || readFile(t, ws+"/ok") != "ok\n" {
		t.Fatalf("control: a held deny was written, or the workspace was not (exit %d, stderr %q)", r.ExitCode, r.Stderr)
	}
	// Control: a missing read carve-out under missing parents is set aside.
	sh(t, &s, `mkdir -p a/b/c && echo planted > a/b/c/f`)
	if exists(ws + "/a/b/c/f") {
		t.Fatal("control: a read carve-out the command created under missing parents stayed")
	}
	// The attack: the denied path made by the command, a hard link planted
	// at the denied name.
	r = sh(t, &s, `mkdir -p secret/prod && ln leak secret/prod/key && echo planted`)
	t.Logf("attack: exit %d, stdout %q, stderr %q", r.ExitCode, r.Stdout, r.Stderr)
	if exists(ws + "/secret/prod/key") {
		// What the person writes there later reaches the workspace.
		if err := os.WriteFile(ws+"/secret/prod/key", []byte("AKIA-SECRET\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		got := sh(t, &s, `cat leak`)
		t.Fatalf("the command created the denied path %s/secret/prod and planted key there; a later write of the secret reads back through ws/leak: %q", ws, got.Stdout)
	}
}
