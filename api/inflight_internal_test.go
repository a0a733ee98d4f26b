package api

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"turnstile/domain"
)

// TestCommandsPerCredential: past MaxCommands commands of one credential
// at once, the next is refused 429 commands_per_credential before it runs.
// Controls: another credential's command runs meanwhile, and once the
// first ends the credential's next runs.
func TestCommandsPerCredential(t *testing.T) {
	s := &Server{cfg: Config{MaxCommands: 1}}
	as := func(name string) *http.Request {
		r := httptest.NewRequest("POST", "/v1/turns/t/exec", nil)
		return r.WithContext(context.WithValue(r.Context(), principalKey{}, domain.Principal{Name: name, Role: domain.RoleRuntime}))
	}
	running, release := make(chan struct{}), make(chan struct{})
	go s.withinCommands(httptest.NewRecorder(), as("agent"), func() { close(running); <-release })
	<-running
	ran := false
	w := httptest.NewRecorder()
	s.withinCommands(w, as("agent"), func() { ran = true })
	if ran || w.Code != http.StatusTooManyRequests || !strings.Contains(w.Body.String(), domain.QuotaCommands) {
		t.Fatalf("a second command of the agent's: ran=%v %d %s, want 429 %s", ran, w.Code, w.Body, domain.QuotaCommands)
	}
	s.withinCommands(httptest.NewRecorder(), as("other"), func() { ran = true })
	if !ran {
		t.Fatal("another credential's command did not run")
	}
	close(release)
	for ran = false; !ran; {
		s.withinCommands(httptest.NewRecorder(), as("agent"), func() { ran = true })
	}
}
