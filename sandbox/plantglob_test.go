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

// TestGlobDenyPersonsLinkStaysBesideWrites: the control of the moved-in
// rule (visit's moved). The person's own symlink at a glob deny's name,
// made before, stays through commands that write beside it (its directory
// changes, but it is the directory an earlier walk found there), and
// through one that renames another directory of the root; the same link
// moved in by a command, inside a directory it renames, is set aside.
func TestGlobDenyPersonsLinkStaysBesideWrites(t *testing.T) {
	requireRoot(t)
	requireKernel(t, true)
	ws := visibleWorkspace(t) + "/ws"
	mkfiles(t, ws, map[string]string{"README": "x\n", "shared/prod.env.txt": "A=1\n", "other/f": "f\n"})
	if err := os.MkdirAll(ws+"/conf", 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("../shared/prod.env.txt", ws+"/conf/prod.env"); err != nil {
		t.Fatal(err)
	}
	clockPast(t, ws+"/conf/prod.env")
	s := execProfileSnapshot(t, ws, map[string]domain.Access{"**/conf/*.env": domain.AccessDeny})
	for i, cmd := range []string{`echo first`, `echo n > conf/notes && mv other moved && echo second`} {
		r := sh(t, &s, cmd)
		if r.ExitCode != 0 {
			t.Fatalf("command %d: %s %s", i, r.Stdout, r.Stderr)
		}
		if q := quarantined(r); len(q) > 0 {
			t.Fatalf("command %d set aside %v: the person's link beside its writes, or a plain directory it moved", i, q)
		}
	}
	if target, err := os.Readlink(ws + "/conf/prod.env"); err != nil || target != "../shared/prod.env.txt" {
		t.Fatalf("the person's link: %q %v", target, err)
	}
	// The same kind of link, made under a name no rule matches and moved
	// under one that does by a later command: set aside.
	r := sh(t, &s, `mkdir -p x && ln -s ../shared/prod.env.txt x/staged.env && echo made`)
	if r.ExitCode != 0 {
		t.Fatalf("premise: %s %s", r.Stdout, r.Stderr)
	}
	clockPast(t, ws+"/x/staged.env")
	r = sh(t, &s, `mv x sub && mkdir -p sub2 && mv sub sub2/conf && echo moved`)
	if r.ExitCode != 0 {
		t.Fatalf("premise: %s %s", r.Stdout, r.Stderr)
	}
	if q := quarantined(r); !slices.Contains(q, ws+"/sub2/conf/staged.env") {
		t.Errorf("a link moved under a glob deny's name inside a directory the command moved stayed: %v", q)
	}
}
