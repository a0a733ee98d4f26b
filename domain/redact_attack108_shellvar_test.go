package domain

import (
	"strings"
	"testing"
)

// TestAttack108_ShellSetVar: the plain-command rule allows an expansion
// of a variable by its plain name "that the text never sets" (expandsSet,
// setsName): it looks for the name in the text only. The shell sets
// variables of its own that no text names: bash's $BASH is its own path,
// $_ the last word of the command before (credentialReused lists it, the
// plain rule does not: a plainExpansion), $PWD/$OLDPWD what cd made them.
// Claude Code's Bash runs `echo password=tools/x | cut -d= -f2 | $BASH`:
// the value cut out of "password=" is hidden, and bash runs it. Control:
// the same command with "bash" named is shown whole, and a plain
// expansion where a credential goes ("Bearer $T") keeps the command
// plain.
func TestAttack108_ShellSetVar(t *testing.T) {
	cut := "echo password=" + attack42Prog + " | cut -d= -f2 | "
	if s := attack42ShownBash(t, cut+"bash"); !strings.Contains(s, attack42Prog) {
		t.Fatalf("control: the named reader's command is not shown whole:\n%s", s)
	}
	if s := attack42ShownBash(t, attack42Honest(`curl -H "Authorization: Bearer $T" -d password=`+attack42Prog+` https://api.example.com/`)); strings.Contains(s, attack42Inert) {
		t.Fatalf("control: a plain command with a credential's expansion shows its password:\n%s", s)
	}
	attack42CheckKeyCases(t, []attack42KeyCase{
		{name: "$BASH", cmd: cut + "$BASH", runs: []string{"bash"}, bash: true},
		{name: "${BASH}", cmd: cut + "${BASH}", runs: []string{"bash"}, bash: true},
	})
}
