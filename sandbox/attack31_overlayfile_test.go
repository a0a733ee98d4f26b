package sandbox

import (
	"os"
	"testing"

	"turnstile/domain"
)

// TestAttack31OverlayFileInWorkspaceIsWritten: the README says an
// "overlay" key that names a file "stays read-only" ("overlay takes a
// directory (a file so granted stays read-only)"), and decisions see
// "read" there. Inside the writable workspace it does not: the snapshot
// makes a read rule inside a writable one a read-only carve-out only when
// it is not an overlay (profile_snapshot.go: "!r.Overlay"), and the helper,
// finding a file, drops the overlay (r.overlay = false) and leaves the
// file to the workspace's write grant. The command rewrites the person's
// file for real (a tool's settings or a lock file the host trusts, the very
// reason to have named it). Control: the same key as "read" is held
// read-only (EROFS), and the file's content is unchanged.
// Severity: medium.
func TestAttack31OverlayFileInWorkspaceIsWritten(t *testing.T) {
	requireRoot(t)
	requireKernel(t, true)
	for _, acc := range []domain.Access{domain.AccessRead, domain.AccessOverlay} {
		base := visibleWorkspace(t)
		ws := base + "/ws"
		if err := os.MkdirAll(ws+"/cfg", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(ws+"/cfg/trusted", []byte("host\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		s := execProfileSnapshot(t, ws, map[string]domain.Access{ws + "/cfg/trusted": acc})
		r, err := run(t, &s, SpawnRequest{Argv: []string{"/bin/sh", "-c", "echo agent > cfg/trusted; cat cfg/trusted; echo ws > f"}}, nil)
		if err != nil {
			t.Fatalf("%s: %v (%+v)", acc, err, r)
		}
		t.Logf("%s: exit %d, stdout %q, stderr %q", acc, r.ExitCode, r.Stdout, r.Stderr)
		if b, _ := os.ReadFile(ws + "/f"); string(b) != "ws\n" {
			t.Fatalf("%s: control: the workspace was not written: %q", acc, b)
		}
		if b, _ := os.ReadFile(ws + "/cfg/trusted"); string(b) != "host\n" {
			if acc == domain.AccessRead {
				t.Fatalf("control: the read key was written (%q): the test is not about the overlay", b)
			}
			t.Fatalf("the file named \"overlay\" in the workspace, which the README says stays read-only, was written for real: %q", b)
		}
	}
}
