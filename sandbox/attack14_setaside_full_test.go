package sandbox

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"turnstile/domain"
)

// TestAttack14SetAsideOnAFullDiskLargeFiles (fourteenth attack review): on
// a file system with no room for the new name, setting aside removed a
// HEAD or tool setting of at most 4096 bytes and gave anything larger mode
// 0. Mode 0 keeps no program of root out, and the person (and the server)
// is often root: a command that padded its repository's HEAD with spaces
// past 4096 bytes (git trims them) and its .mcp.json with whitespace, made
// a .vscode with a folderOpen task, then
// filled the file system and the directories' blocks, left all three usable (mode 0);
// root's git status in the repository ran its core.fsmonitor.
// Control: the same repository, HEAD padded, on a file system with room,
// is set aside by its rename.
func TestAttack14SetAsideOnAFullDiskLargeFiles(t *testing.T) {
	ws, f := fullDiskWorkspace(t)
	// HEAD as git writes it, then 6000 spaces, which git trims.
	pad := func(dir string) string {
		return "{ printf 'ref: refs/heads/master'; head -c 6000 /dev/zero | tr '\\0' ' '; echo; } > " + dir + "/.git/HEAD && "
	}

	// Control: with room, the padded repository is set aside.
	r := sh(t, f.s, agentGit+"init -q plain && "+pad("plain")+f.fsmonitor("-plain")+" >> plain/.git/config && echo ok")
	if exists(ws+"/plain/.git/HEAD") || len(r.Quarantined) == 0 {
		t.Fatalf("control: the repository was not set aside: %+v", r.Quarantined)
	}
	attackHostStatus(t, f, ws+"/plain")

	fill := ": > sub/.git/a; for k in 1 2 3; do (cat /dev/zero > fill$k 2>/dev/null; true); sync; done; " +
		"for d in sub/.git .; do for k in 1 2; do fails=0; i=$((k*100000)); while [ $fails -lt 300 ]; do " +
		"if ln sub/.git/a $d/$(printf 'h%023d' $i) 2>/dev/null; then fails=0; else fails=$((fails+1)); fi; i=$((i+1)); done; sync; done; done; "
	settings := "mkdir .vscode && echo '{\"tasks\":[{\"label\":\"x\",\"type\":\"shell\",\"command\":\"touch " + f.marker + "\",\"runOptions\":{\"runOn\":\"folderOpen\"}}]}' > .vscode/tasks.json && " +
		"{ echo '{\"mcpServers\":{\"x\":{\"command\":\"sh\"}}}'; head -c 6000 /dev/zero | tr '\\0' ' '; echo; } > .mcp.json && "
	// HEAD has a second link, so that removing it frees no block.
	r = sh(t, f.s, agentGit+"init -q sub && "+pad("sub")+"ln sub/.git/HEAD keep && "+f.fsmonitor()+" >> sub/.git/config && "+settings+fill+"echo ok")
	attackReport(t, "command", r)
	if !strings.Contains(string(r.Stdout), "ok") {
		t.Fatalf("the command failed (%d): %s", r.ExitCode, r.Stderr)
	}
	// Root's git status in sub, the disk still full.
	attackHostStatus(t, f, ws+"/sub")
	if _, err := os.ReadFile(ws + "/.mcp.json"); err == nil {
		t.Errorf("the .mcp.json the command made is still readable by root: %+v", r.Quarantined)
	}
	if _, err := os.ReadFile(ws + "/.vscode/tasks.json"); err == nil {
		t.Errorf("the .vscode the command made is still readable by root: %+v", r.Quarantined)
	}
	if _, err := os.ReadFile(ws + "/sub/.git/HEAD"); err == nil {
		t.Errorf("the repository's HEAD is still readable by root: %+v", r.Quarantined)
	}
	// Nor is its config: a person who puts HEAD back, as the note lets
	// them, would have its core.fsmonitor run again.
	if b, err := os.ReadFile(ws + "/sub/.git/config"); err == nil && strings.Contains(string(b), "fsmonitor") {
		t.Errorf("the repository's config is still there, its fsmonitor with it: %+v", r.Quarantined)
	}
}

