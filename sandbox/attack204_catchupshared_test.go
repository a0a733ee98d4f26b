package sandbox

import (
	"context"
	"os"
	"testing"

	"turnstile/domain"
)

// TestAttack204_CatchUpFirstWalksSharedTmpWhole (review 204, medium: the
// person's and other users' files in /tmp set aside; a root server, a
// workspace in /tmp and /tmp writable, ":slash_tmp" = "write"). The check
// of what a killed command left now runs before the next command
// (catchUpFirst.run), over a plantCheck of its own, newPlantCheck(newFSView(
// entries)): its cmdUID is never set (prepareSpec sets it on spec.plant
// only). With cmdUID 0 the walk of the world-writable sticky /tmp is not
// a shared root's (plantWalk.shared = cmdUID != 0 && sharedRoot), so it
// enters every top directory of /tmp, the person's and other users', and
// judges from the killed command's start (hours back, if the agent likes).
// A person's project in /tmp whose .claude/settings.json they edited
// since is set aside as the killed command's: the agent only needs one of
// its commands killed (a timeout) and any next command. The old
// after-check (spec.plant, cmdUID set) walked /tmp as shared and left it.
//
// Control: the same next command with no command killed before leaves
// the person's file. (Beware: the killed case's check sets aside whatever
// in /tmp changed within the second, other test runs' files among them:
// a go-build test binary and another test's .git were moved when it was
// written. Run it alone.)
func TestAttack204_CatchUpFirstWalksSharedTmpWhole(t *testing.T) {
	requireKernel(t, true)
	if os.Geteuid() != 0 {
		t.Skip("the sandbox uid is a root server's")
	}
	for _, c := range []struct {
		name   string
		killed bool
	}{{"control-none-killed", false}, {"killed-before", true}} {
		t.Run(c.name, func(t *testing.T) {
			ws := tempWorkspace(t) // in /tmp
			s := profileSnapshot(t, ws, map[string]domain.Access{":slash_tmp": domain.AccessWrite})
			if c.killed {
				lock, err := lockRoots(context.Background(), []string{ws})
				if err != nil {
					t.Fatal(err)
				}
				lock.MarkStarted(coarseNow())
				if dir, err := rootLockDir(); err == nil {
					t.Cleanup(func() {
						os.Remove(pendingMarker(lockFileName(dir, ws)))
						for _, a := range lockAncestors(ws) {
							os.Remove(belowMarker(dir, a, ws))
						}
					})
				}
				lock.Release() // killed: no check, no Checked
			}
			// The person's project in /tmp (root's, 0755), their agent
			// settings edited after the killed command started.
			person, err := os.MkdirTemp("/tmp", "attack204-person-")
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { os.RemoveAll(person) })
			os.Chmod(person, 0o755)
			mkfiles(t, person, map[string]string{".claude/settings.json": "{\"permissions\":{}}\n", "README": "mine\n"})
			r := sh(t, &s, "echo next")
			if string(r.Stdout) != "next\n" {
				t.Fatalf("premise: the next command did not run: %q %q", r.Stdout, r.Stderr)
			}
			t.Logf("set aside: %v; limits: %q", quarantined(r), r.CheckLimits)
			if !exists(person + "/.claude/settings.json") {
				if !c.killed {
					t.Fatalf("control: the person's %s/.claude/settings.json was set aside with no command killed", person)
				}
				t.Errorf("FALSE SET-ASIDE: the person's %s/.claude/settings.json (theirs, in their own directory of /tmp) was set aside by the check of a killed command, which walked the shared /tmp as the server's (cmdUID unset)", person)
			}
		})
	}
}
