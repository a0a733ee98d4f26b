package main

import (
	"strings"
	"testing"

	"turnstile/domain/eventstore"
)

// TestClientReadsAfterItsCommands: once a command answered with a
// position, the client's reads of the read models carry it (after, or
// after_position on the list of turns, whose after is a paging cursor);
// reads of anything else, and a read that names its own, are left alone;
// an earlier position never replaces a later one. The control: before any
// command, nothing is added.
func TestClientReadsAfterItsCommands(t *testing.T) {
	c := &client{}
	if got := c.withAfter("GET", "/v1/turns/t/audit"); got != "/v1/turns/t/audit" {
		t.Fatalf("before any command: %s", got)
	}
	c.remember("", []byte(`{"position":"42"}`))
	c.remember("", []byte(`{"position":"7"}`))
	c.remember("", []byte(`{"hookSpecificOutput":{}}`))
	c.remember("", []byte(`not json`))
	for path, want := range map[string]string{
		"/v1/turns/t":                     "/v1/turns/t?after=42",
		"/v1/turns/t/audit":               "/v1/turns/t/audit?after=42",
		"/v1/turns/t/timeline":            "/v1/turns/t/timeline?after=42",
		"/v1/turns/t/explain?path=%2Ftmp": "/v1/turns/t/explain?path=%2Ftmp&after=42",
		"/v1/approvals?status=pending":    "/v1/approvals?status=pending&after=42",
		"/v1/approvals/r1":                "/v1/approvals/r1?after=42",
		"/v1/turns?limit=1000&after=t9":   "/v1/turns?limit=1000&after=t9&after_position=42",
		"/v1/turns/t/audit?after=50":      "/v1/turns/t/audit?after=50",
		"/v1/turns/t/events?from=0":       "/v1/turns/t/events?from=0",
		"/v1/turns/t/verify":              "/v1/turns/t/verify",
		"/readyz":                         "/readyz",
		"/v1/credentials":                 "/v1/credentials",
	} {
		if got := c.withAfter("GET", path); got != want {
			t.Errorf("GET %s: %s, want %s", path, got, want)
		}
	}
	if got := c.withAfter("POST", "/v1/turns/t/decisions"); got != "/v1/turns/t/decisions" {
		t.Errorf("a command got %s", got)
	}
	c.remember("57", []byte(`{"hookSpecificOutput":{}}`)) // a hook: the header
	if got := c.lastPosition(); got != (eventstore.Position{Commit: 57, Prepare: 57}) {
		t.Fatalf("after a hook's header: %s", got)
	}
}

// TestClientTakesTurnstileAfter: TURNSTILE_AFTER seeds the client's
// position (what a script's own command answered); a value that is not a
// position is refused, naming the variable.
func TestClientTakesTurnstileAfter(t *testing.T) {
	t.Setenv("TURNSTILE_TOKEN", "client-after-test-token-0123456789")
	t.Setenv("TURNSTILE_AFTER", "1234")
	var cf clientFlags
	c, err := cf.client()
	if err != nil {
		t.Fatal(err)
	}
	if got := c.withAfter("GET", "/v1/approvals"); got != "/v1/approvals?after=1234" {
		t.Fatalf("with TURNSTILE_AFTER=1234: %s", got)
	}
	t.Setenv("TURNSTILE_AFTER", "soon")
	if _, err := cf.client(); err == nil || !strings.Contains(err.Error(), "TURNSTILE_AFTER") {
		t.Fatalf("TURNSTILE_AFTER=soon: %v", err)
	}
}
