package sandbox

import (
	"os"
	"path/filepath"
	"testing"

	"turnstile/domain"
)

// TestAttack202_WayLinkRetargetEmpty (review 202, against 71dc44ff):
// madeWayLink trusts a symlink of pc.wayLinks by its path, not its
// identity nor its target: the command may replace the person's .mvn
// (a link to a file, .mvn/jvm.config missing, nothing held) with its own
// link to any directory reached through no magic link. Pointed at an
// empty directory, .mvn/jvm.config is still missing at the check, which
// takes it for "not made", and the link stays. The directory is in
// another root of the agent's (here ws/sub; another workspace is the
// same): the next command over it writes jvm.config there, a name no
// rule protects at that root, and its check watches only its own root's
// protected paths. mvn run in ws then reads the command's jvm.config.
// No magic link, no /proc: the per-path trust of a known way link is
// enough.
//
// Control: the same retarget with jvm.config already in the directory
// (set aside by the first command's check).
func TestAttack202_WayLinkRetargetEmpty(t *testing.T) {
	f := requireKernel(t, true)
	workspace := func() string {
		ws := tempWorkspace(t)
		mkfiles(t, ws, map[string]string{"mvnfile": "x\n", "sub/README": "r\n"})
		mustDo(t, os.Symlink("mvnfile", filepath.Join(ws, ".mvn")))
		return ws
	}

	// Control: retarget to a directory that already holds jvm.config.
	ws := workspace()
	r := sh(t, snapshotFor(t, domain.ModeAutoAcceptEdits, ws, f.Kernel),
		`cd `+ws+` && mkdir -p sub/m && printf -- '`+attack201JVMConfig+`' > sub/m/jvm.config && ln -sfn sub/m .mvn && echo moved`)
	if string(r.Stdout) != "moved\n" {
		t.Fatalf("premise: %q %q", r.Stdout, r.Stderr)
	}
	if got := hostReads(ws, ".mvn/jvm.config"); got != "" {
		t.Fatalf("control: .mvn retargeted to a directory holding jvm.config was kept: host reads %q, %+v", got, r.Quarantined)
	}

	// Attack: retarget to an empty directory, fill it from another root.
	ws = workspace()
	r = sh(t, snapshotFor(t, domain.ModeAutoAcceptEdits, ws, f.Kernel), `cd `+ws+` && mkdir -p sub/m && ln -sfn sub/m .mvn && echo moved`)
	if string(r.Stdout) != "moved\n" {
		t.Fatalf("premise: the command did not retarget .mvn: %q %q", r.Stdout, r.Stderr)
	}
	t.Logf("first command over ws: set aside %+v", r.Quarantined)
	sub := ws + "/sub"
	r = sh(t, snapshotFor(t, domain.ModeAutoAcceptEdits, sub, f.Kernel), `cd `+sub+` && printf -- '`+attack201JVMConfig+`' > m/jvm.config && echo wrote`)
	if string(r.Stdout) != "wrote\n" {
		t.Fatalf("premise: the second command did not write: %q %q", r.Stdout, r.Stderr)
	}
	t.Logf("second command over ws/sub: set aside %+v", r.Quarantined)
	if got := hostReads(ws, ".mvn/jvm.config"); got == attack201JVMConfig {
		t.Errorf("the person's .mvn, retargeted by a command over ws to an empty directory ws/sub/m (no magic link), was kept; a command over ws/sub then wrote jvm.config there: mvn run in ws reads the command's .mvn/jvm.config %q", got)
	}
}
