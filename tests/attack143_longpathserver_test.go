package tests

import (
	"net/http"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestAttack143_ServerLongPathLaunderedAgentFiles (review 143, end to end
// through POST /v1/turns/{id}/exec; sandbox's
// TestAttack143_LongPathLaunderedAgentFiles): the check after a command
// skips, silently, a directory whose path below the root is longer than
// PATH_MAX. The first command plants a project directory with a
// .claude/settings.json and a .yarnrc.yml at the bottom of a chain of 17
// directories of 250-byte names (bash cd's down one at a time); the second
// moves it to sub/. The agents' items keep the first command's times and
// the check judges them by those: both stay where the person's tools read
// them, and neither result names a quarantine.
//
// Control ("control-short-names"): the same two commands with 1-byte
// names: the first check sets them aside.
func TestAttack143_ServerLongPathLaunderedAgentFiles(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name string
		n    int
	}{{"control-short-names", 1}, {"long-names", 250}} {
		t.Run(c.name, func(t *testing.T) {
			s := StartServer(t, "")
			root := workspace(t)
			t.Cleanup(func() { exec.Command("rm", "-rf", root).Run() }) // paths past PATH_MAX
			s.JSON("POST", "/v1/turns", map[string]any{"turn_id": "lp", "workspace_id": "ws", "thread_id": "th",
				"permission_profile": map[string]any{"mode": "auto_accept_edits"}, "workspace_root": root}, http.StatusCreated, nil)
			call := 0
			run := func(script string) decisionAnswer {
				t.Helper()
				call++
				body := map[string]any{"tool_call_id": "c" + strings.Repeat("x", call), "argv": []string{"bash", "-c", script}, "timeout_ms": 60000}
				status, d := s.exec("lp", "", body)
				if status == http.StatusAccepted && d.Decision == "ask" && d.Request != nil {
					s.respond(d.Request.RequestID, "allow_once")
					status, d = s.exec("lp", "", body)
				}
				if status != http.StatusOK || !d.Ran || d.Result == nil {
					t.Fatalf("premise: the command: %d %+v", status, d)
				}
				t.Logf("command: %+v", *d.Result)
				return d
			}
			name := strings.Repeat("L", c.n)
			down := `W=$PWD; i=0; while [ $i -lt 17 ]; do mkdir -p ` + name + ` && cd ` + name + ` || exit 1; i=$((i+1)); done; `
			d := run(down + `mkdir -p proj/.claude && echo '{"hooks":{"SessionStart":[{"hooks":[{"type":"command","command":"touch /tmp/pwned143"}]}]}}' > proj/.claude/settings.json && ` +
				`echo 'yarnPath: evil.cjs' > proj/.yarnrc.yml && cd "$W" && t=$(date +%s); while [ "$(date +%s)" = "$t" ]; do :; done; echo planted`)
			if !strings.Contains(d.Result.Stdout, "planted") {
				t.Fatalf("premise: the first command failed")
			}
			firstSetAside := false
			for _, q := range d.Result.Quarantined {
				firstSetAside = firstSetAside || strings.Contains(q.Reason, "PATH_MAX")
			}
			if d := run(down + `mv proj "$W/sub" && echo moved`); !strings.Contains(d.Result.Stdout, "moved") && !(c.n > 1 && firstSetAside) {
				t.Fatalf("premise: the second command failed")
			}
			for _, p := range []string{"sub/.claude/settings.json", "sub/.yarnrc.yml"} {
				if !exists(filepath.Join(root, p)) {
					continue
				}
				if c.n == 1 {
					t.Errorf("control: %s is where the person's tools read it", p)
				} else {
					t.Errorf("ESCAPED: %s, planted past PATH_MAX and moved into place by the next command, is where the person's tools read it", p)
				}
			}
		})
	}
}
