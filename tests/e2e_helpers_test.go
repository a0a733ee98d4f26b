package tests

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"turnstile/domain"
	"turnstile/internal/suitelock"
	"turnstile/sandbox"
)

// Helpers shared by the end-to-end tests: typed views of the API's answers,
// a turn starter, a decision helper, the error-shape check, and a
// Server-Sent Events reader.

// turnAnswer is the part of a TurnResponse the tests look at.
type turnAnswer struct {
	Turn struct {
		ID               string `json:"id"`
		WorkspaceID      string `json:"workspace_id"`
		Status           string `json:"status"`
		Version          int64  `json:"version"`
		ParentTurnID     string `json:"parent_turn_id"`
		PendingApprovals int    `json:"pending_approvals"`
		Profile          struct {
			Mode   string `json:"mode"`
			Source string `json:"source"`
		} `json:"permission_profile"`
	} `json:"turn"`
	SecuritySnapshot struct {
		Sandbox struct {
			Mode string `json:"mode"`
			Cwd  string `json:"cwd"`
		} `json:"sandbox"`
	} `json:"security_snapshot"`
}

// approvalRequest is a TurnPermissionApprovalRequest.
type approvalRequest struct {
	RequestID   string `json:"request_id"`
	WorkspaceID string `json:"workspace_id"`
	TurnID      string `json:"turn_id"`
	ToolName    string `json:"tool_name"`
	Action      string `json:"action"`
	ScopeHash   string `json:"scope_hash"`
	Reason      string `json:"reason"`
	Summary     string `json:"summary"`
}

// decisionAnswer is a DecisionResponse (and the decision part of an
// ExecResponse).
type decisionAnswer struct {
	TurnID        string           `json:"turn_id"`
	ToolCallID    string           `json:"tool_call_id"`
	Decision      string           `json:"decision"`
	Reason        string           `json:"reason"`
	Action        string           `json:"action"`
	ScopeHash     string           `json:"scope_hash"`
	Cached        bool             `json:"cached"`
	DecidedBy     string           `json:"decided_by"`
	Refusal       string           `json:"refusal"`
	Replayed      bool             `json:"replayed"`
	Version       int64            `json:"version"`
	Request       *approvalRequest `json:"request"`
	RequestStatus string           `json:"request_status"`
	Resolution    string           `json:"resolution"`
	// Exec only.
	Ran    bool `json:"ran"`
	Result *struct {
		ExitCode int    `json:"exit_code"`
		Stdout   string `json:"stdout"`
		Stderr   string `json:"stderr"`
		TimedOut bool   `json:"timed_out"`
		// Quarantined are the repositories the command left untrusted.
		Quarantined []struct {
			Path    string `json:"path"`
			Reason  string `json:"reason"`
			MovedTo string `json:"moved_to"`
		} `json:"quarantined"`
	} `json:"result"`
	Message string `json:"message"`
}

// approvalView is projections.ApprovalView.
type approvalView struct {
	Request       approvalRequest `json:"request"`
	ToolCallID    string          `json:"tool_call_id"`
	Status        string          `json:"status"`
	Resolution    string          `json:"resolution"`
	OpenedVersion int64           `json:"opened_version"`
	Version       int64           `json:"version"`
}

// storedEvent is one event of GET /v1/turns/{id}/events.
type storedEvent struct {
	Version  int64           `json:"version"`
	Position string          `json:"position"`
	EventID  string          `json:"event_id"`
	Type     string          `json:"type"`
	PrevHash string          `json:"prev_hash"`
	Hash     string          `json:"hash"`
	Data     json.RawMessage `json:"data"`
}

// respondAnswer answers POST /v1/approvals/{id}/respond.
type respondAnswer struct {
	RequestID  string `json:"request_id"`
	Resolution string `json:"resolution"`
	Replayed   bool   `json:"replayed"`
}

// errorBody is the body of every error answer: {"error": apiError}.
type errorBody struct {
	Error apiError `json:"error"`
}

// apiError is the one error shape.
type apiError struct {
	Code    string         `json:"code"`
	Message string         `json:"message"`
	Details map[string]any `json:"details"`
}

