package sandbox

import (
	"os"
	"slices"
	"strings"
	"testing"

	"turnstile/domain"
)

// TestLauncherGlobNewMatchSetAside: a trusted mise.toml at the project's
// top sources every "*.sh" there (`_.source`), into the person's shell when
// they enter the directory. A match that exists stays read-only (as
// before); a new one, which the command makes, is set aside after it, and
// a file tool's write that would make one is refused. Controls: a file of
// another name is written and stays, a decision on it is allowed, and a
// ".sh" file in a subdirectory (which the pattern does not reach) stays.
func TestLauncherGlobNewMatchSetAside(t *testing.T) {
	f := newPlantFixture(t)
	mkfiles(t, f.ws, map[string]string{"mise.toml": "[env]\n_.source = \"*.sh\"\n", "env.sh": "export A=1\n"})
	s := snapshotFor(t, domain.ModeAutoAcceptEdits, f.ws, machine().Kernel)
	if _, err := (DecisionChecker{}).ResolveFile(s, f.ws+"/evil.sh", domain.AccessWrite, false); err == nil {
		t.Error("a write decision that makes a new match of mise's _.source pattern was allowed")
	}
	if _, err := (DecisionChecker{}).ResolveFile(s, f.ws+"/notes.txt", domain.AccessWrite, false); err != nil {
		t.Errorf("control: a write decision on a name the pattern does not match was refused: %v", err)
	}
	r := sh(t, s, "echo 'touch "+f.marker+"' > evil.sh; echo n > notes.txt; mkdir -p sub && echo x > sub/deep.sh; echo y >> env.sh; echo done")
	if r.ExitCode != 0 || !strings.Contains(string(r.Stdout), "done") {
		t.Fatalf("the command failed (%d): %s", r.ExitCode, r.Stderr)
	}
	if got := quarantined(r); !slices.Equal(got, []string{f.ws + "/evil.sh"}) {
		t.Fatalf("quarantined %v, want only evil.sh (%+v)", got, r.Quarantined)
	}
	if exists(f.ws + "/evil.sh") {
		t.Error("evil.sh is still where mise sources it")
	}
	if b, _ := os.ReadFile(f.ws + "/env.sh"); string(b) != "export A=1\n" {
		t.Errorf("the existing match was rewritten: %q", b)
	}
	for _, p := range []string{"/notes.txt", "/sub/deep.sh"} {
		if !exists(f.ws + p) {
			t.Errorf("control: %s was set aside", p)
		}
	}
	// The next command's view has no new match: nothing more is set aside.
	r = sh(t, s, "echo z > notes.txt; echo done")
	if r.ExitCode != 0 || len(r.Quarantined) != 0 {
		t.Fatalf("the next command: %d %+v %s", r.ExitCode, r.Quarantined, r.Stderr)
	}
}

// TestLauncherGlobSetAsideBlocked: a command that also makes a file (or a
// link) at the name of the directory new matches are moved into does not
// keep its match: the blocker is set aside first. Control: a match moved
// below untrustedDir no longer matches the pattern.
func TestLauncherGlobSetAsideBlocked(t *testing.T) {
	f := newPlantFixture(t)
	mkfiles(t, f.ws, map[string]string{"mise.toml": "[env]\n_.source = \"env*\"\n", "env.sh": "export A=1\n"})
	s := snapshotFor(t, domain.ModeAutoAcceptEdits, f.ws, machine().Kernel)
	r := sh(t, s, "echo x > "+untrustedDir+"; echo 'touch "+f.marker+"' > envx.sh; ln -s /tmp envy; echo done")
	if r.ExitCode != 0 || !strings.Contains(string(r.Stdout), "done") {
		t.Fatalf("the command failed (%d): %s", r.ExitCode, r.Stderr)
	}
	for _, n := range []string{"envx.sh", "envy"} {
		if _, err := os.Lstat(f.ws + "/" + n); err == nil {
			t.Errorf("%s stays where mise sources it (set aside: %+v)", n, r.Quarantined)
		}
		if _, err := os.Lstat(f.ws + "/" + untrustedDir + "/" + n); err != nil {
			t.Errorf("%s is not below %s: %v", n, untrustedDir, err)
		}
	}
	if b, _ := os.ReadFile(f.ws + "/env.sh"); string(b) != "export A=1\n" {
		t.Errorf("control: the person's env.sh changed: %q", b)
	}
}

