package api_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"turnstile/adapters/boltstore"
	"turnstile/api"
	"turnstile/domain/engine"
	"turnstile/projections"
)

// inProcess is an api.Server on a real embedded store in a temp dir, served
// by httptest: the same handler the binary serves, without a process.
type inProcess struct {
	t     *testing.T
	url   string
	token string
	// stop shuts the server down and closes its store (once; the test's
	// cleanup calls it too).
	stop func()
}

func startInProcess(t *testing.T) *inProcess {
	return startInProcessOn(t, filepath.Join(t.TempDir(), "events.db"))
}

// startInProcessOn serves the embedded store at path (a second server on
// the same file, after stop, reads what the first one wrote); each opt
// changes the server's configuration.
func startInProcessOn(t *testing.T, path string, opts ...func(*api.Config)) *inProcess {
	t.Helper()
	st, err := boltstore.Open(path, boltstore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	key, err := engine.LoadDigestKey(context.Background(), st)
	if err != nil {
		t.Fatal(err)
	}
	eng := engine.New(st, engine.Config{DigestKey: key})
	proj := projections.New()
	token := "in-process-test-token-0123456789"
	cfg := api.Config{Engine: eng, Projector: proj, Store: st, Token: token}
	for _, o := range opts {
		o(&cfg)
	}
	srv := api.New(cfg)
	ctx, cancel := context.WithCancel(context.Background())
	ready := make(chan struct{})
	done := make(chan error, 1)
	go func() { done <- proj.Follow(ctx, st, func() { srv.SetReady(); close(ready) }) }()
	select {
	case <-ready:
	case err := <-done:
		t.Fatalf("projector: %v", err)
	}
	hs := httptest.NewServer(srv.Handler())
	var once sync.Once
	stop := func() {
		once.Do(func() {
			srv.Drain()
			hs.Close()
			cancel()
			<-done
			st.Close()
		})
	}
	t.Cleanup(stop)
	return &inProcess{t: t, url: hs.URL, token: token, stop: stop}
}

// do sends a JSON request and returns the status and body.
// credential creates a named credential through POST /v1/credentials and
// returns its token.
func (s *inProcess) credential(name, role string, workspaces ...string) string {
	s.t.Helper()
	st, b := s.do("POST", "/v1/credentials", map[string]any{"name": name, "role": role, "workspaces": workspaces})
	var nc struct {
		Token string `json:"token"`
	}
	if st != http.StatusCreated || json.Unmarshal(b, &nc) != nil || nc.Token == "" {
		s.t.Fatalf("create the credential %s: %d %s", name, st, b)
	}
	return nc.Token
}

func (s *inProcess) do(method, path string, body any) (int, []byte) {
	s.t.Helper()
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			s.t.Fatal(err)
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, s.url+path, rd)
	if err != nil {
		s.t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+s.token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		s.t.Fatal(err)
	}
	defer resp.Body.Close()
	out, err := io.ReadAll(resp.Body)
	if err != nil {
		s.t.Fatal(err)
	}
	return resp.StatusCode, out
}

// TestInProcessApprovalFlow drives one approval through the handler: a
// supervised turn asks, a person allows for the turn, the same scope is then
// allowed from the grant and another scope still asks; bad input and an
// unknown turn get the one error shape.
func TestInProcessApprovalFlow(t *testing.T) {
	s := startInProcess(t)
	root := t.TempDir()
	if st, b := s.do("POST", "/v1/turns", map[string]any{"turn_id": "t1", "workspace_id": "ws", "thread_id": "th",
		"permission_profile": map[string]string{"mode": "supervised"}, "workspace_root": root}); st != http.StatusCreated && st != http.StatusOK {
		t.Fatalf("start: %d %s", st, b)
	}
	type decision struct {
		Decision string `json:"decision"`
		Reason   string `json:"reason"`
		Request  *struct {
			RequestID string `json:"request_id"`
		} `json:"request"`
	}
	decide := func(call, cmd string) decision {
		t.Helper()
		st, b := s.do("POST", "/v1/turns/t1/decisions", map[string]any{"tool_call_id": call, "tool_name": "exec_command",
			"arguments": map[string]any{"cmd": cmd}})
		if st != http.StatusOK {
			t.Fatalf("decide %s: %d %s", call, st, b)
		}
		var d decision
		if err := json.Unmarshal(b, &d); err != nil {
			t.Fatal(err)
		}
		return d
	}
	ask := decide("c1", "make test")
	if ask.Decision != "ask" || ask.Request == nil {
		t.Fatalf("supervised exec: %+v", ask)
	}
	if st, b := s.do("POST", "/v1/approvals/"+ask.Request.RequestID+"/respond", map[string]string{"resolution": "allow_for_turn"}); st != http.StatusOK {
		t.Fatalf("respond: %d %s", st, b)
	}
	st, b := s.do("GET", "/v1/approvals/"+ask.Request.RequestID+"?wait=5s", nil)
	if st != http.StatusOK || !strings.Contains(string(b), `"allow_for_turn"`) {
		t.Fatalf("long poll after the answer: %d %s", st, b)
	}
	if d := decide("c2", "make test"); d.Decision != "allow" || d.Reason != "cached_approval" {
		t.Fatalf("same scope after allow_for_turn: %+v", d)
	}
	if d := decide("c3", "make other"); d.Decision != "ask" {
		t.Fatalf("another scope after allow_for_turn: %+v", d)
	}

	// Errors: one shape, the right status, nothing changed.
	for _, c := range []struct {
		method, path string
		body         any
		status       int
		code         string
	}{
		{"POST", "/v1/turns/t1/decisions", map[string]any{"tool_name": "exec_command"}, http.StatusBadRequest, ""},
		{"POST", "/v1/turns/nope/decisions", map[string]any{"tool_call_id": "x", "tool_name": "read_file", "arguments": map[string]any{"path": "a"}}, http.StatusNotFound, "not_found"},
		{"POST", "/v1/approvals/" + ask.Request.RequestID + "/respond", map[string]string{"resolution": "deny"}, http.StatusConflict, ""},
	} {
		st, b := s.do(c.method, c.path, c.body)
		var e struct {
			Error struct {
				Code    string `json:"code"`
				Message string `json:"message"`
			} `json:"error"`
		}
		if st != c.status || json.Unmarshal(b, &e) != nil || e.Error.Message == "" || (c.code != "" && e.Error.Code != c.code) {
			t.Errorf("%s %s: %d %s, want %d %s", c.method, c.path, st, b, c.status, c.code)
		}
	}
	// Unauthenticated requests are refused before anything runs.
	req, _ := http.NewRequest("GET", s.url+"/v1/turns/t1", nil)
	resp, err := (&http.Client{Timeout: 5 * time.Second}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("no token: %d", resp.StatusCode)
	}
}
