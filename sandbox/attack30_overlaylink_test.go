package sandbox

import (
	"os"
	"strings"
	"testing"

	"turnstile/domain"
)

// TestAttack30OverlayKeySymlinkReadsAnotherOwnersDirectory: a profile's
// "overlay" directory inside the writable workspace (the README's own
// example of what overlay is for, a build or package cache, and
// TestOverlayWritesStayTheCommands' ws/vendor) that does not exist yet is
// not a carve-out of the workspace (an overlay is skipped there), so a
// command creates it as a symlink to any directory of the machine. The
// next command's sandbox resolves the overlay's key through that link
// (canonMemo.root follows an existing link) and mounts the link's target as
// the overlay's lower layer, idmapped so that the target's owner is the
// command: a root-owned 0700 directory outside every root, with a 0600
// file, is listed and read by the unprivileged command. The snapshot's
// entry is bound to nothing (no Within for a profile's path rule), so
// nothing notices the grant moved. Why it matters: the agent's command
// reads whatever a directory's owner may read (root's, the person's
// 0600 credentials) anywhere on the machine, a full read escape from a
// sandbox that refuses the same directory through an ordinary symlink in
// the workspace (the control). Fixed would be an overlay (any grant
// nested in a writable root) not followed through a link created in that
// root: granted where it led when the turn started or not at all, or
// mounted only where it is still a real directory (openat2
// RESOLVE_NO_SYMLINKS from the writable root), and the lower never
// idmapped from an owner nobody vetted. Severity: high.
func TestAttack30OverlayKeySymlinkReadsAnotherOwnersDirectory(t *testing.T) {
	requireRoot(t)
	f := requireKernel(t, true)
	base := visibleWorkspace(t)
	ws, outside := base+"/ws", base+"/outside"
	for _, d := range []string{ws, outside} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Chmod(outside, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(outside+"/key", []byte("TOPSECRET\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	set := domain.ProfileSet{"ov": {Name: "ov", Extends: domain.BuiltinWorkspace,
		Filesystem: map[string]domain.Access{ws + "/vendor": domain.AccessOverlay}}}
	exeDir := filepathDir(testExe(t))
	cp, err := domain.CompileProfile(set, "ov", domain.ProfileEnv{Cwd: ws, WorkspaceRoot: ws, AppReadRoots: []string{exeDir}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	s, err := domain.ResolveProfileSnapshot(cp, domain.SourceComposer, domain.SnapshotInputs{Cwd: ws, WorkspaceRoot: ws,
		AppReadRoots: []string{exeDir}, Kernel: f.Kernel})
	if err != nil {
		t.Fatal(err)
	}
	sh := func(script string) *Result {
		t.Helper()
		r, err := run(t, &s, SpawnRequest{Argv: []string{"/bin/sh", "-c", "O=" + outside + "\n" + script}}, nil)
		if err != nil {
			t.Fatalf("%v (%+v)", err, r)
		}
		return r
	}
	// Control: the workspace is written, and the directory outside is
	// refused, directly and through an ordinary link in the workspace.
	r := sh(`echo ws > f; cat f; ln -s "$O" link; cat "$O/key" 2>/dev/null || echo refused; cat link/key 2>/dev/null || echo refused`)
	if got := string(r.Stdout); got != "ws\nrefused\nrefused\n" {
		t.Fatalf("control: stdout %q, stderr %q", got, r.Stderr)
	}
	// The attack: the missing overlay directory made a link to it.
	r = sh(`ln -s "$O" vendor && echo planted`)
	if got := string(r.Stdout); got != "planted\n" {
		t.Logf("the link was not planted (holds): stdout %q, stderr %q", got, r.Stderr)
		return
	}
	r = sh(`id -u; cat vendor/key 2>&1; cat "$O/key" 2>&1`)
	if strings.Contains(string(r.Stdout), "TOPSECRET") {
		t.Fatalf("the next command read root's 0600 file outside every root through the overlay's key made a link: stdout %q", r.Stdout)
	}
}