// TestLauncherGlobDeepNewMatchSetAside: a pattern whose wildcard is in an
// earlier element than the last (_.source = "*/env.sh" in the project's
// own directory). A new directory with an env.sh, and an env.sh in an
// existing directory, made by the command, are set aside; a file tool's
// write that would make one is refused. Controls: the existing match stays
// and is not rewritten, a file of another name in a new directory stays,
// and a decision on it is allowed.
func TestLauncherGlobDeepNewMatchSetAside(t *testing.T) {
	f := newPlantFixture(t)
	mkfiles(t, f.ws, map[string]string{"mise.toml": "[env]\n_.source = \"*/env.sh\"\n", "a/env.sh": "export A=1\n", "src/main.go": "package main\n"})
	s := snapshotFor(t, domain.ModeAutoAcceptEdits, f.ws, machine().Kernel)
	for _, p := range []string{"/b/env.sh", "/src/env.sh"} {
		if _, err := (DecisionChecker{}).ResolveFile(s, f.ws+p, domain.AccessWrite, false); err == nil {
			t.Errorf("a write decision on %s, a new match of mise's _.source pattern, was allowed", p)
		}
	}
	if _, err := (DecisionChecker{}).ResolveFile(s, f.ws+"/b/notes.txt", domain.AccessWrite, false); err != nil {
		t.Errorf("control: a write decision on a name the pattern does not match was refused: %v", err)
	}
	r := sh(t, s, "mkdir b c && echo 'touch "+f.marker+"' > b/env.sh && echo 'touch "+f.marker+"' > src/env.sh && echo n > c/notes.txt; echo y >> a/env.sh; echo done")
	if r.ExitCode != 0 || !strings.Contains(string(r.Stdout), "done") {
		t.Fatalf("the command failed (%d): %s", r.ExitCode, r.Stderr)
	}
	got := quarantined(r)
	slices.Sort(got)
	if want := []string{f.ws + "/b/env.sh", f.ws + "/src/env.sh"}; !slices.Equal(got, want) {
		t.Fatalf("quarantined %v, want %v (%+v)", got, want, r.Quarantined)
	}
	for _, p := range []string{"/b/env.sh", "/src/env.sh"} {
		if exists(f.ws + p) {
			t.Errorf("%s is still where mise sources it", p)
		}
	}
	if b, _ := os.ReadFile(f.ws + "/a/env.sh"); string(b) != "export A=1\n" {
		t.Errorf("the existing match was rewritten: %q", b)
	}
	for _, p := range []string{"/c/notes.txt", "/src/main.go"} {
		if !exists(f.ws + p) {
			t.Errorf("control: %s was set aside", p)
		}
	}
	// The next command's view has no new match: nothing more is set aside.
	r = sh(t, s, "echo z > c/notes.txt; echo done")
	if r.ExitCode != 0 || len(r.Quarantined) != 0 {
		t.Fatalf("the next command: %d %+v %s", r.ExitCode, r.Quarantined, r.Stderr)
	}
}

// TestLauncherGlobDeepMatchThroughLink: a new match of "*/env.sh" reached
// through a directory link the command made, to a directory of its own
// elsewhere in the root, is set aside where the file really is.
func TestLauncherGlobDeepMatchThroughLink(t *testing.T) {
	f := newPlantFixture(t)
	mkfiles(t, f.ws, map[string]string{"mise.toml": "[env]\n_.source = \"*/env.sh\"\n"})
	s := snapshotFor(t, domain.ModeAutoAcceptEdits, f.ws, machine().Kernel)
	r := sh(t, s, "mkdir -p .hidden/d && echo 'touch "+f.marker+"' > .hidden/d/env.sh && ln -s .hidden/d x; echo done")
	if r.ExitCode != 0 || !strings.Contains(string(r.Stdout), "done") {
		t.Fatalf("the command failed (%d): %s", r.ExitCode, r.Stderr)
	}
	if exists(f.ws + "/x/env.sh") {
		t.Errorf("x/env.sh (through a link the command made) is still where mise sources it: %+v", r.Quarantined)
	}
}
