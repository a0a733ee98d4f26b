package sandbox

import (
	"os"
	"path/filepath"
	"testing"

	"turnstile/domain"
)

// TestAttack201_WayLinkDanglingThenWrite: the person's .mvn (a link to a
// file) retargeted by a command to a name that does not exist (x): the
// check after it looks up .mvn/jvm.config, gets ENOENT, and takes the
// path for not made (setAsideMade); madeWayLink passes the link, one of
// wayLinks, whatever it leads to now. Then the agent's file tool (which
// no check follows) writes x/jvm.config, a path the protected list does
// not name: mvn in the project reads it as .mvn/jvm.config.
//
// Control: the same file write at .mvn/jvm.config is refused, and the
// same retarget to a directory x holding jvm.config (made by the command)
// is set aside.
func TestAttack201_WayLinkDanglingThenWrite(t *testing.T) {
	f := requireKernel(t, true)
	workspace := func() string {
		ws := tempWorkspace(t)
		mkfiles(t, ws, map[string]string{"mvnfile": "x\n", "src/main.go": "package main\n"})
		mustDo(t, os.Symlink("mvnfile", filepath.Join(ws, ".mvn")))
		return ws
	}

	// Control: the command retargets to a directory it made holding
	// jvm.config.
	ws := workspace()
	s := snapshotFor(t, domain.ModeAutoAcceptEdits, ws, f.Kernel)
	r := sh(t, s, `cd `+ws+` && mkdir x && echo '`+attack201JVMConfig[:len(attack201JVMConfig)-1]+`' > x/jvm.config && ln -sfn x .mvn && echo moved`)
	if string(r.Stdout) != "moved\n" {
		t.Fatalf("premise: the command did not retarget .mvn: %q %q", r.Stdout, r.Stderr)
	}
	if got := hostReads(ws, ".mvn/jvm.config"); got != "" || len(r.Quarantined) == 0 {
		t.Fatalf("control: .mvn retargeted to a directory holding jvm.config was not set aside: host reads %q, %+v", got, r.Quarantined)
	}

	// Attack: the command retargets to x, missing.
	ws = workspace()
	s = snapshotFor(t, domain.ModeAutoAcceptEdits, ws, f.Kernel)
	r = sh(t, s, `cd `+ws+` && ln -sfn x .mvn && echo moved`)
	if string(r.Stdout) != "moved\n" {
		t.Fatalf("premise: the command did not retarget .mvn: %q %q", r.Stdout, r.Stderr)
	}
	t.Logf("set aside after the retarget: %+v", r.Quarantined)
	// Control: the file tool's write at .mvn/jvm.config.
	if _, err := (DecisionChecker{}).ResolveFile(s, filepath.Join(ws, ".mvn", "jvm.config"), domain.AccessWrite, false); err == nil {
		t.Fatalf("control: a file write at .mvn/jvm.config (through the retargeted link) is allowed")
	}
	target := filepath.Join(ws, "x", "jvm.config")
	resolved, err := (DecisionChecker{}).ResolveFile(s, target, domain.AccessWrite, false)
	if err != nil {
		t.Logf("the file write at x/jvm.config is refused: %v", err)
		return
	}
	// The file tool writes it (Claude Code's Write makes the directory).
	mkfiles(t, ws, map[string]string{"x/jvm.config": attack201JVMConfig})
	// The next command runs and its check sees the link.
	r = sh(t, s, `cd `+ws+` && echo next`)
	if got := hostReads(ws, ".mvn/jvm.config"); got == attack201JVMConfig {
		t.Errorf("the person's .mvn, retargeted by a command to a missing x, was not set aside (%+v), the file write at %s "+
			"was allowed (resolved %s), and the next command's check left it (%+v): mvn in the project reads the agent's "+
			".mvn/jvm.config %q", r.Quarantined, target, resolved, r.Quarantined, got)
	}
}
