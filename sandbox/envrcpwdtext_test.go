package sandbox

import "testing"

// TestEnvrcPWDText: the project directory's spellings read as "." (review 190),
// and words that only look like them left alone.
func TestEnvrcPWDText(t *testing.T) {
	for _, c := range [][2]string{
		{`source "$PWD"/scripts/env.sh`, `source "."/scripts/env.sh`},
		{`source ~+/scripts/env.sh`, `source ./scripts/env.sh`},
		{`source "${PWD%/}/x"`, `source "./x"`},
		{`source "$(pwd -P)/x"`, `source "./x"`},
		{`source "$(realpath .)/x"`, `source "./x"`},
		{`x=$(pwd)`, `x=.`},
		{`~+`, `.`},
		{`a~+/x`, `a~+/x`},
		{`$PWDX/y`, `$PWDX/y`},
		{`PATH=~+/bin:$PATH`, `PATH=./bin:$PATH`},
	} {
		if got := envrcPWDText(c[0]); got != c[1] {
			t.Errorf("envrcPWDText(%q) = %q, want %q", c[0], got, c[1])
		}
	}
}
