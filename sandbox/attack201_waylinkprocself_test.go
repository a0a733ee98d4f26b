package sandbox

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"turnstile/domain"
)

// Review 201, against e7ee2a4f (plainWayOnly passes a symlink of
// pc.wayLinks through with stat(2)).
//
// A person's .mvn is a symlink (to a file: the case the commit is for; to
// a directory, the same below). The command may replace it: the link is
// in its writable root and .mvn/jvm.config does not exist, so nothing is
// held there. madeWayLink passes a link of wayLinks whatever it now leads
// to (it compares the type of the path, not the link's identity nor its
// target), so a retargeted person's link is judged only by what the
// server's own lookups of .mvn/jvm.config find. The target
// /proc/self/cwd/X resolves in the server to the server's cwd, and in the
// person's mvn (the wrapper looks for .mvn from its cwd, the project) to
// the project: X is a file in the server's cwd and a directory the command
// made, holding jvm.config, in the workspace.
//
//   - Before e7ee2a4f the server's lstat of .mvn/jvm.config (ENOTDIR)
//     then plainWayOnly (a symlink on the way: false) set the link aside.
//   - Since e7ee2a4f plainWayOnly stat()s the known link, finds the
//     server's file, and takes ENOTDIR for "nothing below a file": the
//     link stays, and mvn run in the project reads the command's
//     jvm.config (-XX:OnOutOfMemoryError=..., -javaagent:...).
//
// The test process is the server here: its cwd is the package directory.

// serverCwdFile is the name of a regular file in this process's cwd.
func serverCwdFile(t *testing.T) string {
	t.Helper()
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	ents, err := os.ReadDir(wd)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		if e.Type().IsRegular() && e.Name()[0] != '.' {
			return e.Name()
		}
	}
	t.Fatalf("no regular file in %s", wd)
	return ""
}

// hostReads is what a host program run in dir (the person's mvn in the
// project) reads at rel, or "" when it reads nothing.
func hostReads(dir, rel string) string {
	c := exec.Command("cat", rel)
	c.Dir = dir
	b, err := c.Output()
	if err != nil {
		return ""
	}
	return string(b)
}

const attack201JVMConfig = "-XX:OnOutOfMemoryError=touch /tmp/pwned -Xmx1m\n"

// TestAttack201_WayLinkProcSelfCwdFile: the person's .mvn (a link to a
// file) retargeted to /proc/self/cwd/X, X a file in the server's cwd and
// a directory holding jvm.config in the workspace: nothing set aside,
// nothing reported, and mvn in the project reads the command's
// jvm.config. (Regression of e7ee2a4f: its parent set the link aside.)
//
// Control: the same retarget to ./X (the same directory, no /proc) is set
// aside (the commit's own control), and so is a link to /proc/self/cwd/X
// the command made where there was none.
func TestAttack201_WayLinkProcSelfCwdFile(t *testing.T) {
	f := requireKernel(t, true)
	x := serverCwdFile(t)
	workspace := func(link bool) string {
		ws := tempWorkspace(t)
		mkfiles(t, ws, map[string]string{"mvnfile": "x\n", x + "/jvm.config": attack201JVMConfig})
		if link {
			mustDo(t, os.Symlink("mvnfile", filepath.Join(ws, ".mvn")))
		}
		return ws
	}

	// Control: the person's link retargeted to the directory directly.
	ws := workspace(true)
	s := snapshotFor(t, domain.ModeAutoAcceptEdits, ws, f.Kernel)
	r := sh(t, s, `cd `+ws+` && ln -sfn ./`+x+` .mvn && echo moved`)
	if string(r.Stdout) != "moved\n" {
		t.Fatalf("premise: the command did not retarget .mvn: %q %q", r.Stdout, r.Stderr)
	}
	if got := hostReads(ws, ".mvn/jvm.config"); got != "" || len(r.Quarantined) == 0 {
		t.Fatalf("control: .mvn retargeted to ./%s was not set aside: host reads %q, %+v", x, got, r.Quarantined)
	}

	// Control: a link to /proc/self/cwd/X the command made.
	ws = workspace(false)
	s = snapshotFor(t, domain.ModeAutoAcceptEdits, ws, f.Kernel)
	r = sh(t, s, `cd `+ws+` && ln -s /proc/self/cwd/`+x+` .mvn && echo made`)
	if string(r.Stdout) != "made\n" {
		t.Fatalf("premise: the command did not make .mvn: %q %q", r.Stdout, r.Stderr)
	}
	if got := hostReads(ws, ".mvn/jvm.config"); got != "" || len(r.Quarantined) == 0 {
		t.Fatalf("control: a .mvn link to /proc/self/cwd/%s the command made was not set aside: host reads %q, %+v", x, got, r.Quarantined)
	}

	// Attack: the person's link retargeted to /proc/self/cwd/X.
	ws = workspace(true)
	s = snapshotFor(t, domain.ModeAutoAcceptEdits, ws, f.Kernel)
	r = sh(t, s, `cd `+ws+` && ln -sfn /proc/self/cwd/`+x+` .mvn && cat .mvn/jvm.config >/dev/null && echo moved`)
	if string(r.Stdout) != "moved\n" {
		t.Fatalf("premise: the command did not retarget .mvn: %q %q", r.Stdout, r.Stderr)
	}
	if got := hostReads(ws, ".mvn/jvm.config"); got == attack201JVMConfig {
		t.Errorf("the person's .mvn, retargeted by the command to /proc/self/cwd/%s (a file in the server's cwd, a directory "+
			"the command made in the workspace), was neither set aside nor reported (%+v): mvn run in the project reads the "+
			"command's .mvn/jvm.config %q", x, r.Quarantined, got)
	}
}

