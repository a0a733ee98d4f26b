package domain

import "testing"

// TestBindRootLinksWritesInsideWhereTheRootLed: a root that led elsewhere
// when the turn started takes the rules and the entries inside it there
// (a profile's build/out reopened below a workspace reached through a
// linked home: the sandbox takes a write path through a link as read-only,
// the fifty-second review); the root keeps its own path, and an entry
// outside it, or a root nested in it, is left. Control: a root that led
// where it is written moves nothing.
func TestBindRootLinksWritesInsideWhereTheRootLed(t *testing.T) {
	snap := func() *TurnExecutionSecuritySnapshot {
		var s TurnExecutionSecuritySnapshot
		s.Sandbox.Filesystem.Entries = []FilesystemEntry{
			{Kind: PathWorkspaceRoot, Path: "/home/u/app", Access: AccessWrite},
			{Kind: PathExplicit, Path: "/home/u/app/build", Access: AccessDeny},
			{Kind: PathExplicit, Path: "/home/u/app/build/out", ResolvedPath: "/home/u/app/build/out", Access: AccessWrite},
			{Kind: PathProjectRoot, Path: "/home/u/app/sub", Access: AccessWrite},
			{Kind: PathExplicit, Path: "/home/u/other", Access: AccessRead},
		}
		s.Sandbox.Filesystem.Rules = []PathRule{{Pattern: "/home/u/app/build", Access: AccessDeny}, {Pattern: "/home/u/otherwise", Access: AccessRead}}
		return &s
	}
	s := snap()
	BindRootLinks(s, map[string]string{"/home/u/app": "/var/home/u/app", "/home/u/app/sub": "/home/u/app/sub"})
	es, rs := s.Sandbox.Filesystem.Entries, s.Sandbox.Filesystem.Rules
	want := []string{"", "/var/home/u/app/build", "/var/home/u/app/build/out", "", ""}
	for i, w := range want {
		if es[i].ResolvedPath != w {
			t.Errorf("entry %s: resolved %q, want %q", es[i].Path, es[i].ResolvedPath, w)
		}
	}
	if es[0].LedTo != "/var/home/u/app" || es[3].LedTo != "/home/u/app/sub" {
		t.Errorf("led_to: %q %q", es[0].LedTo, es[3].LedTo)
	}
	if rs[0].Pattern != "/var/home/u/app/build" || rs[1].Pattern != "/home/u/otherwise" {
		t.Errorf("rules: %+v", rs)
	}
	s = snap()
	BindRootLinks(s, map[string]string{"/home/u/app": "/home/u/app"})
	if es := s.Sandbox.Filesystem.Entries; es[1].ResolvedPath != "" || es[2].ResolvedPath != "/home/u/app/build/out" || es[0].LedTo != "/home/u/app" {
		t.Errorf("control: a root that led where it is written moved entries: %+v", es)
	}
}
