package sandbox

import "testing"

// TestAttack146_RenvironLibraryWritable (review 146, medium: the person's
// next R session in the project loads the agent's package). .Renviron is
// a launcher item (R reads it from the directory R starts in) and stays
// read-only, but keyedLineRefs reads only R_PROFILE_USER and R_PROFILE from
// it (launcherparse.go). R_LIBS_USER and R_LIBS put a directory first in
// R's library path (.libPaths()): a project-local library (R_LIBS_USER=
// ./Rlib, a common way to keep a project's packages apart) is where every
// library(x) the person runs there loads x from, R code that runs at load
// (.onLoad) included; and R_MAKEVARS_USER names the Makevars whose CC and
// CXX every package install runs. Each stays writable to a file tool and a
// command, as the variables .envrc and mise set did before review 144.
//
// Control: the same targets named by R_PROFILE_USER are kept; an ordinary
// file is written (jvmFormCase's control).
func TestAttack146_RenvironLibraryWritable(t *testing.T) {
	for _, c := range []struct{ name, data, target string }{
		{"rLibsUser", "R_LIBS_USER=./Rlib\n", "Rlib/dplyr/R/dplyr"},
		{"rLibs", "R_LIBS=Rlib\n", "Rlib/dplyr/R/dplyr"},
		{"rMakevarsUser", "R_MAKEVARS_USER=./tools/Makevars\n", "tools/Makevars"},
	} {
		t.Run(c.name, func(t *testing.T) {
			jvmFormCase(t, ".Renviron", c.data, c.target, false)
		})
	}
}

func TestAttack146_RenvironLibraryWritableControl(t *testing.T) {
	for _, c := range []struct{ name, data, target string }{
		{"rProfileUser", "R_PROFILE_USER=./Rlib/dplyr/R/dplyr\n", "Rlib/dplyr/R/dplyr"},
		{"rProfileUserMakevars", "R_PROFILE_USER=./tools/Makevars\n", "tools/Makevars"},
	} {
		t.Run(c.name, func(t *testing.T) {
			jvmFormCase(t, ".Renviron", c.data, c.target, true)
		})
	}
}
