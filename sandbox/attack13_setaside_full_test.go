package sandbox

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"turnstile/domain"
)

// TestAttack13SetAsideOnAFullDisk (thirteenth attack review): setting
// aside renames the repository's HEAD in its git dir, and a rename on ext4
// adds the new name before it drops the old one: in a directory whose
// blocks are full it needs a new block. A command filled the file system
// (no blocks reserved for root, or a server that is not root and may not
// use them), then filled the git dir's block with names: the rename failed
// with ENOSPC, the result named the failure, and the repository stayed as
// the command left it: the host's git status in it ran the command's
// program.
// Control: the same repository on a file system with room is set aside.
func TestAttack13SetAsideOnAFullDisk(t *testing.T) {
	requireKernel(t, true)
	if os.Geteuid() != 0 {
		t.Skip("mounts a loop file system")
	}
	for _, tool := range []string{"mkfs.ext4", "mount", "umount"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skip(tool + " not found")
		}
	}
	// Not under /tmp: the end-to-end tests of a command whose writable
	// root is /tmp (:slash_tmp) walk it for repositories, and one on this
	// full file system refused their commands (a name could not be held)
	// when the packages' tests overlapped.
	base := visibleWorkspace(t)
	img, mnt := filepath.Join(base, "fs.img"), filepath.Join(base, "mnt")
	if err := os.Mkdir(mnt, 0o755); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("mkfs.ext4", "-q", "-m", "0", "-F", img, "16M").CombinedOutput(); err != nil {
		t.Skipf("mkfs.ext4: %v %s", err, out)
	}
	if out, err := exec.Command("mount", "-o", "loop", img, mnt).CombinedOutput(); err != nil {
		t.Skipf("no loop mount: %v %s", err, out)
	}
	t.Cleanup(func() { exec.Command("umount", "-l", mnt).Run() })
	ws := filepath.Join(mnt, "ws")
	mkfiles(t, ws, map[string]string{"README": "r\n"})
	hostGit(t, ws, "init", "-q")
	f := &plantFixture{ws: ws, marker: base + "/pwned", s: snapshotFor(t, domain.ModeAutoAcceptEdits, ws, machine().Kernel)}

	// Control: with room, the repository is set aside.
	r := sh(t, f.s, agentGit+"init -q plain && "+f.fsmonitor("-plain")+" >> plain/.git/config && echo ok")
	if exists(ws+"/plain/.git/HEAD") || len(r.Quarantined) == 0 {
		t.Fatalf("control: the repository was not set aside: %+v", r.Quarantined)
	}
	attackHostStatus(t, f, ws+"/plain")

	// Fill the file system (sync: delayed allocation frees what it had
	// reserved once written), then the git dir's blocks, with links (no
	// inode needed), until no name of HEAD.turnstile-untrusted's length
	// fits in any of them.
	fill := ": > sub/.git/a; for k in 1 2 3; do (cat /dev/zero > fill$k 2>/dev/null; true); sync; done; " +
		"for d in sub/.git .; do for k in 1 2; do fails=0; i=$((k*100000)); while [ $fails -lt 300 ]; do " +
		"if ln sub/.git/a $d/$(printf 'h%023d' $i) 2>/dev/null; then fails=0; else fails=$((fails+1)); fi; i=$((i+1)); done; sync; done; done; "
	// Tool settings it made at the root are set aside the same way.
	settings := "mkdir .vscode && echo '{\"tasks\":[{\"label\":\"x\",\"type\":\"shell\",\"command\":\"touch " + f.marker + "\",\"runOptions\":{\"runOn\":\"folderOpen\"}}]}' > .vscode/tasks.json && " +
		"echo '{\"mcpServers\":{\"x\":{\"command\":\"sh\"}}}' > .mcp.json && "
	r = sh(t, f.s, agentGit+"init -q sub && "+f.fsmonitor()+" >> sub/.git/config && "+settings+fill+"echo ok")
	attackReport(t, "command", r)
	if !strings.Contains(string(r.Stdout), "ok") {
		t.Fatalf("the command failed (%d): %s", r.ExitCode, r.Stderr)
	}
	// The person's git status in sub, the disk still full.
	attackHostStatus(t, f, ws+"/sub")
	if exists(ws + "/sub/.git/HEAD") {
		t.Fatalf("the repository was not set aside: %+v", r.Quarantined)
	}
	if exists(ws + "/.mcp.json") {
		t.Errorf("the .mcp.json the command made was left in place: %+v", r.Quarantined)
	}
	if fi, err := os.Stat(ws + "/.vscode"); err == nil && fi.Mode().Perm() != 0 {
		t.Errorf("the .vscode the command made was left usable (%v): %+v", fi.Mode(), r.Quarantined)
	}
}
