package sandbox

import (
	"testing"

	"turnstile/domain"
)

// TestSharedMaskKeepsEveryMaskEmpty: the masks of one spawn (two denied
// directories, two denied files, /etc/shadow) are clones of one shared
// tmpfs: a command cannot make any of them non-empty, writable or readable
// through another (chmod, create, write, hard link, rename over), nor see
// one mask's path through another, and every hidden original keeps its
// content; the control: the unmasked files next to them work, and every
// mask is still empty and mode 0 afterwards.
func TestSharedMaskKeepsEveryMaskEmpty(t *testing.T) {
	requireKernel(t, true)
	shm := func(s *domain.TurnExecutionSecuritySnapshot, script string) *Result {
		t.Helper()
		r, err := run(t, s, SpawnRequest{Argv: []string{"/bin/sh", "-c", script}}, nil)
		if err != nil {
			t.Fatalf("%q: %v (%+v)", script, err, r)
		}
		return r
	}
	ws := tempWorkspace(t)
	mkfiles(t, ws, map[string]string{"d1/a": "a\n", "d2/b": "b\n", "f1": "one\n", "f2": "two\n", "free": "free\n"})
	s := snapshotFor(t, domain.ModeAutoAcceptEdits, ws, machine().Kernel)
	for _, p := range []string{ws + "/d1", ws + "/d2", ws + "/f1", ws + "/f2"} {
		s.Sandbox.Filesystem.Entries = append(s.Sandbox.Filesystem.Entries, domain.FilesystemEntry{
			Kind: domain.PathSensitive, Path: p, ResolvedPath: p, Access: domain.AccessDeny, Provenance: domain.ProvenanceSystem})
	}
	refused(t, shm, s,
		"chmod 777 d1", "chmod 666 f1", "touch d1/x", "echo x > f1", "echo x >> f2", "ls d2", "cat f2", "cat d1/a",
		"ln free d1/free", "mv free f1", "mv d1 d3", "cat /etc/shadow", "chmod 644 /etc/shadow",
	)
	for name, want := range map[string]string{"d1/a": "a\n", "d2/b": "b\n", "f1": "one\n", "f2": "two\n"} {
		if got := readFile(t, ws+"/"+name); got != want {
			t.Fatalf("%s behind its mask changed: %q", name, got)
		}
	}
	// After all of the above every mask is still mode 0 and empty.
	allowed(t, shm, s, `cat free && echo y > free2 && test "$(stat -c %a d1 d2 f1 f2 /etc/shadow | sort -u)" = 0 && test "$(stat -c %s f1 f2)" = "0
0"`)
}
