package tests

// Helpers of the scale-out tests (multi_*_test.go): one esdbtest EventStoreDB
// server hosted by the test process, turnstile processes started with
// --store <its connection string>, and small HTTP helpers that are safe to
// call from any goroutine. Every name here starts with "mi" so that it
// cannot collide with the other tests of the package.

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"turnstile/internal/esdbtest"
)

const (
	// miStoreTimeout is the --store-timeout of the instances: the deadline
	// of every call to the EventStoreDB server.
	miStoreTimeout = "2s"
	// miHangGuard bounds one HTTP call: past it the call is a hang, not a
	// slow answer (the store timeout is 2s). It is never a performance
	// assertion.
	miHangGuard = 15 * time.Second
	// miEventually bounds polls of eventually consistent read models.
	miEventually = 20 * time.Second
)

// miHTTP is the client of the helpers: every call ends within miHangGuard.
var miHTTP = &http.Client{
	Timeout:   miHangGuard,
	Transport: &http.Transport{MaxIdleConns: 128, MaxIdleConnsPerHost: 64, IdleConnTimeout: time.Minute},
}

// miToken returns a fresh bearer token.
func miToken(t *testing.T) string {
	t.Helper()
	b := make([]byte, 24)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(b)
}

// miDataDir returns a fresh data directory holding token, so that
// instances started on different directories share one token (what the
// operator of several instances does with --token-file or TURNSTILE_TOKEN).
func miDataDir(t *testing.T, token string) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "token"), []byte(token+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return dir
}

// miStartESDB starts `turnstile serve --store <conn> --store-timeout 2s`
// with its own data directory and the shared token.
func miStartESDB(t *testing.T, store *esdbtest.Server, token string, extra ...string) *Server {
	t.Helper()
	return StartServer(t, miDataDir(t, token), append([]string{"--store", store.ConnString(), "--store-unauthenticated", "--store-timeout", miStoreTimeout}, extra...)...)
}

// miPair is two turnstile instances sharing one EventStoreDB server.
type miPair struct {
	Store *esdbtest.Server
	A, B  *Server
}

// miStartPair starts an esdbtest server on loopback and two instances on it.
// Cleanups run in reverse: the instances are killed before the server stops.
func miStartPair(t *testing.T, extra ...string) *miPair {
	t.Helper()
	store := esdbtest.Start(t)
	token := miToken(t)
	p := &miPair{Store: store, A: miStartESDB(t, store, token, extra...), B: miStartESDB(t, store, token, extra...)}
	if p.A.Token != p.B.Token {
		t.Fatalf("the instances do not share the token (TURNSTILE_TOKEN set in the environment?)")
	}
	t.Logf("store %s; A %s; B %s", store.ConnString(), p.A.URL, p.B.URL)
	return p
}

// miDo sends one request with the instance's token. It never calls t, so
// any goroutine may use it; err is a transport error (or the hang guard).
func miDo(s *Server, method, path string, body any) (int, []byte, error) {
	ex, err := s.send(miHTTP, method, path, body)
	if err != nil {
		return 0, nil, err
	}
	s.noteSpec(ex, method, path)
	return ex.status, ex.data, nil
}

// miCall sends one request from the test goroutine and checks its status.
func miCall(t *testing.T, s *Server, method, path string, body any, want int, out any) []byte {
	t.Helper()
	status, data, err := miDo(s, method, path, body)
	if err != nil {
		t.Fatalf("%s %s %s: %v\n--- instance output ---\n%s", s.URL, method, path, err, s.Output())
	}
	if status != want {
		t.Fatalf("%s %s %s: status %d, want %d: %s", s.URL, method, path, status, want, data)
	}
	if out != nil {
		if err := json.Unmarshal(data, out); err != nil {
			t.Fatalf("%s %s: decoding %s: %v", method, path, data, err)
		}
	}
	return data
}

// The wire shapes (turnAnswer, decisionAnswer, approvalView, storedEvent,
// errorBody) are the end-to-end tests' own, in e2e_helpers_test.go.

// miStartTurn starts a supervised turn (web_fetch denied), as the bench
// does: read_file is allowed, exec_command asks, web_fetch is denied.
func miStartTurn(t *testing.T, s *Server, id string) turnAnswer {
	t.Helper()
	var out turnAnswer
	miCall(t, s, "POST", "/v1/turns", miStartBody(id, workspace(t)), http.StatusCreated, &out)
	return out
}

func miStartBody(id, root string) map[string]any {
	return map[string]any{
		"turn_id": id, "workspace_id": "w-multi", "thread_id": "th-" + id, "workspace_root": root,
		"permission_profile": map[string]any{"mode": "supervised", "denied_tools": []string{"web_fetch"}},
	}
}

// Invocations of the supervised profile.
var (
	miReadFile = map[string]any{"tool_name": "read_file", "arguments": map[string]any{"path": "src/main.go"}}
	miWebFetch = map[string]any{"tool_name": "web_fetch", "arguments": map[string]any{"url": "https://example.com/"}}
)

func miExec(target string) map[string]any {
	return map[string]any{"tool_name": "exec_command", "arguments": map[string]any{"cmd": []string{"make", target}}}
}

