package sandbox

import (
	"path/filepath"
	"strings"
	"testing"

	"turnstile/domain"
)

// cargo144: rustflags (the protected .cargo/config.toml's) that have the
// linker driver cargo runs load or run a file of the project at every
// cargo build, in forms cargoConfigRefs (launcherparse.go) does not read:
// it keeps linker=PATH and link-arg=-BPATH (mold's documented set-up) only.
//
//   - GNU ld's -plugin loads a shared object into every link;
//   - gcc's -specs file rewrites the driver's programs (its *linker spec);
//   - a response file (@FILE) holds more driver options (-B, -specs);
//   - clang's --ld-path runs the linker named.
var cargo144 = []struct{ name, flags, target string }{
	{"wlPlugin", `"-C", "link-arg=-Wl,-plugin,tools/ldplugin.so"`, "tools/ldplugin.so"},
	{"specs", `"-C", "link-arg=-specs=tools/link.specs"`, "tools/link.specs"},
	{"responseFile", `"-C", "link-arg=@tools/link.rsp"`, "tools/link.rsp"},
	{"clangLdPath", `"-C", "link-arg=--ld-path=tools/ld"`, "tools/ld"},
}

// TestAttack144_CargoLinkArgsWritable: each target is written by a file
// tool and by a command, and stays after the check.
func TestAttack144_CargoLinkArgsWritable(t *testing.T) {
	for _, c := range cargo144 {
		t.Run(c.name, func(t *testing.T) {
			cargoLinkArgCase(t, c.flags, c.target, false)
		})
	}
}

// TestAttack144_CargoLinkArgsWritableControl: the forms the parser reads
// (link-arg=-BPATH, -C linker=PATH) keep the same kind of target.
func TestAttack144_CargoLinkArgsWritableControl(t *testing.T) {
	for _, c := range []struct{ name, flags, target string }{
		{"dashB", `"-C", "link-arg=-Btools/mold"`, "tools/mold/ld"},
		{"linker", `"-C", "linker=tools/ld"`, "tools/ld"},
	} {
		t.Run(c.name, func(t *testing.T) {
			cargoLinkArgCase(t, c.flags, c.target, true)
		})
	}
}

func cargoLinkArgCase(t *testing.T, flags, target string, control bool) {
	t.Helper()
	f := newPlantFixture(t)
	data := "[build]\nrustflags = [" + flags + "]\n"
	mkfiles(t, f.ws, map[string]string{".cargo/config.toml": data, target: "original\n", "notes/other.txt": "o\n"})
	s := snapshotFor(t, domain.ModeAutoAcceptEdits, f.ws, machine().Kernel)
	if _, err := (DecisionChecker{}).ResolveFile(s, ".cargo/config.toml", domain.AccessWrite, false); err == nil {
		t.Fatalf("premise: .cargo/config.toml itself is writable")
	}
	what := "ESCAPED"
	if control {
		what = "control"
	}
	if _, err := (DecisionChecker{}).ResolveFile(s, target, domain.AccessWrite, false); err == nil {
		t.Errorf("%s (decision): a write of %s, which the protected .cargo/config.toml's rustflags [%s] have every cargo build load or run, was allowed", what, target, flags)
	}
	r := sh(t, s, "echo 'touch /tmp/pwned144' >> "+target+" && echo wrote")
	if strings.Contains(string(r.Stdout), "wrote") && strings.Contains(readFile(t, filepath.Join(f.ws, target)), "pwned144") {
		t.Errorf("%s (command): a command wrote %s, which the protected .cargo/config.toml's rustflags [%s] name, and it stayed", what, target, flags)
	}
	if control {
		r = sh(t, s, "echo x >> notes/other.txt && echo wrote")
		if !strings.Contains(string(r.Stdout), "wrote") {
			t.Errorf("control: a command could not write notes/other.txt: %s", r.Stderr)
		}
	}
}
