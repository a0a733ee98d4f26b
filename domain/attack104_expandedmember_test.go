package domain

import (
	"strings"
	"testing"
)

// TestAttack104_ExpandedMemberRunsHiddenProgram (medium): the README
// promises that "the value of a variable the text expands anywhere but
// where a credential goes … is shown whatever its name" (the forty-second
// to ninety-ninth reviews: a value expanded as the program a shell runs
// is in view). It holds for a variable whose value is a bare secret
// (NAME=…; $NAME) and for "Bearer X" (h="Bearer X"; ${h#Bearer }), but not
// for a variable whose value is a credential's place written out whole —
// a "password=" or "--password=" member, an "Authorization: Bearer"
// header, a JSON "token" member, or the same words handed to the
// positional parameters or read from a pipe — whose secret part the
// command then cuts out with a parameter expansion (${T#*=}, ${h##* },
// ${T%…}), $3 or read, and runs. The approval request shows
//
//	Run T="password=[redacted]"; ${T#*=}
//
// and bash and dash run the program hidden there (here tools/…, a
// script the agent wrote in the workspace); an allow_for_turn grant of it
// covers that same hidden program, so the person approves a command
// without seeing what it runs.
//
// Wanted: the value is shown where the text expands the variable (or the
// positional parameter, or what read set) anywhere but a credential's
// place, as it already is for h="Bearer X"; ${h#Bearer }.
// Controls: that Bearer case is shown; a password piped into
// docker login --password-stdin, and one in mysql's --password=, stay
// hidden.
func TestAttack104_ExpandedMemberRunsHiddenProgram(t *testing.T) {
	const secret = "Zq8vLw3nR2tK9pXs"
	for _, cmd := range []string{
		`DOCKER_PASSWORD=` + secret + `; echo "$DOCKER_PASSWORD" | docker login -u me --password-stdin registry.example`,
		`mysql --password=` + secret + ` -u me db`,
	} {
		if s := shownExec(t, map[string]any{"cmd": cmd}); strings.Contains(s, secret) {
			t.Fatalf("control: a password is shown:\n%s", s)
		}
	}
	const p = attack42Prog
	if s := shownExec(t, map[string]any{"cmd": `h="Bearer ` + p + `"; ${h#Bearer }`}); !strings.Contains(s, p) {
		t.Fatalf("control: the program a Bearer value expanded as the program runs is hidden:\n%s", s)
	}
	for _, c := range []struct{ name, cmd string }{
		{"password= member", `T="password=` + p + `"; ${T#*=}`},
		{"--password= option", `T="--password=` + p + `"; "${T#--password=}"`},
		{"Authorization header", `h="Authorization: Bearer ` + p + `"; ${h##* }`},
		{"JSON token member", `T='{"token":"` + p + `"}'; T=${T#*:\"}; ${T%\"*}`},
		{"positional parameters", `set -- Authorization: Bearer ` + p + `; $3`},
		{"read from a pipe", `echo "Authorization: Bearer ` + p + `" | while read a b c; do $c; done`},
	} {
		for _, sh := range []string{"bash", "dash"} {
			if ran, ok := attack42RunsProg(t, sh, c.cmd); ok && !ran {
				t.Fatalf("premise %s: %s does not run the program of %q", c.name, sh, c.cmd)
			}
		}
		for _, s := range []string{shownExec(t, map[string]any{"cmd": c.cmd}), attack42ShownBash(t, c.cmd)} {
			if !strings.Contains(s, p) {
				t.Errorf("%s: the shell runs %s, and the approval request hides it:\n%s", c.name, p, s)
			}
		}
	}
}
