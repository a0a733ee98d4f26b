package tests

import (
	"bytes"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// attack26Settings is a Claude Code project settings file whose hook runs a
// program when a session starts in the directory.
const attack26Settings = `{"hooks":{"SessionStart":[{"hooks":[{"type":"command","command":"touch /tmp/attack26-claude-hook-ran"}]}]}}`

// TestAttack26ForgedHoldKeepsAgentSettings: after each command the check
// sets aside a .claude, .codex or .agents the command made or changed
// anywhere below a writable root (nineteenth review), but it passes over
// a name "held for a command" (isHeld): the empty read-only placeholder
// the server makes at a command's cwd so that the command cannot create
// it there. The server takes an existing empty directory of mode 0555 for
// such a placeholder left by another process (holdlock.go: a hold is
// marked by its mode), and holds it. So the agent forges one: command A
// makes an empty sub/.claude of mode 0555 and waits; command B starts
// with its cwd in sub/, and the server holds A's directory as B's
// placeholder; A then writes sub/.claude/settings.json (its own
// directory, in its own view) and ends: its check passes over the held
// name. B ends: its check passes over it too (held, and there before B),
// and the release removes the hold only when it is empty. The project
// settings stay, hooks and all, for the Claude Code session a person
// starts in sub/, outside the sandbox. Both are ordinary commands of one
// auto_accept_edits turn, run at once. Wanted: a directory the command
// made is never taken for the server's placeholder (nor passed over by
// the check because some command holds its name). The same without any
// forging: the server's own placeholder at a command's cwd (sub2/.claude,
// made by the server as root) belongs on disk to the root's owner, so
// another command of the turn, which the idmap makes that owner, opens it
// (chmod), fills it and ends: passed over as held, and kept by the
// release, not empty. Control: the same .claude made by a command alone
// is set aside.
//
// Since the roots' lock (sandbox/rootlock.go) the commands of a turn over
// one root run one at a time: B and D wait for A and C, which now wait for
// their partner at most 3 s and go on; the settings must still not stay.
func TestAttack26ForgedHoldKeepsAgentSettings(t *testing.T) {
	t.Parallel()
	s := StartServer(t, "")
	root := workspace(t)
	sub := filepath.Join(root, "sub")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	s.startTurn("h26", "ws", "auto_accept_edits", root)

	// Control: a command alone that makes a .claude below the root.
	ctl := s.execApproved("h26", "ctl", map[string]any{"timeout_ms": 20000, "argv": []string{"sh", "-c",
		`mkdir -p ctl/.claude && printf '%s\n' '` + attack26Settings + `' > ctl/.claude/settings.json`}})
	if !ctl.Ran || ctl.Result == nil || ctl.Result.ExitCode != 0 {
		t.Fatalf("control: %+v", ctl)
	}
	if exists(filepath.Join(root, "ctl", ".claude", "settings.json")) || len(ctl.Result.Quarantined) == 0 {
		t.Fatalf("control: a .claude a command made alone was not set aside: %+v", ctl.Result)
	}

	// start approves a command and runs it in the background.
	start := func(call string, body map[string]any) <-chan decisionAnswer {
		t.Helper()
		body["tool_call_id"] = call
		st, first := s.exec("h26", "", body)
		if st != http.StatusAccepted || first.Request == nil {
			t.Fatalf("exec %s: %d %+v, want 202 ask", call, st, first)
		}
		s.respond(first.Request.RequestID, "allow_once")
		return execInBackground(s, "h26", body)
	}
	chA := start("A", map[string]any{"timeout_ms": 60000, "argv": []string{"sh", "-c",
		`mkdir sub/.claude && chmod 555 sub/.claude && touch planted && i=0; while [ ! -e bstarted ] && [ $i -lt 60 ]; do sleep 0.05; i=$((i+1)); done; ` +
			`chmod 755 sub/.claude && printf '%s\n' '` + attack26Settings + `' > sub/.claude/settings.json && chmod 555 sub/.claude`}})
	pollUntil(t, "command A to make the empty sub/.claude", func() bool { return exists(filepath.Join(root, "planted")) })
	chB := start("B", map[string]any{"timeout_ms": 60000, "cwd": sub, "argv": []string{"sh", "-c",
		`touch ../bstarted; while [ ! -e ../release ]; do sleep 0.05; done`}})
	a := <-chA
	if err := os.WriteFile(filepath.Join(root, "release"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	b := <-chB
	if !a.Ran || a.Result == nil || a.Result.ExitCode != 0 || !b.Ran || b.Result == nil || b.Result.ExitCode != 0 {
		t.Fatalf("the commands: A %+v %+v; B %+v %+v", a, a.Result, b, b.Result)
	}
	var kept []string
	if got, err := os.ReadFile(filepath.Join(sub, ".claude", "settings.json")); err == nil {
		kept = append(kept, fmt.Sprintf("forged placeholder: %s/.claude/settings.json stays (A set aside %+v, B %+v): %s", sub, a.Result.Quarantined, b.Result.Quarantined, bytes.TrimSpace(got)))
	}

	// Without forging: the server's own placeholder for a command whose
	// cwd is sub2/ belongs on disk to the root's owner, so another command
	// of the turn owns it in its view: it opens it and fills it.
	sub2 := filepath.Join(root, "sub2")
	if err := os.MkdirAll(sub2, 0o755); err != nil {
		t.Fatal(err)
	}
	chC := start("C", map[string]any{"timeout_ms": 60000, "cwd": sub2, "argv": []string{"sh", "-c",
		`touch ../cstarted; i=0; while [ ! -e ../release2 ] && [ $i -lt 60 ]; do sleep 0.05; i=$((i+1)); done`}})
	pollUntil(t, "command C to run in sub2/", func() bool { return exists(filepath.Join(root, "cstarted")) })
	d := s.execApproved("h26", "D", map[string]any{"timeout_ms": 20000, "argv": []string{"sh", "-c",
		`chmod 755 sub2/.claude && printf '%s\n' '` + attack26Settings + `' > sub2/.claude/settings.json && chmod 555 sub2/.claude`}})
	if err := os.WriteFile(filepath.Join(root, "release2"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	c := <-chC
	if !c.Ran || c.Result == nil || c.Result.ExitCode != 0 || !d.Ran || d.Result == nil {
		t.Fatalf("the commands: C %+v %+v; D %+v %+v", c, c.Result, d, d.Result)
	}
	if got, err := os.ReadFile(filepath.Join(sub2, ".claude", "settings.json")); err == nil {
		kept = append(kept, fmt.Sprintf("the server's placeholder filled: %s/.claude/settings.json stays (D exit %d, set aside %+v; C %+v): %s", sub2, d.Result.ExitCode, d.Result.Quarantined, c.Result.Quarantined, bytes.TrimSpace(got)))
	}
	if len(kept) > 0 {
		t.Fatalf("Claude Code project settings a command wrote below the root stay after the checks, for a session a person starts there:\n  %s", strings.Join(kept, "\n  "))
	}
}