// workspace makes a workspace root holding a.txt and src/main.go (the file
// the multi-instance tests' read_file reads: a missing file is refused by the
// sandbox's file check before the policy decides) and returns its path.
func workspace(t testing.TB) string {
	t.Helper()
	dir := t.TempDir()
	// Resolve symlinks so that the paths the server reports match.
	dir, err := filepath.EvalSymlinks(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { clearKilledMarks(dir) }) // before the removal (cleanups run last first)
	if err := os.WriteFile(filepath.Join(dir, "a.txt"), []byte("hello\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(dir, "src"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "src", "main.go"), []byte("package main\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// clearKilledMarks, at the end of a test, drops what a command over root
// killed before its check (a killed server's) left marked for the next
// command over it (sandbox/rootlock.go), the root being removed next: a
// later command over a root enclosing it ("/", /tmp: the sandbox package's
// tests run such commands), finding it gone, checks all of the enclosing
// root from the killed start, as a server must, and set aside what other
// programs had made meanwhile (in CI's race pass, a test binary being run).
func clearKilledMarks(root string) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	s := &domain.TurnExecutionSecuritySnapshot{Sandbox: domain.SandboxPolicy{Filesystem: domain.FilesystemPolicy{Entries: []domain.FilesystemEntry{
		{Kind: domain.PathExplicit, Path: root, ResolvedPath: root, Access: domain.AccessWrite, Provenance: domain.ProvenanceRuntime}}}}}
	if l, err := sandbox.LockWritableRoots(ctx, s); err == nil && l != nil {
		l.Checked()
		l.Release()
	}
}

// startTurn starts a turn in mode ("" for the default) over root and
// checks that it was created.
func (s *Server) startTurn(id, workspaceID, mode, root string) turnAnswer {
	s.t.Helper()
	body := map[string]any{"turn_id": id, "workspace_id": workspaceID, "thread_id": "thread-" + id, "workspace_root": root}
	if mode != "" {
		body["permission_profile"] = map[string]any{"mode": mode}
	}
	var out turnAnswer
	s.JSON("POST", "/v1/turns", body, http.StatusCreated, &out)
	if out.Turn.ID != id || out.Turn.Status != "in_progress" {
		s.t.Fatalf("started turn %+v, want %s in_progress", out.Turn, id)
	}
	return out
}

// decide posts one decision and expects 200.
func (s *Server) decide(turnID, callID, tool string, args any) decisionAnswer {
	s.t.Helper()
	body := map[string]any{"tool_call_id": callID, "tool_name": tool}
	if args != nil {
		body["arguments"] = args
	}
	var out decisionAnswer
	s.JSON("POST", "/v1/turns/"+turnID+"/decisions", body, http.StatusOK, &out)
	return out
}

// respond resolves an approval request and expects 200.
func (s *Server) respond(requestID, resolution string) (replayed bool) {
	s.t.Helper()
	var out respondAnswer
	s.JSON("POST", "/v1/approvals/"+requestID+"/respond", map[string]string{"resolution": resolution}, http.StatusOK, &out)
	if out.RequestID != requestID || out.Resolution != resolution {
		s.t.Fatalf("respond %s %s: answered %+v", requestID, resolution, out)
	}
	return out.Replayed
}

// turn reads a turn.
func (s *Server) turn(id string) turnAnswer {
	s.t.Helper()
	var out turnAnswer
	s.JSON("GET", "/v1/turns/"+id, nil, http.StatusOK, &out)
	return out
}

// events reads a turn's raw history and its exact bytes.
func (s *Server) events(id string) ([]storedEvent, []byte) {
	s.t.Helper()
	status, raw := s.Request("GET", "/v1/turns/"+id+"/events", nil)
	if status != http.StatusOK {
		s.t.Fatalf("events of %s: %d %s", id, status, raw)
	}
	var out struct {
		Events []storedEvent `json:"events"`
	}
	if err := json.Unmarshal(raw, &out); err != nil {
		s.t.Fatal(err)
	}
	return out.Events, raw
}

// footprint is what a turn looks like: the version the read model shows
// and the number of its events in the store. It waits for the read model
// to catch up with the store (a decision that opens no request answers
// before the read model has its event: see TestReadYourWrites).
func (s *Server) footprint(id string) [2]int64 {
	s.t.Helper()
	var fp [2]int64
	pollUntil(s.t, "the read model of "+id+" to catch up", func() bool {
		evs, _ := s.events(id)
		fp = [2]int64{s.turn(id).Turn.Version, int64(len(evs))}
		return fp[0] == fp[1]-1
	})
	return fp
}

// wantError checks the one error shape and the status and code, and
// returns the error.
func wantError(t testing.TB, status int, body []byte, wantStatus int, wantCode string) apiError {
	t.Helper()
	if status != wantStatus {
		t.Fatalf("status %d, want %d: %s", status, wantStatus, body)
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(body, &top); err != nil {
		t.Fatalf("error body is not a JSON object: %s", body)
	}
	if len(top) != 1 || top["error"] == nil {
		t.Fatalf("error body must be {\"error\":{…}} only: %s", body)
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(top["error"], &fields); err != nil {
		t.Fatalf("error is not an object: %s", body)
	}
	for k := range fields {
		if k != "code" && k != "message" && k != "details" {
			t.Fatalf("unexpected error field %q: %s", k, body)
		}
	}
	if d, ok := fields["details"]; ok && (len(d) == 0 || d[0] != '{') {
		t.Fatalf("details must be an object: %s", body)
	}
	var e apiError
	if err := json.Unmarshal(top["error"], &e); err != nil {
		t.Fatal(err)
	}
	if e.Code != wantCode || e.Message == "" {
		t.Fatalf("error code %q (message %q), want code %q: %s", e.Code, e.Message, wantCode, body)
	}
	return e
}

// sseEvent is one Server-Sent Event.
type sseEvent struct {
	ID    string
	Event string
	Data  string
	// Method and Params are the JSON-RPC notification in Data.
	Method string
	Params map[string]any
}

// sseStream reads GET /v1/events.
type sseStream struct {
	t      testing.TB
	cancel context.CancelFunc
	ch     chan sseEvent
	done   chan struct{}
}

// subscribe opens the event stream with query q (may be empty) and an
// optional Last-Event-ID; it returns once the server has sent its opening
// comment, so that every event appended afterwards is delivered.
func (s *Server) subscribe(q, lastEventID string) *sseStream {
	s.t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	url := s.URL + "/v1/events"
	if q != "" {
		url += "?" + q
	}
	req, _ := http.NewRequestWithContext(ctx, "GET", url, nil)
	req.Header.Set("Authorization", "Bearer "+s.Token)
	if lastEventID != "" {
		req.Header.Set("Last-Event-ID", lastEventID)
	}
	resp, err := (&http.Client{}).Do(req)
	if err != nil {
		cancel()
		s.t.Fatalf("subscribe: %v", err)
	}
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		resp.Body.Close()
		cancel()
		s.t.Fatalf("subscribe: status %d, content type %q", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	st := &sseStream{t: s.t, cancel: cancel, ch: make(chan sseEvent, 1024), done: make(chan struct{})}
	opened := make(chan struct{})
	go func() {
		defer close(st.done)
		defer close(st.ch)
		defer resp.Body.Close()
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		var cur sseEvent
		first := true
		for sc.Scan() {
			line := sc.Text()
			switch {
			case strings.HasPrefix(line, ":"):
				if first {
					first = false
					close(opened)
				}
			case strings.HasPrefix(line, "id: "):
				cur.ID = strings.TrimPrefix(line, "id: ")
			case strings.HasPrefix(line, "event: "):
				cur.Event = strings.TrimPrefix(line, "event: ")
			case strings.HasPrefix(line, "data: "):
				cur.Data = strings.TrimPrefix(line, "data: ")
			case line == "" && cur.Data != "":
				var msg struct {
					Method string         `json:"method"`
					Params map[string]any `json:"params"`
				}
				_ = json.Unmarshal([]byte(cur.Data), &msg)
				cur.Method, cur.Params = msg.Method, msg.Params
				select {
				case st.ch <- cur:
				case <-ctx.Done():
					return
				}
				cur = sseEvent{}
			}
		}
	}()
	select {
	case <-opened:
	case <-st.done:
		s.t.Fatal("event stream ended before its opening comment")
	case <-time.After(30 * time.Second):
		s.t.Fatal("event stream sent nothing")
	}
	s.t.Cleanup(st.Close)
	return st
}

// Next returns the next event (a hang guard fails the test).
func (st *sseStream) Next() sseEvent {
	st.t.Helper()
	select {
	case e, ok := <-st.ch:
		if !ok {
			st.t.Fatal("event stream ended")
		}
		return e
	case <-time.After(30 * time.Second):
		st.t.Fatal("no event within 30s")
	}
	return sseEvent{}
}

// NextOf skips events until one of method arrives.
func (st *sseStream) NextOf(method string) sseEvent {
	st.t.Helper()
	for {
		if e := st.Next(); e.Event == method {
			return e
		}
	}
}

// Close disconnects.
func (st *sseStream) Close() {
	st.cancel()
	<-st.done
}

// pollUntil calls f until it reports true (a 30s hang guard).
func pollUntil(t testing.TB, what string, f func() bool) {
	t.Helper()
	waitUntil(t, what, func() (bool, string) { return f(), "" })
}

// waitUntil polls cond until it holds; last describes what was seen, for
// the failure message. The deadline (30s) is a hang guard for an eventually
// consistent read model, not a timing assertion.
func waitUntil(t testing.TB, what string, cond func() (ok bool, last string)) {
	t.Helper()
	const guard = 30 * time.Second
	deadline := time.Now().Add(guard)
	for {
		ok, last := cond()
		if ok {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: not reached within %v; last seen: %s", what, guard, last)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// str renders v for messages.
func str(v any) string { return fmt.Sprintf("%v", v) }

// nofileBin is a program that runs the turnstile binary under a descriptor
// limit of n (soft and hard), for a server whose table an attack fills.
func nofileBin(t testing.TB, n int) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "turnstile-nofile")
	if err := os.WriteFile(p, []byte(fmt.Sprintf("#!/bin/sh\nulimit -n %d || exit 1\nexec %s \"$@\"\n", n, bin)), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

// slashRootAlone keeps the test's commands over "/" apart from the sandbox
// package's tests (internal/suitelock): their check after the command
// judges every repository changed anywhere meanwhile as the command's.
func slashRootAlone(t *testing.T) {
	t.Helper()
	release, err := suitelock.Exclusive()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(release)
}
