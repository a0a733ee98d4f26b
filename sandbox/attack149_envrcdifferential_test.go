package sandbox

import (
	"path/filepath"
	"strings"
	"testing"

	"turnstile/domain"
)

// envrc149: forms of a protected .envrc that name a file of the project by
// a bare name the way bash (direnv runs .envrc through bash) reads it, but
// not the way envrcBareRefs (launcherbare.go) reads it. literalWord keeps
// a syntax.Lit's raw text (a backslash escape stays, "en\v.sh" for bash's
// "env.sh"), keeps an ANSI-C quoted word undecoded ($'env\x2esh'), does
// not expand braces ({env,x}.sh), and a string that bash reads again as a
// script (eval "source env.sh", bash -c "...") is kept as one word
// "source env.sh", a file name that does not exist; and a redirection's
// word (source /dev/stdin < env.sh, bash < env.sh, eval "$(< env.sh)") is
// not read at all (syntax.Walk's CallExpr case reads Args and Assigns, a
// statement's Redirs are never looked at). None of these names an
// existing file, so the target stays writable to a write decision and to a
// command, and the person's next cd into the project sources what the
// agent wrote. Each was checked with bash: every form sources ./env.sh.
var envrc149 = []struct{ name, data string }{
	{"backslashEscape", "source en\\v.sh\n"},
	{"ansiCQuoted", "source $'env\\x2esh'\n"},
	{"braceExpansion", "source {env,x}.sh\n"},
	{"evalString", "eval \"source env.sh\"\n"},
	{"bashDashC", "bash -c \"source env.sh\"\n"},
	// A redirection's word is on the statement, not among a call's
	// arguments: $(< env.sh) is a command substitution of no command.
	{"evalSubstRedirect", "eval \"$(< env.sh)\"\n"},
	{"sourceStdinRedirect", "source /dev/stdin < env.sh\n"},
	{"bashStdinRedirect", "bash < env.sh\n"},
	// A for clause's words are no call's arguments either.
	{"forList", "for f in env.sh; do source \"$f\"; done\n"},
}

// TestAttack149_EnvrcParserDifferential: env.sh, which each .envrc above
// sources, is written by a file tool and by a command and stays after the
// check. Control in the same subtest: the plain form ("source env.sh")
// keeps the same file read-only to both, and an ordinary file beside it is
// written.
func TestAttack149_EnvrcParserDifferential(t *testing.T) {
	for _, c := range envrc149 {
		t.Run(c.name, func(t *testing.T) {
			// Control: the plain form protects env.sh; other.sh stays writable.
			{
				f := newPlantFixture(t)
				mkfiles(t, f.ws, map[string]string{".envrc": "source env.sh\n", "env.sh": "# original\n", "other.sh": "o\n"})
				s := snapshotFor(t, domain.ModeAutoAcceptEdits, f.ws, machine().Kernel)
				if _, err := (DecisionChecker{}).ResolveFile(s, "env.sh", domain.AccessWrite, false); err == nil {
					t.Fatalf("control: a write of env.sh, which .envrc %q names, was allowed", "source env.sh")
				}
				if _, err := (DecisionChecker{}).ResolveFile(s, "other.sh", domain.AccessWrite, false); err != nil {
					t.Fatalf("control: a write of other.sh: %v", err)
				}
				if r := sh(t, s, "echo 'touch /tmp/pwned149' >> env.sh && echo wrote"); strings.Contains(string(r.Stdout), "wrote") {
					t.Fatalf("control: a command wrote env.sh, named by the plain .envrc")
				}
				if r := sh(t, s, "echo x >> other.sh && echo wrote"); !strings.Contains(string(r.Stdout), "wrote") {
					t.Fatalf("control: a command could not write other.sh: %s", r.Stderr)
				}
			}
			f := newPlantFixture(t)
			mkfiles(t, f.ws, map[string]string{".envrc": c.data, "env.sh": "# original\n"})
			s := snapshotFor(t, domain.ModeAutoAcceptEdits, f.ws, machine().Kernel)
			if _, err := (DecisionChecker{}).ResolveFile(s, ".envrc", domain.AccessWrite, false); err == nil {
				t.Fatalf("premise: .envrc itself is writable")
			}
			if _, err := (DecisionChecker{}).ResolveFile(s, "env.sh", domain.AccessWrite, false); err == nil {
				t.Errorf("ESCAPED (decision): a write of env.sh, which the protected .envrc %q sources when bash reads it, was allowed", strings.TrimSpace(c.data))
			}
			r := sh(t, s, "echo 'touch /tmp/pwned149' >> env.sh && echo wrote")
			if strings.Contains(string(r.Stdout), "wrote") && exists(filepath.Join(f.ws, "env.sh")) {
				t.Errorf("ESCAPED (command): a command wrote env.sh, which the protected .envrc %q sources when bash reads it, and it stayed after the check", strings.TrimSpace(c.data))
			}
		})
	}
}
