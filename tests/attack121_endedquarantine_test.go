package tests

import (
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestAttack121TurnEndDropsQuarantineRecord: the check after a command sets
// aside what it planted (a repository whose config runs a program), and
// README promises each item "is named in the exec result, in the
// exec.finished event, and in an exec_quarantined audit and timeline row".
// But a command whose turn ends while it runs records no result
// (engine/exec.go: FinishExec is refused once the turn is not live), and
// the agent holds the runtime credential that ends its turn: it plants, and
// ends its own turn (POST /complete) while the command still runs. The
// check still runs and the agent's /exec answer names the quarantine, but
// the record — exec.finished, the exec_quarantined audit and timeline row,
// and why the command was stopped — is gone: the person reading the audit
// never learns that the agent planted a repository that would run a
// program, nor what the check could not cover.
//
// Control: the same plant in a command that ends on its own is recorded
// (exec.finished names the quarantine; an exec_quarantined audit row).
func TestAttack121TurnEndDropsQuarantineRecord(t *testing.T) {
	t.Parallel()
	s := StartServer(t, "")

	plant := func(t *testing.T, id, tail string) (root string, answer <-chan decisionAnswer) {
		t.Helper()
		root = gitWorkspace(t)
		marker := filepath.Join(t.TempDir(), "pwned")
		s.startTurn(id, "ws", "auto_accept_edits", root)
		body := map[string]any{"tool_call_id": "p1", "argv": []string{"sh", "-c", strings.ReplaceAll(plantScript, "MARKER", marker) + tail}, "timeout_ms": 120000}
		status, first := s.exec(id, "", body)
		if status != http.StatusAccepted || first.Request == nil {
			t.Fatalf("exec: %d %+v, want 202 ask", status, first)
		}
		s.respond(first.Request.RequestID, "allow_once")
		return root, execInBackground(s, id, body)
	}
	recorded := func(id string) (finished, row bool) {
		_, raw := s.events(id)
		finished = strings.Contains(string(raw), `"exec.finished"`)
		for _, r := range s.auditRows(id) {
			row = row || r.Kind == "exec_quarantined"
		}
		return
	}
	await := func(t *testing.T, ch <-chan decisionAnswer) decisionAnswer {
		t.Helper()
		select {
		case d := <-ch:
			return d
		case <-time.After(90 * time.Second):
			t.Fatal("the exec did not return")
		}
		return decisionAnswer{}
	}

	t.Run("control", func(t *testing.T) {
		root, ch := plant(t, "q121-ok", "")
		d := await(t, ch)
		if !d.Ran || d.Result == nil || len(d.Result.Quarantined) != 1 {
			t.Fatalf("control: exec %+v %+v", d, d.Result)
		}
		if exists(filepath.Join(root, "sub", ".git", "HEAD")) {
			t.Fatal("control: the planted repository was not set aside")
		}
		if fin, row := recorded("q121-ok"); !fin || !row {
			t.Fatalf("control: exec.finished recorded %v, exec_quarantined row %v", fin, row)
		}
	})

	t.Run("attack", func(t *testing.T) {
		// The command plants, says so in a file, and waits to be stopped.
		root, ch := plant(t, "q121-end", " && echo ok > ready && sleep 300")
		pollUntil(t, "the command to have planted", func() bool { return exists(filepath.Join(root, "ready")) })
		// The agent, holding the runtime credential, ends its own turn.
		if status, raw := s.Do("POST", "/v1/turns/q121-end/complete", nil); status != http.StatusOK {
			t.Fatalf("complete: %d %s", status, raw)
		}
		d := await(t, ch)
		if !d.Ran || d.Result == nil || !strings.Contains(d.Message, "turn ended") {
			t.Fatalf("setup: exec answer %+v %+v", d, d.Result)
		}
		setAside := !exists(filepath.Join(root, "sub", ".git", "HEAD"))
		t.Logf("the agent's answer names %d quarantined items; set aside on disk: %v", len(d.Result.Quarantined), setAside)
		fin, row := recorded("q121-end")
		if !fin {
			t.Errorf("no exec.finished event for the command the turn's end stopped (quarantined in the answer: %+v)", d.Result.Quarantined)
		}
		if !row {
			t.Errorf("no exec_quarantined audit row: the planted repository the check set aside is missing from the audit")
		}
	})
}
