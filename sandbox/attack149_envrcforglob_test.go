package sandbox

import (
	"path/filepath"
	"strings"
	"testing"

	"turnstile/domain"
)

// TestAttack149_EnvrcForLoopGlob: direnv's common idiom of sourcing every
// script of a directory, `for f in *.sh; do source "$f"; done`, in the
// protected .envrc at the project's top. The pattern is a word of a for
// clause, not an argument of a call: envrcBareRefs (launcherbare.go) walks
// only CallExpr arguments and drops every word with a "*", and pathTokens
// takes a word for a path only when it holds a "/" or starts with ".", so
// neither the existing match (a.sh) is kept read-only nor is a new match
// (b.sh) refused to a write decision or set aside after a command
// (launcherglob.go is never told of the pattern). The person's next cd
// into the project sources what the agent wrote. Control in the same test:
// `source *.sh`, the same pattern as a call's argument, keeps a.sh
// read-only and refuses b.sh; an ordinary file (notes.txt) is written
// under both.
func TestAttack149_EnvrcForLoopGlob(t *testing.T) {
	for _, c := range []struct {
		name, envrc string
		control     bool
	}{
		{"control_sourceGlob", "source *.sh\n", true},
		{"forLoopGlob", "for f in *.sh; do source \"$f\"; done\n", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := newPlantFixture(t)
			mkfiles(t, f.ws, map[string]string{".envrc": c.envrc, "a.sh": "# original\n", "notes.txt": "n\n"})
			s := snapshotFor(t, domain.ModeAutoAcceptEdits, f.ws, machine().Kernel)
			if _, err := (DecisionChecker{}).ResolveFile(s, ".envrc", domain.AccessWrite, false); err == nil {
				t.Fatalf("premise: .envrc itself is writable")
			}
			if _, err := (DecisionChecker{}).ResolveFile(s, "notes.txt", domain.AccessWrite, false); err != nil {
				t.Fatalf("premise: a write of notes.txt was refused: %v", err)
			}
			if r := sh(t, s, "echo x >> notes.txt && echo wrote"); !strings.Contains(string(r.Stdout), "wrote") {
				t.Fatalf("premise: a command could not write notes.txt: %s", r.Stderr)
			}
			report := t.Errorf
			if c.control {
				report = t.Fatalf
			}
			for _, p := range []string{"a.sh", "b.sh"} {
				if _, err := (DecisionChecker{}).ResolveFile(s, p, domain.AccessWrite, false); err == nil {
					report("ESCAPED (decision): a write of %s, a match of *.sh which the protected .envrc %q sources, was allowed", p, strings.TrimSpace(c.envrc))
				}
			}
			r := sh(t, s, "echo 'touch /tmp/pwned149' >> a.sh; echo 'touch /tmp/pwned149' > b.sh; echo done")
			if readFile(t, filepath.Join(f.ws, "a.sh")) != "# original\n" {
				report("ESCAPED (command): a command rewrote a.sh, a match of *.sh which the protected .envrc %q sources", strings.TrimSpace(c.envrc))
			}
			if exists(filepath.Join(f.ws, "b.sh")) {
				report("ESCAPED (command): a command made b.sh, a new match of *.sh which the protected .envrc %q sources, and it stayed after the check (quarantined: %+v)", strings.TrimSpace(c.envrc), r.Quarantined)
			}
		})
	}
}
