package main

import (
	"strings"
	"testing"
	"time"

	"turnstile/domain"
	"turnstile/domain/turn"
	"turnstile/projections"
)

// TestApprovalPrintsNoControls: an approval request whose fields carry an
// escape sequence (erase the line, conceal, move the cursor), a line break
// that forges a line, a right-to-left override or invalid UTF-8 is printed
// with those written as escapes, so the terminal shows the person deciding
// every byte of the request; ordinary text (the control, with non-ASCII
// letters) is printed as it is.
func TestApprovalPrintsNoControls(t *testing.T) {
	evil := "echo ok\x1b[2K\x1b[1G\x1b[8m; rm -rf ~\n  status     allowed\u202egnp.exe\xff"
	a := &projections.ApprovalView{Status: projections.ApprovalPending, Request: turn.ApprovalRequest{
		RequestID: "r1", TurnID: "t\x1b]0;x\x07", ToolName: "exec_command", Summary: evil,
		Details: []domain.Detail{{Label: "Command\r", Value: evil}},
	}}
	var b strings.Builder
	printApproval(&b, a, time.Now())
	out := b.String()
	for _, bad := range []string{"\x1b", "\x07", "\r", "\u202e", "\xff", "\n  status     allowed"} {
		if strings.Contains(out, bad) {
			t.Errorf("printed %q raw:\n%s", bad, out)
		}
	}
	for _, want := range []string{`\x1b[2K`, `\x1b[8m; rm -rf ~\n  status`, `\u202e`, `\xff`, `t\x1b]0;x\a`} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %q in:\n%s", want, out)
		}
	}
	if s := "Éditer /w/süd.go — fine"; shown(s) != s {
		t.Errorf("shown(%q) = %q", s, shown(s))
	}
}
