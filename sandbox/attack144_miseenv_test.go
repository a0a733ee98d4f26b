package sandbox

import (
	"testing"
)

// mise144env: mise's [env] sets the person's environment at every prompt
// in the project (mise activate's hook-env), as .envrc's exports do; a
// plain variable naming a file of the project has every program the
// person starts there load it, and miseRefs (launcherparse.go) reads only
// _.source, _.file and _.path of [env]:
//
//   - LD_PRELOAD: every dynamically linked program loads the library;
//   - PYTHONPATH: every python imports a sitecustomize.py from it;
//   - NODE_OPTIONS: every node requires the script;
//   - GIT_CONFIG_GLOBAL: every git reads it (core.fsmonitor).
var mise144env = []struct{ name, data, target string }{
	{"ldPreload", "[env]\nLD_PRELOAD = \"{{config_root}}/tools/hook.so\"\n", "tools/hook.so"},
	{"pythonpath", "[env]\nPYTHONPATH = \"{{config_root}}/lib\"\n", "lib/sitecustomize.py"},
	{"nodeOptions", "[env]\nNODE_OPTIONS = \"--require {{config_root}}/scripts/hook.js\"\n", "scripts/hook.js"},
	{"gitConfigGlobal", "[env]\nGIT_CONFIG_GLOBAL = \"{{config_root}}/.gitconfig.local\"\n", ".gitconfig.local"},
}

// TestAttack144_MiseEnvTargetWritable: each target is written by a file
// tool and by a command, and stays after the check (jvmFormCase: the same
// assertions, for mise.toml).
func TestAttack144_MiseEnvTargetWritable(t *testing.T) {
	for _, c := range mise144env {
		t.Run(c.name, func(t *testing.T) {
			jvmFormCase(t, "mise.toml", c.data, c.target, false)
		})
	}
}

// TestAttack144_MiseEnvTargetWritableControl: the same targets named by
// [env]'s _.source, _.file and _.path are kept.
func TestAttack144_MiseEnvTargetWritableControl(t *testing.T) {
	for _, c := range []struct{ name, data, target string }{
		{"source", "[env]\n_.source = \"{{config_root}}/tools/hook.so\"\n", "tools/hook.so"},
		{"path", "[env]\n_.path = [\"{{config_root}}/lib\"]\n", "lib/sitecustomize.py"},
		{"file", "[env]\n_.file = \"{{config_root}}/.gitconfig.local\"\n", ".gitconfig.local"},
	} {
		t.Run(c.name, func(t *testing.T) {
			jvmFormCase(t, "mise.toml", c.data, c.target, true)
		})
	}
}
