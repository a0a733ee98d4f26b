package domain

import (
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestAttack35ExportedBashFunctionRunsUnseen: 04191db shows a command
// request's values of "the variables that choose what runs" by a list of
// names. bash imports every variable named BASH_FUNC_<name>%% whose value
// starts "() {" as the function <name>, and a function wins over a program
// of the same name: with env {"BASH_FUNC_git%%": "() { <agent's code>; }"}
// the approved `bash -c 'git status'` (or any bash script, ./build.sh,
// that runs git) runs the agent's code and never git. A mode whose
// environment is inherit = "all" (README's profile example; the request's
// variables pass as the server's do) lets it reach the command, and the
// request shows "Environment: BASH_FUNC_git%%", the name only.
//
// The premise is shown with the real bash (skipped where there is none).
// The secure behaviour asserted: the value of a variable that makes what
// the command runs a different program is shown, as PATH's is (the
// control).
func TestAttack35ExportedBashFunctionRunsUnseen(t *testing.T) {
	const name, fn = "BASH_FUNC_git%%", "() { echo AGENT-FUNCTION-RAN; }"
	all := CompiledEnvironment{Inherit: InheritAll, Exclude: secretExcludes()}
	if got := all.Apply([]string{name + "=" + fn}); !slices.Contains(got, name+"="+fn) {
		t.Fatalf("premise: an inherit = \"all\" environment drops %s (%v)", name, got)
	}
	if bash, err := exec.LookPath("bash"); err == nil {
		cmd := exec.Command(bash, "-c", "git status")
		cmd.Env = append(os.Environ(), name+"="+fn)
		out, _ := cmd.CombinedOutput()
		if !strings.Contains(string(out), "AGENT-FUNCTION-RAN") {
			t.Fatalf("premise: bash did not run the exported function: %q", out)
		}
		t.Logf("bash -c 'git status' with %s set printed %q", name, strings.TrimSpace(string(out)))
	}

	env := map[string]any{name: fn, "PATH": "/usr/bin:/bin"}
	got := envDetail([]string{name, "PATH"}, env, nil)
	if !strings.Contains(got, `PATH="/usr/bin:/bin"`) {
		t.Fatalf("control: PATH's value is not shown: %s", got)
	}
	if !strings.Contains(got, name+"="+strconv.Quote(fn)) {
		t.Errorf("the request's Environment detail hides the function the command runs in place of git: shown %q", got)
	}
}
