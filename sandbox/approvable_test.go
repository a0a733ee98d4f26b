package sandbox

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"turnstile/domain"
)

// decideFile runs the production decision checker and compares the refusal
// code ("" = allowed) and, when allowed and want is set, the resolved path.
func decideFile(t *testing.T, s *domain.TurnExecutionSecuritySnapshot, path string, op domain.Access, code, want string) {
	t.Helper()
	got, err := DecisionChecker{}.ResolveFile(s, path, op, false)
	if code == "" {
		if err != nil {
			t.Errorf("%s %s: refused: %v", op, path, err)
		} else if want != "" && got != want {
			t.Errorf("%s %s: resolved %q, want %q", op, path, got, want)
		}
		return
	}
	var r CodedRefusal
	if !errors.As(err, &r) || r.Code != code {
		t.Errorf("%s %s: got (%q, %v), want %s", op, path, got, err, code)
	}
}

func mustDo(t *testing.T, errs ...error) {
	t.Helper()
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
}

// TestDecisionRenamedParentBetweenDecisions: the decision checker keeps what
// it derives from a snapshot between decisions, never what it found on disk
// about the checked path. A parent of the path renamed aside and replaced by
// a symlink out of the workspace between two decisions is seen at once (the
// second decision is symlink_escape), and putting it back is seen at once
// too (the control: the same path is allowed before and after).
func TestDecisionRenamedParentBetweenDecisions(t *testing.T) {
	base := tempWorkspace(t)
	ws, out := base+"/ws", base+"/outside"
	mustDo(t, os.MkdirAll(ws+"/src", 0o755), os.MkdirAll(out, 0o755))
	mustDo(t, os.WriteFile(ws+"/src/main.go", []byte("x"), 0o644), os.WriteFile(out+"/main.go", []byte("x"), 0o644))
	s := snapshotFor(t, domain.ModeSupervised, ws, domain.KernelFeatures{LandlockABI: 7, Seccomp: true})

	decideFile(t, s, "src/main.go", rd, "", ws+"/src/main.go")
	mustDo(t, os.Rename(ws+"/src", ws+"/src.old"), os.Symlink(out, ws+"/src"))
	decideFile(t, s, "src/main.go", rd, CodeSymlinkEscape, "")
	decideFile(t, s, "src/new.go", wr, CodeSymlinkEscape, "")
	mustDo(t, os.Remove(ws+"/src"), os.Rename(ws+"/src.old", ws+"/src"))
	decideFile(t, s, "src/main.go", rd, "", ws+"/src/main.go")

	// A symlink inside the workspace swapped between two decisions: the
	// second decision follows the new target.
	mustDo(t, os.Symlink("src", ws+"/link"))
	decideFile(t, s, "link/main.go", rd, "", ws+"/src/main.go")
	mustDo(t, os.Remove(ws+"/link"), os.Symlink(out, ws+"/link"))
	decideFile(t, s, "link/main.go", rd, CodeSymlinkEscape, "")
}

// TestDecisionCacheKeepsSnapshotsApart: two snapshots that differ in one
// entry, decided in turn through the same checker, each get their own
// answer; a snapshot changed in place after a decision is judged as it now
// stands (the cache compares its inputs in full and keeps a copy of them).
func TestDecisionCacheKeepsSnapshotsApart(t *testing.T) {
	ws := tempWorkspace(t)
	mustDo(t, os.MkdirAll(ws+"/private", 0o755), os.WriteFile(ws+"/private/key", []byte("x"), 0o644))
	open := snapshotFor(t, domain.ModeSupervised, ws, domain.KernelFeatures{LandlockABI: 7, Seccomp: true})
	closed := snapshotFor(t, domain.ModeSupervised, ws, domain.KernelFeatures{LandlockABI: 7, Seccomp: true})
	closed.Sandbox.Filesystem.Entries = append(closed.Sandbox.Filesystem.Entries, domain.FilesystemEntry{Kind: domain.PathExplicit,
		Path: ws + "/private", Access: domain.AccessDeny, Provenance: domain.ProvenanceComposer, ResolvedPath: ws + "/private"})
	for range 2 {
		decideFile(t, open, "private/key", rd, "", ws+"/private/key")
		decideFile(t, closed, "private/key", rd, CodeOutsideAllowedRoots, "")
	}
	// The same snapshot changed in place: the deny entry made a read grant.
	last := &closed.Sandbox.Filesystem.Entries[len(closed.Sandbox.Filesystem.Entries)-1]
	last.Access = domain.AccessRead
	decideFile(t, closed, "private/key", rd, "", ws+"/private/key")
	last.Access = domain.AccessDeny
	decideFile(t, closed, "private/key", rd, CodeOutsideAllowedRoots, "")
	// And the cwd is part of what is compared: the same relative path from
	// another cwd is another file.
	moved := *open
	moved.Sandbox.Cwd = filepath.Join(ws, "private")
	decideFile(t, &moved, "key", rd, "", ws+"/private/key")
	decideFile(t, open, "key", rd, CodeMissingPath, "")
}
