package tests

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestAttack34LiteralEscapeLooksLikeLineBreak: an approval request shows a
// line break of a command as the escape "\n" (turnstile approvals show,
// domain.TerminalSafe; the console writes "\u{a}"), but a backslash the
// command holds is shown as it is, so the two-character text `\n` in a
// command is shown exactly as a line break is. The agent sends, on ONE
// line,
//
//	cat <<'EOF' > notes.txt\nrun lint; sh ./lint.sh\nEOF
//
// which the person is shown byte for byte as the harmless three-line
// here-document that writes a note (the honest command, sent with real
// line breaks, the control). What runs is one line: cat with an empty
// here-document, its output to `notes.txtnrun`, then `sh ./lint.shnEOF` —
// a script the agent left in its workspace. allow_once for the note runs
// the agent's script.
//
// The secure behaviour asserted: two commands that differ are not shown
// the same (a backslash shown as an escape too, or a line break shown as
// one), and the approved single-line command does not run a script the
// request never showed.
func TestAttack34LiteralEscapeLooksLikeLineBreak(t *testing.T) {
	t.Parallel()
	s := StartServer(t, "")
	root := workspace(t)
	s.startTurn("t34-esc", "ws", "auto_accept_edits", root)
	// The agent's preparation (its own shell, or an earlier command): a
	// script named lint.shnEOF in the workspace.
	if err := os.WriteFile(filepath.Join(root, "lint.shnEOF"), []byte("echo agent-script-ran > pwned.txt\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	honest := "cat <<'EOF' > notes.txt\nrun lint; sh ./lint.sh\nEOF"
	forged := `cat <<'EOF' > notes.txt\nrun lint; sh ./lint.sh\nEOF`

	shown := func(callID, cmd string) (string, string) {
		t.Helper()
		status, d := s.exec("t34-esc", "", map[string]any{"tool_call_id": callID, "cmd": cmd})
		if status != http.StatusAccepted || d.Decision != "ask" || d.Request == nil {
			t.Fatalf("%s: %d %+v, want 202 ask", callID, status, d)
		}
		out, errOut, code := s.CLI("approvals", "show", d.Request.RequestID)
		if code != 0 {
			t.Fatalf("approvals show: %d %s", code, errOut)
		}
		// What the person reads of the command: the summary and detail
		// lines (the request id and tool call id differ by construction).
		var lines []string
		for _, l := range strings.Split(out, "\n") {
			f := strings.Fields(l)
			if len(f) > 0 && (f[0] == "summary" || f[0] == "command" || f[0] == "working" || f[0] == "executable" || strings.HasPrefix(f[0], "characters")) {
				lines = append(lines, l)
			}
		}
		return strings.Join(lines, "\n"), d.Request.RequestID
	}
	honestShown, honestID := shown("esc-honest", honest)
	// Control: the honest command's line breaks are shown as escapes, and
	// allow_once runs it as shown (it writes the note, runs no script).
	if !strings.Contains(honestShown, `notes.txt\nrun lint; sh ./lint.sh\nEOF`) {
		t.Fatalf("control: the honest here-document is shown as\n%s", honestShown)
	}
	s.respond(honestID, "allow_once")
	if status, run := s.exec("t34-esc", "", map[string]any{"tool_call_id": "esc-honest", "cmd": honest}); status != http.StatusOK || !run.Ran {
		t.Fatalf("control: the approved honest command: %d %+v", status, run)
	}
	if b, err := os.ReadFile(filepath.Join(root, "notes.txt")); err != nil || string(b) != "run lint; sh ./lint.sh\n" {
		t.Fatalf("control: the honest command wrote notes.txt %q (%v)", b, err)
	}
	if exists(filepath.Join(root, "pwned.txt")) {
		t.Fatal("control: the honest command ran the agent's script")
	}

	forgedShown, _ := shown("esc-forged", forged)
	if forgedShown == honestShown {
		t.Errorf("a one-line command holding the text \\n is shown exactly as the three-line here-document:\nforged: %q\nhonest: %q\n%s", forged, honest, forgedShown)
	}
	// Fixed: its backslashes are shown doubled, so the person reads one
	// line holding the text \n (what allow_once would then run is what
	// was shown).
	if !strings.Contains(forgedShown, `notes.txt\\nrun lint; sh ./lint.sh\\nEOF`) {
		t.Errorf("the one-line command is shown as\n%s", forgedShown)
	}
}