// miDecisionBody is a decision request: inv with a tool call id.
func miDecisionBody(callID string, inv map[string]any) map[string]any {
	b := map[string]any{"tool_call_id": callID}
	for k, v := range inv {
		b[k] = v
	}
	return b
}

func miDecide(t *testing.T, s *Server, turnID, callID string, inv map[string]any) decisionAnswer {
	t.Helper()
	var d decisionAnswer
	miCall(t, s, "POST", "/v1/turns/"+turnID+"/decisions", miDecisionBody(callID, inv), http.StatusOK, &d)
	return d
}

func miEvents(t *testing.T, s *Server, turnID string) []storedEvent {
	t.Helper()
	var out struct {
		Events []storedEvent `json:"events"`
	}
	miCall(t, s, "GET", "/v1/turns/"+turnID+"/events", nil, http.StatusOK, &out)
	return out.Events
}

func miCountType(evs []storedEvent, typ string) int {
	n := 0
	for _, e := range evs {
		if e.Type == typ {
			n++
		}
	}
	return n
}

// miTypes lists the event types in order, for failure messages.
func miTypes(evs []storedEvent) string {
	var b strings.Builder
	for _, e := range evs {
		fmt.Fprintf(&b, "%d:%s ", e.Version, e.Type)
	}
	return b.String()
}

// miPending lists the pending approvals of a turn through s.
func miPending(s *Server, turnID string) ([]approvalView, error) {
	status, data, err := miDo(s, "GET", "/v1/approvals?status=pending&turn_id="+turnID, nil)
	if err != nil {
		return nil, err
	}
	if status != http.StatusOK {
		return nil, fmt.Errorf("status %d: %s", status, data)
	}
	var out struct {
		Approvals []approvalView `json:"approvals"`
	}
	err = json.Unmarshal(data, &out)
	return out.Approvals, err
}

// miWaitPending waits until s lists requestID as pending.
func miWaitPending(t *testing.T, s *Server, turnID, requestID string) {
	t.Helper()
	waitUntil(t, s.URL+" lists "+requestID+" as pending", func() (bool, string) {
		list, err := miPending(s, turnID)
		if err != nil {
			return false, err.Error()
		}
		for _, a := range list {
			if a.Request.RequestID == requestID && a.Status == "pending" {
				return true, ""
			}
		}
		return false, fmt.Sprintf("%+v", list)
	})
}

// miWaitTurnVersion waits until s's read model shows the turn at version.
func miWaitTurnVersion(t *testing.T, s *Server, turnID string, version int64) turnAnswer {
	t.Helper()
	var got turnAnswer
	waitUntil(t, fmt.Sprintf("%s shows turn %s at version %d", s.URL, turnID, version), func() (bool, string) {
		status, data, err := miDo(s, "GET", "/v1/turns/"+turnID, nil)
		if err != nil || status != http.StatusOK {
			return false, fmt.Sprintf("%d %s %v", status, data, err)
		}
		got = turnAnswer{}
		if err := json.Unmarshal(data, &got); err != nil {
			return false, err.Error()
		}
		return got.Turn.Version == version, string(data)
	})
	return got
}

// miSSE is an instance's event stream (sseStream) with the events read so
// far, so that several waits can look at one stream in any order.
type miSSE struct {
	name string
	st   *sseStream
	seen []sseEvent
}

// miOpenSSE opens GET /v1/events on s and returns once the server has
// subscribed (its opening comment arrived). The stream ends with the test.
func miOpenSSE(t *testing.T, s *Server, name string) *miSSE {
	t.Helper()
	return &miSSE{name: name, st: s.subscribe("", "")}
}

// waitFor reads the stream until an event satisfies match.
func (s *miSSE) waitFor(t *testing.T, what string, match func(e sseEvent) bool) sseEvent {
	t.Helper()
	for _, e := range s.seen {
		if match(e) {
			return e
		}
	}
	deadline := time.After(miEventually)
	for {
		select {
		case e, ok := <-s.st.ch:
			if !ok {
				t.Fatalf("%s: the stream ended before %s; seen %+v", s.name, what, s.seen)
			}
			s.seen = append(s.seen, e)
			if match(e) {
				return e
			}
		case <-deadline:
			t.Fatalf("%s: no %s within %v; seen %+v", s.name, what, miEventually, s.seen)
		}
	}
}

// miChainBreak describes the first place where evs is not a whole, chained
// turn history (versions 0…n-1, each prev_hash the previous hash), or "".
func miChainBreak(evs []storedEvent) string {
	for i, e := range evs {
		if e.Version != int64(i) {
			return fmt.Sprintf("event %d has version %d (history %s)", i, e.Version, miTypes(evs))
		}
		if i > 0 && e.PrevHash != evs[i-1].Hash {
			return fmt.Sprintf("event %d (%s) has prev_hash %.12s…, but event %d (%s) has hash %.12s…",
				i, e.Type, e.PrevHash, i-1, evs[i-1].Type, evs[i-1].Hash)
		}
	}
	return ""
}

// miFailIf fails the test when the symptom of a product bug shows; the
// message says what the bug was (these tests found them).
func miFailIf(t *testing.T, symptom bool, format string, args ...any) {
	t.Helper()
	if symptom {
		t.Fatalf("regression: "+format, args...)
	}
}
