package projections

import (
	"strings"
	"testing"
	"unicode/utf8"

	"turnstile/domain"
	"turnstile/domain/turn"
)

// TestTimelineCutsALongSummary: a command of 100 KB (a here-document) is
// held once in the audit row and the approval, which show it whole, and
// cut to its first 2,000 characters in the timeline's titles, which held
// it twice more for every request. A short summary stays whole.
func TestTimelineCutsALongSummary(t *testing.T) {
	h := &history{turns: map[string]*genTurn{"t": {version: -1}}}
	h.add("t", &turn.TurnStarted{TurnID: "t", WorkspaceID: "ws", ThreadID: "th"})
	long := "Run cat > f <<EOF\n" + strings.Repeat("é", 100_000)
	for i, summary := range []string{long, "Run make test"} {
		act := turn.ActionRecord{ToolName: "exec_command", Kind: domain.ActionShellCommand, ScopeHash: "h" + summary[:5], Summary: summary}
		rid := []string{"r-long", "r-short"}[i]
		h.add("t", &turn.ApprovalRequested{ToolCallID: rid, Action: act, Mode: domain.ModeSupervised,
			Request:  turn.ApprovalRequest{RequestID: rid, TurnID: "t", WorkspaceID: "ws", ToolName: "exec_command", Action: domain.ActionShellCommand, Summary: summary},
			Decision: turn.DecisionRecord{Behavior: domain.BehaviorAsk, Reason: domain.ReasonPolicyRequiresApproval}, ExpiresAt: genBase})
		h.add("t", &turn.ApprovalResolved{RequestID: rid, Resolution: domain.ResolutionDeny, Reason: domain.ReasonUserDenied})
	}
	p := replay(t, Options{}, h.events)
	var titles []string
	for _, r := range p.Timeline("t") {
		if r.RequestID != "" {
			titles = append(titles, r.Title)
		}
	}
	if len(titles) != 4 {
		t.Fatalf("timeline titles of the requests: %q", titles)
	}
	for _, title := range titles[:2] {
		if n := utf8.RuneCountInString(title); n > 2001 || !strings.HasSuffix(title, "éé…") || !strings.Contains(title, "Run cat > f <<EOF") {
			t.Fatalf("a long summary's title: %d runes: %.200q", n, title)
		}
	}
	if titles[2] != "Approval requested: Run make test" || titles[3] != "Approval deny: Run make test" {
		t.Fatalf("a short summary's titles: %q", titles[2:])
	}
	if a, _ := p.Approval("r-long"); a.Request.Summary != long {
		t.Fatal("the approval does not keep the summary whole")
	}
	if rows := p.Audit("t", 0, 100); rows[0].Kind != AuditApprovalRequested || rows[0].Detail != long {
		t.Fatalf("the audit row does not keep the summary whole: %+v", rows[0].Kind)
	}
}
