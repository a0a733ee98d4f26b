package sandbox

import (
	"testing"
)

// TestAttack159_EnvrcTrapScript (review 159, medium: host code execution
// when the person's direnv next loads .envrc). envrcWordsWith reads the
// strings bash runs as code, eval's words and a shell's -c script, as
// .envrc itself (a name they source is watched where it does not exist).
// trap's first argument is such a string too: `trap 'source
// .envrc.cleanup.sh' EXIT` sources the file when direnv's bash ends, but
// trap is not among those read, and its string is a single word with
// spaces, no path: .envrc.cleanup.sh, missing, is not watched; the command
// makes it and it stays.
//
// Control: the same line through eval (`eval 'source evaled.sh'`) in the
// same .envrc, and `source setup.sh`, are watched.
func TestAttack159_EnvrcTrapScript(t *testing.T) {
	envrcRunWatchCase(t, map[string]string{".envrc": "source setup.sh\n" +
		"eval 'source evaled.sh'\n" +
		"trap 'source trapped.sh' EXIT\n"}, []string{"trapped.sh"}, "in the script trap runs at EXIT")
	// The control through eval, checked by the same helper (it must pass).
	envrcRunWatchCase(t, map[string]string{".envrc": "source setup.sh\neval 'source evaled.sh'\n"}, []string{"evaled.sh"}, "control: through eval")
}
