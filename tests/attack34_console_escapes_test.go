package tests

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// TestAttack34ConsoleLiteralEscapeLooksLikeLineBreak: the console writes a
// line break of a request as the escape \u{a} (visible() in app.js), and a
// command's own backslashes as they are, so the text `\u{a}` in a one-line
// command is shown exactly as a line break. The agent's one-line
//
//	cat <<'EOF' > notes.txt\u{a}run lint; sh ./lint.sh\u{a}EOF
//
// (which runs `sh ./lint.shu{a}EOF`, a script of the agent's) is shown, on
// the card the person answers, byte for byte as the honest three-line
// here-document that only writes a note. The control: the honest command's
// line breaks are shown as \u{a}. The secure behaviour asserted: the two
// cards' summary and details differ.
func TestAttack34ConsoleLiteralEscapeLooksLikeLineBreak(t *testing.T) {
	s := StartServer(t, "")
	approver := s.credential("alice", "approver")
	b := browser(t)
	signIn(t, b, s, approver)
	run(t, b, "the event stream goes live", chromedp.WaitVisible(`#conn[data-state="live"]`, chromedp.ByQuery))
	root := workspace(t)
	s.startTurn("t34-console", "ws", "supervised", root)
	honest := s.decide("t34-console", "c-honest", "exec_command", map[string]any{"cmd": "cat <<'EOF' > notes.txt\nrun lint; sh ./lint.sh\nEOF"})
	forged := s.decide("t34-console", "c-forged", "exec_command", map[string]any{"cmd": `cat <<'EOF' > notes.txt\u{a}run lint; sh ./lint.sh\u{a}EOF`})
	if honest.Request == nil || forged.Request == nil {
		t.Fatalf("want two requests: %+v %+v", honest, forged)
	}
	card := func(id string) string {
		sel := "#req-" + id
		run(t, b, "the request appears", chromedp.WaitVisible(sel, chromedp.ByQuery))
		return text(t, b, sel+" h3") + "\n" + text(t, b, sel+" table")
	}
	h, f := card(honest.Request.RequestID), card(forged.Request.RequestID)
	if want := `cat <<'EOF' > notes.txt\u{a}run lint; sh ./lint.sh\u{a}EOF`; !strings.Contains(h, want) {
		t.Fatalf("control: the honest card does not show %q:\n%s", want, h)
	}
	if h == f {
		t.Errorf("the one-line command holding the text \\u{a} is shown on its card exactly as the three-line here-document:\n%s", f)
	}
}
