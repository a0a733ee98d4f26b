package sandbox

import (
	"os"
	"slices"
	"strings"
	"testing"

	"turnstile/domain"
)

// TestGlobDenyPlainMatchStays: the control of the hundred-and-twentieth
// review's planted glob link. A file the command makes at a glob deny's
// name with no other name (a .env it writes) stays after the command;
// what the person writes there later is masked where it lies. A symlink
// made at another match beside it is set aside.
func TestGlobDenyPlainMatchStays(t *testing.T) {
	requireRoot(t)
	requireKernel(t, true)
	ws := visibleWorkspace(t) + "/ws"
	mkfiles(t, ws, map[string]string{"README": "x\n"})
	s := execProfileSnapshot(t, ws, map[string]domain.Access{"**/*.env": domain.AccessDeny})
	r := sh(t, &s, `echo A=1 > plain.env && echo n > notes && ln -s notes linked.env && echo MADE`)
	if !strings.Contains(string(r.Stdout), "MADE") {
		t.Fatalf("premise: %s %s", r.Stdout, r.Stderr)
	}
	q := quarantined(r)
	if slices.Contains(q, ws+"/plain.env") {
		t.Errorf("a plain file the command made at a glob deny's name was set aside: %v", q)
	}
	if b, err := os.ReadFile(ws + "/plain.env"); err != nil || string(b) != "A=1\n" {
		t.Errorf("plain.env: %q %v", b, err)
	}
	if !slices.Contains(q, ws+"/linked.env") {
		t.Errorf("the symlink made at a glob deny's name stayed: %v", q)
	}
}
