package sandbox

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"turnstile/domain"
)

// TestShellGlob: a bracket expression as bash reads it matches the same
// names once rewritten for filepath.Match: "!" negates, a class stands for
// any character, a leading "]" is a member, an unclosed "[" is itself.
func TestShellGlob(t *testing.T) {
	for _, c := range []struct {
		pattern, name string
		want          bool
	}{
		{"[!_]*.sh", "env.sh", true},
		{"[!_]*.sh", "_private.sh", false},
		{"[!_]*.sh", "!x.sh", true},
		{"[^_]*.sh", "env.sh", true},
		{"[_]*.sh", "_x.sh", true},
		{"[_]*.sh", "env.sh", false},
		{"[[:alpha:]]*.sh", "env.sh", true},
		{"[![:digit:]]*.sh", "env.sh", true},
		{"[]x]*.sh", "]a.sh", true},
		{"[]x]*.sh", "xa.sh", true},
		{"[]x]*.sh", "a.sh", false},
		{"a[b.sh", "a[b.sh", true},
		{"*.sh", "env.sh", true},
	} {
		got, err := filepath.Match(shellGlob(c.pattern), c.name)
		if err != nil || got != c.want {
			t.Errorf("%q (as %q) on %q: %v %v, want %v", c.pattern, shellGlob(c.pattern), c.name, got, err, c.want)
		}
	}
}

// TestLauncherPatternsBounded: a .envrc naming more patterns than
// maxLauncherPatterns (each brace value one) refuses the commands, as the
// other bounds of what can be watched do, rather than leave some matches
// writable or glob without bound. Control: the same loop with a few
// values runs.
func TestLauncherPatternsBounded(t *testing.T) {
	loop := func(n int) string { // 32 values a word (a word's braces give at most 64)
		var b strings.Builder
		for i := 0; i < n; i += 32 {
			var vals []string
			for k := i; k < min(n, i+32); k++ {
				vals = append(vals, fmt.Sprintf("q%d", k))
			}
			b.WriteString("for f in scripts/*{" + strings.Join(vals, ",") + "}.sh; do source \"$f\"; done\n")
		}
		return b.String()
	}
	f := newPlantFixture(t)
	mkfiles(t, f.ws, map[string]string{".envrc": loop(8), "scripts/a.sh": "export A=1\n"})
	s := snapshotFor(t, domain.ModeAutoAcceptEdits, f.ws, machine().Kernel)
	if r := sh(t, s, "echo ok"); r.ExitCode != 0 || r.SandboxError != "" {
		t.Fatalf("control: with 8 patterns the command did not run: %d %s %s", r.ExitCode, r.SandboxError, r.Stderr)
	}
	g := newPlantFixture(t)
	mkfiles(t, g.ws, map[string]string{".envrc": loop(maxLauncherPatterns + 1), "scripts/a.sh": "export A=1\n"})
	s = snapshotFor(t, domain.ModeAutoAcceptEdits, g.ws, machine().Kernel)
	if r, err := run(t, s, SpawnRequest{Argv: []string{"/bin/sh", "-c", "echo ok"}}, nil); err == nil && r.SandboxError == "" {
		t.Errorf("with %d launcher patterns a command ran: %+v", maxLauncherPatterns+1, r)
	}

	// Fewer patterns over a directory of many names: the names matched
	// are bounded too (each pattern reads the listing).
	h := newPlantFixture(t)
	files := map[string]string{".envrc": loop(maxLauncherPatterns)}
	for i := range maxLauncherGlobWork/maxLauncherPatterns + 1 {
		files[fmt.Sprintf("scripts/n%d", i)] = ""
	}
	mkfiles(t, h.ws, files)
	s = snapshotFor(t, domain.ModeAutoAcceptEdits, h.ws, machine().Kernel)
	if r, err := run(t, s, SpawnRequest{Argv: []string{"/bin/sh", "-c", "echo ok"}}, nil); err == nil && r.SandboxError == "" {
		t.Errorf("with %d launcher patterns over %d names a command ran: %+v", maxLauncherPatterns, maxLauncherGlobWork/maxLauncherPatterns+1, r)
	}
}

// TestEnvrcLibrariesCountAgainstTheBudget: the libraries every .envrc
// sources are read against the view's launcher bytes (16 MiB), not 1 MiB
// each on top: 70 nested .envrc files sourcing a library of 250 KB each
// refuse the commands instead of costing every view 17 MB of reading and
// parsing. Control: three of them run.
func TestEnvrcLibrariesCountAgainstTheBudget(t *testing.T) {
	lib := strings.Repeat("# "+strings.Repeat("x", 97)+"\n", 2500) // 250 KB
	plant := func(n int) *plantFixture {
		f := newPlantFixture(t)
		files := map[string]string{}
		for i := range n {
			files[fmt.Sprintf("d%02d/.envrc", i)] = "source lib.sh\n"
			files[fmt.Sprintf("d%02d/lib.sh", i)] = lib
		}
		mkfiles(t, f.ws, files)
		return f
	}
	f := plant(3)
	s := snapshotFor(t, domain.ModeAutoAcceptEdits, f.ws, machine().Kernel)
	if r := sh(t, s, "echo ok"); r.ExitCode != 0 || r.SandboxError != "" {
		t.Fatalf("control: with 3 libraries the command did not run: %d %s %s", r.ExitCode, r.SandboxError, r.Stderr)
	}
	g := plant(70)
	s = snapshotFor(t, domain.ModeAutoAcceptEdits, g.ws, machine().Kernel)
	if r, err := run(t, s, SpawnRequest{Argv: []string{"/bin/sh", "-c", "echo ok"}}, nil); err == nil && r.SandboxError == "" {
		t.Errorf("with 70 .envrc libraries of 250 KB a command ran: %+v", r)
	}
}
