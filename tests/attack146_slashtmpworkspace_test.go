package tests

import (
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// attack146Profiles: "tmpw146" is the workspace profile with the host's
// /tmp writable (":slash_tmp" = "write"); "ws146" the plain one. Both run
// commands without asking.
const attack146Profiles = `
[permissions.tmpw146]
extends = ":workspace"
[permissions.tmpw146.filesystem]
":slash_tmp" = "write"
[permissions.tmpw146.approvals]
policy = "full_access"

[permissions.ws146]
extends = ":workspace"
[permissions.ws146.approvals]
policy = "full_access"
`

// TestAttack146_ServerSlashTmpWorkspaceNotChecked (review 146, high; the
// end-to-end form of sandbox's TestAttack146_SlashTmpWorkspaceNotWalked,
// through POST /v1/turns/{id}/exec of a root server). A turn over a
// workspace in /tmp under a profile that makes /tmp writable: the check
// after its command keeps only /tmp among its nested roots (newPlantCheck)
// and, /tmp being a shared root, enters at its top only what the command's
// uid owns (commandsOwn); the workspace's top directory is the person's,
// so the workspace is never walked. A repository the command makes there
// with core.fsmonitor stays, and the person's git status in it runs the
// agent's program on the host.
//
// Control ("control"): the same command of a turn under the plain
// workspace profile: the repository is quarantined.
func TestAttack146_ServerSlashTmpWorkspaceNotChecked(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("the sandbox uid is a root server's")
	}
	file := filepath.Join(t.TempDir(), "profiles.toml")
	if err := os.WriteFile(file, []byte(attack146Profiles), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ name, profile string }{{"control", "ws146"}, {"slash-tmp-write", "tmpw146"}} {
		t.Run(c.name, func(t *testing.T) {
			s := StartServer(t, "", "--profiles", file)
			root := workspace(t) // in /tmp
			marker := root + ".pwned"
			t.Cleanup(func() { os.Remove(marker) })
			if st, body := startProfileTurn(s, "t146", root, map[string]any{"profile": c.profile}); st != http.StatusCreated {
				t.Fatalf("start: %d %s", st, body)
			}
			plant := "export HOME=$TMPDIR; git init -q evil && printf '[core]\\n\\tfsmonitor = touch " + marker + "\\n' >> evil/.git/config && echo PLANTED"
			r := <-execInBackground(s, "t146", map[string]any{"tool_call_id": "a", "timeout_ms": 60000, "argv": []string{"sh", "-c", plant}})
			if !r.Ran || r.Result == nil || !strings.Contains(r.Result.Stdout, "PLANTED") {
				t.Fatalf("premise: the command did not run: %+v", r)
			}
			t.Logf("result: %+v", *r.Result)
			cmd := exec.Command("git", "status")
			cmd.Dir = filepath.Join(root, "evil")
			out, _ := cmd.CombinedOutput()
			t.Logf("host git status in evil:\n%s", out)
			pwned := exists(marker)
			if c.profile == "ws146" {
				if pwned || len(r.Result.Quarantined) == 0 {
					t.Errorf("control: the planted repository was not quarantined (pwned: %v)", pwned)
				}
				return
			}
			if pwned {
				t.Errorf("ESCAPED: with /tmp writable, the check after the command never walked the workspace %s: the person's git status ran the core.fsmonitor program of the repository the agent's command made there (quarantined: %d)", root, len(r.Result.Quarantined))
			}
		})
	}
}
