package domain

import "testing"

// TestForeignRoot: a root is another workspace's when its most specific
// project is, or when it holds another workspace's project; a root of its
// own project, a root nested in it, and one no project names are not.
func TestForeignRoot(t *testing.T) {
	c := &ClaudeCodeConfig{Projects: []ClaudeCodeProject{
		{Root: "/srv/app", WorkspaceID: "app"}, {Root: "/srv/billing", WorkspaceID: "billing"}, {Root: "/srv/app/vendor/pay", WorkspaceID: "billing"},
	}}
	for root, want := range map[string]bool{
		"/srv/app/src": false, "/opt/x": false, "/srv/billing": true, "/srv/billing/src": true, "/srv": true,
		"/srv/app":        true, // it holds billing's nested project
		"/srv/app/vendor": true, "/srv/app/vendor/pay/x": true, "/srv/app/../billing": true,
	} {
		if _, _, got := c.ForeignRoot("app", []string{root}); got != want {
			t.Errorf("%s: foreign %v, want %v", root, got, want)
		}
	}
	all := &ClaudeCodeConfig{Projects: []ClaudeCodeProject{{Root: "/", WorkspaceID: "default"}, {Root: "/srv/app", WorkspaceID: "app"}}}
	if _, _, got := all.ForeignRoot("app", []string{"/srv/app/x"}); got {
		t.Error("a root of app's own project under a catch-all")
	}
	if _, p, got := all.ForeignRoot("app", []string{"/opt/x"}); !got || p.WorkspaceID != "default" {
		t.Errorf("a root the catch-all gives default: %v %+v", got, p)
	}
}
