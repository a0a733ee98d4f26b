package sandbox

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"turnstile/domain"
)

// TestAttack203_WayLinkTargetInodeReused (review 203, against 6e33e85a):
// sameWayLink trusts a person's symlink on a protected path's way when the
// link, its target string and "the file it leads to" are as at the start;
// the file is compared by (device, inode number) only. On ext4 a freed
// inode number is handed out again at once: the command removes the
// file the person's .mvn leads to (ws/sub/m, a file, so .mvn/jvm.config
// is missing) and makes an empty directory in its place, which gets the
// same inode number (the command makes directories until one gets it,
// and renames that one there). The link is judged unchanged, .mvn/jvm.config still
// missing (not made), and nothing is set aside. A next command over
// ws/sub (another root of the agent's) writes m/jvm.config, a name no rule
// protects there: mvn in ws reads the command's .mvn/jvm.config. This is
// TestAttack202_WayLinkRetargetEmpty without changing the link.
//
// Now the file the link led to is compared by its type and birth time too
// (statx). Control: an untouched link is kept.
func TestAttack203_WayLinkTargetInodeReused(t *testing.T) {
	f := requireKernel(t, true)
	workspace := func() string {
		ws := tempWorkspace(t)
		mkfiles(t, ws, map[string]string{"sub/m": "x\n", "sub/README": "r\n"})
		mustDo(t, os.Symlink("sub/m", filepath.Join(ws, ".mvn")))
		return ws
	}
	run := func(ws, swap string) (string, string) {
		r := sh(t, snapshotFor(t, domain.ModeAutoAcceptEdits, ws, f.Kernel),
			`cd `+ws+` && i=$(stat -c %i sub/m) && `+swap+` && echo "$i $(stat -c %i sub/m)"`)
		if r.ExitCode != 0 {
			t.Fatalf("premise: the swap failed: %q %q", r.Stdout, r.Stderr)
		}
		t.Logf("first command over ws (%s): inodes %q, set aside %+v", swap, r.Stdout, r.Quarantined)
		sub := ws + "/sub"
		r2 := sh(t, snapshotFor(t, domain.ModeAutoAcceptEdits, sub, f.Kernel),
			`cd `+sub+` && [ -d m ] && printf -- '`+attack201JVMConfig+`' > m/jvm.config && echo wrote`)
		t.Logf("second command over ws/sub: %q, set aside %+v", r2.Stdout, r2.Quarantined)
		return strings.TrimSpace(string(r.Stdout)), hostReads(ws, ".mvn/jvm.config")
	}

	// Control: a command that leaves the person's link and its file alone
	// keeps it (no false set-aside: TestWayLinkToAFileKept), and the
	// second command finds no directory to write in. (Review 203's
	// control, another inode number for the directory, is set aside now
	// too, and cannot be had on demand: ext4 gave the directory the file's
	// number even after a file was made first.)
	ws := workspace()
	if _, got := run(ws, `true`); got != "" {
		t.Fatalf("control: mvn reads %q", got)
	}
	if l, err := os.Readlink(filepath.Join(ws, ".mvn")); err != nil || l != "sub/m" {
		t.Fatalf("control: the person's untouched .mvn link was not kept: %q %v", l, err)
	}

	// Attack: the freed inode number reused.
	inos, got := run(workspace(), `perl -e '$i=(lstat "sub/m")[1]; unlink "sub/m" or die; for $k (0..30000) { mkdir "sub/f$k" or die; if ((lstat "sub/f$k")[1] == $i) { rename "sub/f$k", "sub/m" or die; last } }' && rmdir sub/f* 2>/dev/null; [ -d sub/m ]`)
	if a := strings.Fields(inos); len(a) != 2 || a[0] != a[1] {
		t.Skipf("the file system did not give the directory the freed inode number: %s", inos)
	}
	if got == attack201JVMConfig {
		t.Errorf("the person's .mvn (a link to the file ws/sub/m) was kept after the command replaced that file with an empty directory of the same inode number (%s): a command over ws/sub then wrote m/jvm.config, and mvn in ws reads the command's .mvn/jvm.config %q", inos, got)
	}
}