// TestAttack201_WayLinkProcSelfCwdMissing: the same with X missing in
// the server's cwd: the server's lstat of .mvn/jvm.config is ENOENT,
// which setAsideMade takes for "not made". Not a regression of e7ee2a4f
// (its parent behaves the same): madeWayLink passes any link of wayLinks
// whatever it was retargeted to, and what the eighty-first review closed
// for a link the command made (one through /proc/self/cwd leads elsewhere
// in the server) stays open for a link the person had.
//
// Control: the same with no link there before (the command makes it): set
// aside.
func TestAttack201_WayLinkProcSelfCwdMissing(t *testing.T) {
	f := requireKernel(t, true)
	const x = "attack201-not-in-the-servers-cwd"
	if wd, _ := os.Getwd(); exists(filepath.Join(wd, x)) {
		t.Fatalf("premise: %s exists in the cwd", x)
	}
	workspace := func(link bool) string {
		ws := tempWorkspace(t)
		mkfiles(t, ws, map[string]string{"mvnfile": "x\n", x + "/jvm.config": attack201JVMConfig})
		if link {
			mustDo(t, os.Symlink("mvnfile", filepath.Join(ws, ".mvn")))
		}
		return ws
	}

	ws := workspace(false)
	s := snapshotFor(t, domain.ModeAutoAcceptEdits, ws, f.Kernel)
	r := sh(t, s, `cd `+ws+` && ln -s /proc/self/cwd/`+x+` .mvn && echo made`)
	if string(r.Stdout) != "made\n" {
		t.Fatalf("premise: the command did not make .mvn: %q %q", r.Stdout, r.Stderr)
	}
	if got := hostReads(ws, ".mvn/jvm.config"); got != "" || len(r.Quarantined) == 0 {
		t.Fatalf("control: a .mvn link to /proc/self/cwd/%s the command made was not set aside: host reads %q, %+v", x, got, r.Quarantined)
	}

	ws = workspace(true)
	s = snapshotFor(t, domain.ModeAutoAcceptEdits, ws, f.Kernel)
	r = sh(t, s, `cd `+ws+` && ln -sfn /proc/self/cwd/`+x+` .mvn && cat .mvn/jvm.config >/dev/null && echo moved`)
	if string(r.Stdout) != "moved\n" {
		t.Fatalf("premise: the command did not retarget .mvn: %q %q", r.Stdout, r.Stderr)
	}
	if got := hostReads(ws, ".mvn/jvm.config"); got == attack201JVMConfig {
		t.Errorf("the person's .mvn (a link to a file), retargeted by the command to /proc/self/cwd/%s (missing in "+
			"the server's cwd, a directory the command made in the workspace), was neither set aside nor reported (%+v): "+
			"mvn run in the project reads the command's .mvn/jvm.config %q", x, r.Quarantined, got)
	}
}

// TestAttack201_WayLinkChainProcSelfCwd: the person's .mvn (a link to
// mvnfile, a file) is left as it is, same inode, same target: the command
// replaces mvnfile, which is on no protected path's way, with a link to
// /proc/self/cwd/X (X a file in the server's cwd, a directory holding
// jvm.config in the workspace). A fix that only checks that a known way
// link is still the same link (identity, target) does not see this: the
// stat that plainWayOnly passes the link through with follows the whole
// chain. (Regression of e7ee2a4f: its parent set .mvn aside.)
//
// Control: the same chain to ./X (no /proc) is set aside.
func TestAttack201_WayLinkChainProcSelfCwd(t *testing.T) {
	f := requireKernel(t, true)
	x := serverCwdFile(t)
	workspace := func() string {
		ws := tempWorkspace(t)
		mkfiles(t, ws, map[string]string{"mvnfile": "x\n", x + "/jvm.config": attack201JVMConfig})
		mustDo(t, os.Symlink("mvnfile", filepath.Join(ws, ".mvn")))
		return ws
	}

	ws := workspace()
	s := snapshotFor(t, domain.ModeAutoAcceptEdits, ws, f.Kernel)
	r := sh(t, s, `cd `+ws+` && ln -sfn ./`+x+` mvnfile && echo moved`)
	if string(r.Stdout) != "moved\n" {
		t.Fatalf("premise: the command did not replace mvnfile: %q %q", r.Stdout, r.Stderr)
	}
	if got := hostReads(ws, ".mvn/jvm.config"); got != "" || len(r.Quarantined) == 0 {
		t.Fatalf("control: mvnfile (under the person's .mvn) made a link to ./%s was not set aside: host reads %q, %+v", x, got, r.Quarantined)
	}

	ws = workspace()
	s = snapshotFor(t, domain.ModeAutoAcceptEdits, ws, f.Kernel)
	r = sh(t, s, `cd `+ws+` && ln -sfn /proc/self/cwd/`+x+` mvnfile && cat .mvn/jvm.config >/dev/null && echo moved`)
	if string(r.Stdout) != "moved\n" {
		t.Fatalf("premise: the command did not replace mvnfile: %q %q", r.Stdout, r.Stderr)
	}
	if got := hostReads(ws, ".mvn/jvm.config"); got == attack201JVMConfig {
		t.Errorf("the person's .mvn -> mvnfile, untouched, with mvnfile replaced by the command by a link to /proc/self/cwd/%s, "+
			"was neither set aside nor reported (%+v): mvn run in the project reads the command's .mvn/jvm.config %q", x, r.Quarantined, got)
	}
}
