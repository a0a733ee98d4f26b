package sandbox

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"turnstile/domain"
)

// TestAttack124_GlobDenyLinkUnderDoubleStar (hundred-and-twenty-fourth
// review): a symlink is set aside where a glob deny may match below it
// (domain.GlobDenyBelow) only when a leading part of the pattern whose
// last component is a name, not "**", matches the link's path whole. Under
// "**/secrets/**/*.pem" = deny, a link at secrets/sub is matched by no
// such part ("**/secrets/**" ends in "**"), yet what is written below it
// is what the rule denies. The command makes secrets/sub a symlink to
// leak/, a directory of its own. The person's tooling writes the key to
// secrets/sub/prod.pem, which lands in leak/prod.pem: at the next
// command's spawn the glob scan finds no match there (leak/prod.pem
// matches no rule) and the command reads it.
//
// Control: the same link under "**/secrets/*/*.pem" (a one-component
// wildcard where the other has "**") is set aside, and the key is not
// read; and the person's own secrets/sub/own.pem stays masked under both.
func TestAttack124_GlobDenyLinkUnderDoubleStar(t *testing.T) {
	requireRoot(t)
	requireKernel(t, true)
	const key = "AKIA-PERSONS-SECRET-124B"
	for _, c := range []struct{ name, rule string }{
		{"control", "**/secrets/*/*.pem"},
		{"attack", "**/secrets/**/*.pem"},
	} {
		t.Run(c.name, func(t *testing.T) {
			base := visibleWorkspace(t)
			ws := base + "/ws"
			mkfiles(t, ws, map[string]string{"README": "x\n"})
			s := execProfileSnapshot(t, ws, map[string]domain.Access{c.rule: domain.AccessDeny})

			// Control: the person's own file, no plant, stays masked.
			mkfiles(t, ws, map[string]string{"secrets/sub/own.pem": key + "\n"})
			r := sh(t, &s, `cat secrets/sub/own.pem; echo ---`)
			if strings.Contains(string(r.Stdout), key) {
				t.Fatalf("control: the person's own file was read: %q", r.Stdout)
			}
			if err := os.RemoveAll(ws + "/secrets"); err != nil {
				t.Fatal(err)
			}

			r = sh(t, &s, `mkdir leak secrets && ln -s ../leak secrets/sub && echo PLANTED`)
			t.Logf("plant: exit %d stdout %q stderr %q quarantined %v", r.ExitCode, r.Stdout, r.Stderr, quarantined(r))
			if !strings.Contains(string(r.Stdout), "PLANTED") {
				t.Fatalf("premise: %s", r.Stderr)
			}
			target := ws + "/secrets/sub/prod.pem"
			if err := os.MkdirAll(filepath.Dir(target), 0o700); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(target, []byte(key+"\n"), 0o600); err != nil {
				t.Fatal(err)
			}
			r = sh(t, &s, `cat leak/prod.pem; echo ---`)
			t.Logf("read: exit %d stdout %q stderr %q", r.ExitCode, r.Stdout, r.Stderr)
			if strings.Contains(string(r.Stdout), key) {
				t.Errorf("%s: a command read the person's key written to secrets/sub/prod.pem (denied by %q) through the symlink secrets/sub -> ../leak it planted", c.name, c.rule)
			}
		})
	}
}
