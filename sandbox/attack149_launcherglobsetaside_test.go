package sandbox

import (
	"os"
	"path"
	"strings"
	"testing"

	"turnstile/domain"
)

// TestAttack149_LauncherGlobSetAsideStillMatches: a new match of a
// launcher file's pattern in a directory that stays writable is "set
// aside" (setAsideLauncherMatches, launcherglob.go) by setAside
// (plantcheck.go), which renames it in the same directory to
// NAME.turnstile-untrusted. A pattern whose wildcard is at its end (mise's
// `_.file = ".env*"`, the dotenv files .env, .env.local, …, or
// `_.source = "env*"`) still matches the set-aside name, so the file the
// command made stays where the host tool reads it, under a name it loads:
// the person's next cd into the project loads the agent's environment
// (PATH, a prompt hook) or sources its script. At the next command the name
// is in the view's matches (had), so it is never set aside again, and is
// even kept read-only as one of the person's matches. Control in the same
// test: with `_.source = "*.sh"` the set-aside name (evil.sh.turnstile-
// untrusted) no longer matches.
func TestAttack149_LauncherGlobSetAsideStillMatches(t *testing.T) {
	for _, c := range []struct {
		name, mise, pattern, had, made string
		control                        bool
	}{
		{"control_suffixPattern", "[env]\n_.source = \"*.sh\"\n", "*.sh", "env.sh", "evil.sh", true},
		{"dotenvPrefixPattern", "[env]\n_.file = \".env*\"\n", ".env*", ".env", ".env.local", false},
		{"sourcePrefixPattern", "[env]\n_.source = \"env*\"\n", "env*", "env.sh", "envx.sh", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := newPlantFixture(t)
			mkfiles(t, f.ws, map[string]string{"mise.toml": c.mise, c.had: "A=1\n"})
			s := snapshotFor(t, domain.ModeAutoAcceptEdits, f.ws, machine().Kernel)
			if _, err := (DecisionChecker{}).ResolveFile(s, f.ws+"/"+c.made, domain.AccessWrite, false); err == nil {
				t.Fatalf("premise: a write decision making %s, a new match of %q, was allowed", c.made, c.pattern)
			}
			r := sh(t, s, "echo 'PATH=/tmp/evil149:$PATH' > '"+c.made+"'; echo done")
			if r.ExitCode != 0 || !strings.Contains(string(r.Stdout), "done") {
				t.Fatalf("the command failed (%d): %s", r.ExitCode, r.Stderr)
			}
			if len(r.Quarantined) == 0 || exists(f.ws+"/"+c.made) {
				t.Fatalf("premise: %s was not set aside (%+v)", c.made, r.Quarantined)
			}
			ents, err := os.ReadDir(f.ws)
			if err != nil {
				t.Fatal(err)
			}
			for _, e := range ents {
				if ok, _ := path.Match(c.pattern, e.Name()); !ok || e.Name() == c.had {
					continue
				}
				b, _ := os.ReadFile(f.ws + "/" + e.Name())
				if c.control {
					t.Fatalf("control: %s, which the command's file was set aside as, matches %q", e.Name(), c.pattern)
				}
				t.Errorf("ESCAPED: the command's %s was set aside as %s, which still matches mise.toml's %q in the project's top: mise loads it at the person's next cd (%q)", c.made, e.Name(), c.pattern, b)
			}
			// The next command: the set-aside file is one of the view's
			// matches now, and nothing more is set aside.
			r = sh(t, s, "echo done")
			if !c.control && len(r.Quarantined) == 0 {
				for _, e := range ents {
					if ok, _ := path.Match(c.pattern, e.Name()); ok && e.Name() != c.had && exists(f.ws+"/"+e.Name()) {
						t.Errorf("ESCAPED: %s is still there after the next command's check", e.Name())
					}
				}
			}
		})
	}
}
