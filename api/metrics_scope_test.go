package api_test

import (
	"net/http"
	"strings"
	"testing"

	"turnstile/api"
)

// TestMetricsNeedEveryWorkspace: /metrics counts every workspace's
// decisions and connections, so an auditor limited to ws-a is refused it
// (403, saying why), while an auditor of every workspace reads it (the
// control), and the refusal reads as a field error, not a crash.
func TestMetricsNeedEveryWorkspace(t *testing.T) {
	s := startSSE(t, api.Config{}, 0)
	s.decisions("b0", 0, 2) // another workspace's activity
	scoped := s.as(s.credential("aud-a", "auditor", "ws-a"))
	st, b := scoped.do("GET", "/metrics", nil)
	if st != http.StatusForbidden || !strings.Contains(string(b), "every workspace") {
		t.Fatalf("scoped auditor's /metrics: %d %s, want 403 naming every workspace", st, b)
	}
	if strings.Contains(string(b), "turnstile_decisions_total") {
		t.Fatalf("the refusal carries the metrics: %s", b)
	}
	all := s.as(s.credential("aud-all", "auditor"))
	if st, b := all.do("GET", "/metrics", nil); st != http.StatusOK || !strings.Contains(string(b), "turnstile_decisions_total") {
		t.Fatalf("unscoped auditor's /metrics: %d %.200s", st, b)
	}
}