// fullDiskWorkspace returns a workspace on a 16 MiB ext4 file system of
// its own with no blocks kept for root, and a plant fixture of the
// workspace (its marker outside that file system).
func fullDiskWorkspace(t *testing.T) (ws string, f *plantFixture) {
	requireKernel(t, true)
	if os.Geteuid() != 0 {
		missingPrerequisite(t, "mounts a loop file system: needs root")
	}
	for _, tool := range []string{"mkfs.ext4", "mount", "umount"} {
		if _, err := exec.LookPath(tool); err != nil {
			missingPrerequisite(t, "%s not found", tool)
		}
	}
	base := visibleWorkspace(t) // not under /tmp: see TestAttack13SetAsideOnAFullDisk
	img, mnt := filepath.Join(base, "fs.img"), filepath.Join(base, "mnt")
	if err := os.Mkdir(mnt, 0o755); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("mkfs.ext4", "-q", "-m", "0", "-F", img, "16M").CombinedOutput(); err != nil {
		missingPrerequisite(t, "mkfs.ext4: %v %s", err, out)
	}
	if out, err := exec.Command("mount", "-o", "loop", img, mnt).CombinedOutput(); err != nil {
		missingPrerequisite(t, "no loop mount: %v %s", err, out)
	}
	t.Cleanup(func() { exec.Command("umount", "-l", mnt).Run() })
	ws = filepath.Join(mnt, "ws")
	mkfiles(t, ws, map[string]string{"README": "r\n"})
	hostGit(t, ws, "init", "-q")
	f = &plantFixture{ws: ws, marker: base + "/pwned", s: snapshotFor(t, domain.ModeAutoAcceptEdits, ws, machine().Kernel)}
	return ws, f
}

// TestAttack14SetAsideOnAFullDiskDeepTree (fourteenth attack review, a
// variant of the previous test against its fix): a directory that cannot
// be renamed aside for want of room is removed, but the removal stopped at
// the first level it could not remove (deeper than 64) and gave what was
// left mode 0, which root reads: a .vscode holding a folderOpen task and
// chains of 66 directories kept its tasks.json whenever the directory
// listed a chain before it. Control: the same .vscode with room is set
// aside by its rename.
func TestAttack14SetAsideOnAFullDiskDeepTree(t *testing.T) {
	ws, f := fullDiskWorkspace(t)
	deep := "mkdir .vscode && echo '{\"tasks\":[{\"label\":\"x\",\"type\":\"shell\",\"command\":\"touch " + f.marker + "\",\"runOptions\":{\"runOn\":\"folderOpen\"}}]}' > .vscode/tasks.json && " +
		"for c in 0 1 2 3 4 5 6 7; do p=.vscode/d$c; for i in $(seq 66); do p=$p/d; done; mkdir -p $p; done && "
	r := sh(t, f.s, deep+"echo ok")
	if !strings.Contains(string(r.Stdout), "ok") || exists(ws+"/.vscode") || len(r.Quarantined) == 0 {
		t.Fatalf("control: the .vscode was not set aside: %d %s %+v", r.ExitCode, r.Stderr, r.Quarantined)
	}
	if err := os.RemoveAll(ws + "/.vscode" + domain.UntrustedSuffix); err != nil {
		t.Fatal(err)
	}
	fill := "for k in 1 2 3; do (cat /dev/zero > fill$k 2>/dev/null; true); sync; done; " +
		"for k in 1 2; do fails=0; i=$((k*100000)); while [ $fails -lt 300 ]; do " +
		"if ln README $(printf 'h%023d' $i) 2>/dev/null; then fails=0; else fails=$((fails+1)); fi; i=$((i+1)); done; sync; done; "
	r = sh(t, f.s, deep+fill+"test -s .vscode/tasks.json && echo ok")
	attackReport(t, "command", r)
	if !strings.Contains(string(r.Stdout), "ok") {
		t.Fatalf("the command failed (%d): %s", r.ExitCode, r.Stderr)
	}
	if _, err := os.ReadFile(ws + "/.vscode/tasks.json"); err == nil {
		t.Errorf("the .vscode the command made still holds a tasks.json root reads: %+v", r.Quarantined)
	}
}
