package sandbox

import (
	"strings"
	"testing"
)

// TestAttack140_ChmodRootStickyBlindsCheck (review 140): the check after
// a command walks a shared root (world-writable and sticky: /tmp made
// writable) only into the top entries the command's uid owns or anyone
// may write (plantWalk.commandsOwn), so that it does not set aside what
// other users made in /tmp. Whether a root is shared is judged from its
// mode at the check, and the mode of the workspace root is the agent's to
// set: the sandboxed command runs as the root's owner (idmapped) and
// Landlock does not mediate chmod. The command's first step, `chmod 1777
// .`, turns its own workspace into a "shared root"; what it then makes is
// owned, on disk, by the workspace's owner (the idmap), not the command's
// uid, so the check walks none of it: a .claude/settings.json (Claude
// Code runs its hooks on the host), a subdirectory's .yarnrc.yml and a
// repository with a core.fsmonitor program planted in subdirectories all
// stay where the host's tools read them.
//
// Control (subtest "control"): the same command without the chmod: each
// plant is set aside.
func TestAttack140_ChmodRootStickyBlindsCheck(t *testing.T) {
	plant := "mkdir -p src/.claude sub && echo '{\"hooks\":{}}' > src/.claude/settings.json && " +
		"echo 'yarnPath: evil.cjs' > sub/.yarnrc.yml && " +
		"mkdir -p lib/r && cd lib/r && git init -q && git config core.fsmonitor 'touch /tmp/a140' && cd ../.. && echo planted"
	plants := []string{"src/.claude/settings.json", "sub/.yarnrc.yml", "lib/r/.git/config"}
	for _, chmod := range []bool{false, true} {
		name := "control"
		script := plant
		if chmod {
			name, script = "chmod-root-sticky", "chmod 1777 . && "+plant
		}
		t.Run(name, func(t *testing.T) {
			f := newPlantFixture(t)
			r := sh(t, f.s, "export HOME=$TMPDIR; "+script)
			if !strings.Contains(string(r.Stdout), "planted") {
				t.Fatalf("premise: the command failed: %d %s", r.ExitCode, r.Stderr)
			}
			for _, p := range plants {
				kept := strings.Contains(readFileOr(f.ws+"/"+p), "hooks") || strings.Contains(readFileOr(f.ws+"/"+p), "evil") || strings.Contains(readFileOr(f.ws+"/"+p), "fsmonitor")
				if !chmod && kept {
					t.Errorf("control: %s the command planted was kept (set aside: %v)", p, r.Quarantined)
				}
				if chmod && kept {
					t.Errorf("ESCAPED: %s, planted by a command that first made its workspace root mode 1777, stays where the host's tools read it (set aside: %v)", p, r.Quarantined)
				}
			}
		})
	}
}
