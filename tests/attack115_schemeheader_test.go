package tests

import (
	"net/http"
	"strings"
	"testing"
)

// TestAttack115_SchemeHeaderEvents (medium): the end-to-end half of
// domain.TestAttack115_SchemeHeaderShownWhole. A supervised turn's
// exec_command of an honest
//
//	curl --key ~/.ssh/client.key -H "Authorization: Basic …" "https://api.example.com/v1/x?access_token=…"
//
// records the Basic credential, the ~/.ssh path and the URL's query value
// in clear in the turn's events (REFERENCE §7: paths under ~/.ssh and URL
// queries never appear in clear in audit rows): the header's hidden part
// "Basic …" holds a blank, which the inert rule takes for a value that
// may be code, and shows the whole command.
// Control: the same command with a Bearer credential records none of them.
func TestAttack115_SchemeHeaderEvents(t *testing.T) {
	t.Parallel()
	const basic = "dXNlcjpwYXNzd29yZDExNQ=="
	const query = "Hn4kQ9wLx2PzR7tV115"
	const key = ".ssh/client115.key"
	s := StartServer(t, "")
	root := workspace(t)
	s.startTurn("t115s", "ws", "supervised", root)
	events := func(callID, cmd string) string {
		t.Helper()
		d := s.decide("t115s", callID, "exec_command", map[string]any{"cmd": cmd})
		if d.Request == nil {
			t.Fatalf("%s: no approval request: %+v", callID, d)
		}
		status, raw := s.Request("GET", "/v1/turns/t115s/events?limit=10000", nil)
		if status != http.StatusOK {
			t.Fatalf("events: %d %s", status, raw)
		}
		return string(raw)
	}
	ctl := events("control", `curl --key ~/`+key+` -H "Authorization: Bearer `+basic+`" "https://api.example.com/v1/x?access_token=`+query+`"`)
	for _, sec := range []string{basic, key, query} {
		if strings.Contains(ctl, sec) {
			t.Fatalf("control: the events hold %s in clear", sec)
		}
	}
	all := events("basic", `curl --key ~/`+key+` -H "Authorization: Basic `+basic+`" "https://api.example.com/v1/x?access_token=`+query+`"`)
	for _, sec := range []string{basic, key, query} {
		if strings.Contains(all, sec) {
			i := strings.Index(all, sec)
			t.Errorf("the turn's events hold the honest secret %s in clear: …%s…", sec, all[max(0, i-160):min(len(all), i+80)])
		}
	}
}
