package sandbox

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"turnstile/domain"
)

// TestAttack124_GlobDenyLinkRenamedIntoPlace (hundred-and-twenty-fourth
// review): the check for links at a glob deny's match (globPlanted) sets a
// link aside only when its own change time is at or after the command's
// start. A rename of a directory above it changes that directory's time,
// not the link's. The profile denies "**/conf/secrets/*.pem" and
// "**/conf/*.env". The first command makes x/secrets a symlink to leak/
// and x/prod.env a hard link of leak.txt: under x no glob deny matches or
// may match, so nothing is set aside. The second command, a later second,
// only renames x to conf: now conf/secrets is a symlink where the rule
// matches below, and conf/prod.env a match holding a link, but both keep
// their change times from the first command and stay. The person's tooling
// writes the key to conf/secrets/prod.pem (landing in leak/prod.pem) and
// to conf/prod.env (landing in leak.txt): at the next command's spawn
// neither leak/prod.pem nor leak.txt matches a rule, and the command reads
// both.
//
// Control: the same two commands where the second makes the links itself
// (after the first made x): set aside, and the key is not read.
func TestAttack124_GlobDenyLinkRenamedIntoPlace(t *testing.T) {
	requireRoot(t)
	requireKernel(t, true)
	const key = "AKIA-PERSONS-SECRET-124"
	for _, c := range []struct {
		name  string
		early bool
	}{{"control", false}, {"attack", true}} {
		t.Run(c.name, func(t *testing.T) {
			base := visibleWorkspace(t)
			ws := base + "/ws"
			mkfiles(t, ws, map[string]string{"README": "x\n"})
			s := execProfileSnapshot(t, ws, map[string]domain.Access{"**/conf/secrets/*.pem": domain.AccessDeny, "**/conf/*.env": domain.AccessDeny})

			// Control: the person's own files, no plant, stay masked.
			mkfiles(t, ws, map[string]string{"conf/secrets/own.pem": key + "\n", "conf/own.env": key + "\n"})
			r := sh(t, &s, `cat conf/secrets/own.pem conf/own.env; echo ---`)
			if strings.Contains(string(r.Stdout), key) {
				t.Fatalf("control: the person's own files were read: %q", r.Stdout)
			}
			if err := os.RemoveAll(ws + "/conf"); err != nil {
				t.Fatal(err)
			}

			links := `ln -s ../leak x/secrets && ln leak.txt x/prod.env`
			first, second := `true`, links
			if c.early {
				first, second = links, `true`
			}
			r = sh(t, &s, `mkdir leak x && echo notes > leak.txt && `+first+` && echo MADE`)
			t.Logf("first: exit %d stdout %q stderr %q quarantined %v", r.ExitCode, r.Stdout, r.Stderr, quarantined(r))
			if !strings.Contains(string(r.Stdout), "MADE") {
				t.Fatalf("premise: %s", r.Stderr)
			}
			clockPast(t, ws+"/x")
			r = sh(t, &s, second+` && mv x conf && echo PLANTED`)
			t.Logf("second: exit %d stdout %q stderr %q quarantined %v limits %v", r.ExitCode, r.Stdout, r.Stderr, quarantined(r), r.CheckLimits)
			if !strings.Contains(string(r.Stdout), "PLANTED") {
				t.Fatalf("premise: %s", r.Stderr)
			}

			// The person writes the key where the profile denies it.
			for _, p := range []string{ws + "/conf/secrets/prod.pem", ws + "/conf/prod.env"} {
				if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
					t.Fatal(err)
				}
				f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
				if err != nil {
					t.Fatal(err)
				}
				f.WriteString(key + "\n")
				f.Close()
			}
			r = sh(t, &s, `cat leak/prod.pem; echo ---; cat leak.txt`)
			t.Logf("read: exit %d stdout %q stderr %q", r.ExitCode, r.Stdout, r.Stderr)
			if strings.Contains(string(r.Stdout), key) {
				t.Errorf("%s: a command read the person's key written to conf/secrets/prod.pem and conf/prod.env (denied by glob rules) through links it made under x and renamed into place: %q", c.name, r.Stdout)
			}
		})
	}
}
