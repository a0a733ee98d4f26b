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
		// Review 192's spellings.
		{"source `pwd`/x", "source ./x"},
		{`source "$( pwd )/x"`, `source "./x"`},
		{`source "$(builtin pwd)/x"`, `source "./x"`},
		{`source "$(realpath -s .)/x"`, `source "./x"`},
		{`source "$(cd "$(dirname "${BASH_SOURCE[0]}")"; pwd)/x"`, `source "./x"`},
		{`source "$(cd "$(dirname -- "${BASH_SOURCE[0]}")" >/dev/null 2>&1 && pwd -P)/x"`, `source "./x"`},
		{`source "$(dirname -- "${BASH_SOURCE[0]}")/x"`, `source "./x"`},
		{"export PATH=\"`pwd`/bin:$PATH\"", "export PATH=\"./bin:$PATH\""},
		{`x=$(pwdx)/y`, `x=$(pwdx)/y`},
	} {
		if got := envrcPWDText(c[0]); got != c[1] {
			t.Errorf("envrcPWDText(%q) = %q, want %q", c[0], got, c[1])
		}
	}
}
