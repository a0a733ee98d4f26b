package sandbox

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"turnstile/domain"
)

// TestAttack122_GlobDenyInnerComponentLink (hundred-and-twenty-second
// review): the check for links planted at a glob deny's match (plantglob.go)
// looks only at names the rule matches, found by the pattern's last
// component. For a rule whose wildcard-free part is not the last component
// ("**/secrets/*.pem" = deny, "**/vault/**" = deny) the command
// makes the directory component (secrets, vault) a symlink to a directory of
// its own (leak/). No name the rule matches exists yet and secrets matches no
// rule, so nothing is set aside. The person's tooling then writes the key
// to secrets/prod.pem, which lands in leak/prod.pem: at the next
// command's spawn the glob scan finds no match (leak/prod.pem matches
// no rule) and the command reads it.
//
// Controls: the person's key at a secrets/prod.pem the command did not
// plant stays masked; for "**/vault/**" (which matches vault itself) the
// same symlink is set aside and the key is not read (the subtest
// control_tree_rule passes).
func TestAttack122_GlobDenyInnerComponentLink(t *testing.T) {
	requireRoot(t)
	requireKernel(t, true)
	const key = "AKIA-PERSONS-SECRET-122"
	for _, c := range []struct{ name, dir, file, rule string }{
		{"control_tree_rule", "vault", "token", "**/vault/**"}, // held: vault itself matches
		{"pem", "secrets", "prod.pem", "**/secrets/*.pem"},
	} {
		t.Run(c.name, func(t *testing.T) {
			base := visibleWorkspace(t)
			ws := base + "/ws"
			mkfiles(t, ws, map[string]string{"README": "x\n"})
			s := execProfileSnapshot(t, ws, map[string]domain.Access{c.rule: domain.AccessDeny})
			target := ws + "/" + c.dir + "/" + c.file

			// Control: the person's own file, no plant.
			if err := os.MkdirAll(filepath.Dir(target), 0o700); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(target, []byte(key+"\n"), 0o600); err != nil {
				t.Fatal(err)
			}
			r := sh(t, &s, `cat `+c.dir+`/`+c.file+`; echo ---`)
			if strings.Contains(string(r.Stdout), key) {
				t.Fatalf("control: the person's own %s was read: %q", c.file, r.Stdout)
			}
			if err := os.RemoveAll(ws + "/" + c.dir); err != nil {
				t.Fatal(err)
			}

			// The plant: the directory component a symlink to leak/.
			r = sh(t, &s, `mkdir leak && ln -s leak `+c.dir+` && echo PLANTED`)
			t.Logf("plant: exit %d stdout %q stderr %q quarantined %v", r.ExitCode, r.Stdout, r.Stderr, quarantined(r))
			if !strings.Contains(string(r.Stdout), "PLANTED") {
				t.Fatalf("premise: %s", r.Stderr)
			}
			// The person writes the key where the profile denies it.
			if err := os.MkdirAll(filepath.Dir(target), 0o700); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(target, []byte(key+"\n"), 0o600); err != nil {
				t.Fatal(err)
			}
			r = sh(t, &s, `cat leak/`+c.file+`; echo ---`)
			t.Logf("read: exit %d stdout %q stderr %q", r.ExitCode, r.Stdout, r.Stderr)
			if strings.Contains(string(r.Stdout), key) {
				t.Errorf("a command read the person's key written to %s/%s (denied by %q) through the symlink %s -> leak it planted earlier", c.dir, c.file, c.rule, c.dir)
			}
		})
	}
}
