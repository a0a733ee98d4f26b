package domain

import (
	"strings"
	"testing"
)

// TestAttack46PipedValueReachesAShell: stdinOfAProgram calls a value echo
// pipes into a program a credential's place unless that program is in
// readersOfStdin, and it looks at the first program after the pipe only,
// by its bare name. The value reaches a shell all the same through a
// program that passes its input on (cat, tee), a prefix command (command
// sh, nice sh), a subshell or group ((sh), { sh; }) or a quoted name:
//
//	API_TOKEN=tools/x; echo "$API_TOKEN" | cat | sh
//
// The approval request shows "API_TOKEN=[redacted]; echo … | cat | sh":
// the program sh runs is hidden, bash and dash run it.
//
// Control: a secret piped into docker login --password-stdin stays hidden.
func TestAttack46PipedValueReachesAShell(t *testing.T) {
	const v = "Zq8vLw3nR2tK9pXs"
	if s := shownExec(t, map[string]any{"cmd": `DOCKER_PASSWORD=` + v + `; echo "$DOCKER_PASSWORD" | docker login -u me --password-stdin registry.example`}); strings.Contains(s, v) {
		t.Fatalf("control: a password piped to docker login is shown:\n%s", s)
	}
	var cases []attack42KeyCase
	for _, tail := range []string{"| cat | sh", "| tee /dev/null | sh", "| command sh", "| nice sh", `| "sh"`, "| (sh)", "| { sh; }"} {
		cases = append(cases, attack42KeyCase{
			name: tail,
			cmd:  `API_TOKEN=` + attack42Prog + `; echo "$API_TOKEN" ` + tail,
			runs: []string{"bash", "dash"},
		})
	}
	for _, c := range cases {
		for _, sh := range c.runs {
			if ran, ok := attack42RunsProg(t, sh, c.cmd); ok && !ran {
				t.Fatalf("premise %s: %s does not run the program of %q", c.name, sh, c.cmd)
			}
		}
		for _, s := range []string{shownExec(t, map[string]any{"cmd": c.cmd}), attack42ShownBash(t, c.cmd)} {
			if !strings.Contains(s, attack42Prog) {
				t.Errorf("%s: the shell runs %s, and the approval request hides it:\n%s", c.name, attack42Prog, s)
			}
		}
	}
}
