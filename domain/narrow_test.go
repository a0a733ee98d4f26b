package domain

import "testing"

func modeSnapshot(t *testing.T, m Mode, req *ProfileRequest) TurnExecutionSecuritySnapshot {
	t.Helper()
	if req == nil {
		req = &ProfileRequest{}
	}
	req.Mode = m
	s, err := SelectSnapshot(req, nil, SourceComposer, SnapshotInputs{Cwd: "/work/ws", WorkspaceRoot: "/work/ws"})
	if err != nil {
		t.Fatal(err)
	}
	AddSensitivePaths(&s, []string{"/var/lib/turnstile"})
	return s
}

// TestSandboxNarrows: each change between the modes is a narrowing exactly
// when the new mode is stricter; the same snapshot narrows nothing; a
// denied command added to the same mode narrows.
func TestSandboxNarrows(t *testing.T) {
	modes := []Mode{ModeSupervised, ModeAutoAcceptEdits, ModeFullAccess}
	for _, from := range modes {
		for _, to := range modes {
			old, nw := modeSnapshot(t, from, nil), modeSnapshot(t, to, nil)
			want := StricterMode(from, to) == to && from != to
			if got := SandboxNarrows(&old, &nw); got != want {
				t.Errorf("%s → %s: narrows %v, want %v", from, to, got, want)
			}
		}
	}
	old := modeSnapshot(t, ModeAutoAcceptEdits, nil)
	nw := modeSnapshot(t, ModeAutoAcceptEdits, nil)
	nw.Process.DeniedCommands = append(nw.Process.DeniedCommands, "curl")
	if !SandboxNarrows(&old, &nw) {
		t.Error("a denied command added: not a narrowing")
	}
	nw = modeSnapshot(t, ModeAutoAcceptEdits, nil)
	nw.Sandbox.Filesystem.Entries = append(nw.Sandbox.Filesystem.Entries, FilesystemEntry{Kind: PathExplicit, Path: "/work/ws/secret", ResolvedPath: "/work/ws/secret", Access: AccessDeny})
	if !SandboxNarrows(&old, &nw) {
		t.Error("a deny entry added inside the workspace: not a narrowing")
	}
	if SandboxNarrows(&nw, &old) {
		t.Error("a deny entry removed: a narrowing")
	}
}
