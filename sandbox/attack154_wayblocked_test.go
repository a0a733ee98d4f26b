package sandbox

import (
	"os"
	"strings"
	"testing"
	"time"

	"turnstile/domain"
)

// TestAttack154_DenyWayBlockedByNonDirectory (review 154, medium: "deny
// entries neither readable nor writable" broken while a command runs, a
// variant of review 151 the way fix misses). A deny entry inside a
// writable root whose directory is missing (ws/secret/prod, no ws/secret)
// now gets its way made and the name held (holdway.go). But denyWays stops
// at the first component that Lstat finds (a regular file, a dangling
// symlink) and returns nil; holds' add then skips the entry because
// os.Stat of its directory is not a directory. So an earlier command
// leaves a plain file named "secret" (a dangling link would do the same,
// where something else than a command can make one): not a command
// (the way is made for every command of the profile), but the agent's own
// file-edit tool, which the profile allows to write ws/secret (only
// ws/secret/prod is denied). The command then removes it, makes
// secret/prod itself and reads what a host tool of the person's writes
// there while it runs: exactly review 151's attack.
//
// Control: with nothing at ws/secret, the way is made and the name held:
// the key the host writes is not read.
func TestAttack154_DenyWayBlockedByNonDirectory(t *testing.T) {
	requireRoot(t)
	requireKernel(t, true)
	base := visibleWorkspace(t)
	ws := base + "/ws"
	if err := os.MkdirAll(ws, 0o755); err != nil {
		t.Fatal(err)
	}
	s := execProfileSnapshot(t, ws, map[string]domain.Access{
		ws + "/secret/prod": domain.AccessDeny,
		ws + "/vault/prod":  domain.AccessDeny,
	})
	run := func(dir string) *Result {
		done := make(chan struct{})
		go func() {
			defer close(done)
			time.Sleep(1500 * time.Millisecond)
			if err := os.MkdirAll(ws+"/"+dir+"/prod", 0o755); err != nil {
				return // the plain file is still there: the command was refused
			}
			if err := os.WriteFile(ws+"/"+dir+"/prod/key", []byte("AKIA-HOST-SECRET\n"), 0o644); err != nil {
				t.Error(err)
			}
		}()
		// A command refused (nothing run, 126) is a fix too.
		r, err := run(t, &s, SpawnRequest{Argv: []string{"/bin/sh", "-c", `rm -f ` + dir + ` 2>/dev/null; mkdir -p ` + dir + `/prod 2>/dev/null; for i in $(seq 60); do cat ` + dir + `/prod/key 2>/dev/null && exit 0; sleep 0.1; done; echo never read; exit 3`}}, nil)
		<-done
		if err != nil && r == nil {
			t.Fatalf("run: %v", err)
		}
		return r
	}
	// Control: nothing at ws/secret: the way is made, the name held.
	if r := run("secret"); strings.Contains(string(r.Stdout), "AKIA-HOST-SECRET") {
		t.Fatalf("control: the command read a key written into the held deny entry while it ran: %q", r.Stdout)
	} else if !strings.Contains(string(r.Stdout), "never read") {
		t.Fatalf("control: the command did not run its loop (exit %d, stdout %q, stderr %q)", r.ExitCode, r.Stdout, r.Stderr)
	}
	// The agent's own file-edit tool (a Write the profile allows: ws is
	// writable, only vault/prod is denied) leaves a plain file named vault
	// before the command; a command cannot plant it (vault is a way then,
	// and prod held in it), the runtime's edit can.
	if _, err := (DecisionChecker{}).ResolveFile(&s, ws+"/vault", domain.AccessWrite, false); err != nil {
		t.Fatalf("premise: the profile refuses the file tool's write of %s/vault: %v", ws, err)
	}
	if err := os.WriteFile(ws+"/vault", []byte("notes\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if r := run("vault"); strings.Contains(string(r.Stdout), "AKIA-HOST-SECRET") {
		t.Errorf("a plain file planted at %s/vault kept the way to the deny entry vault/prod from being made and held: the command removed it, made vault/prod and read the key the host wrote there while it ran: %q",
			ws, r.Stdout)
	}
}
