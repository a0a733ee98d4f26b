package api_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"testing"
	"time"
)

// timedPost POSTs body to path with token as the bearer credential and
// returns the status, the answer and how long it took (the redaction-cost
// tests of reviews 183, 185 and 187).
func timedPost(t *testing.T, s *inProcess, token string) func(path string, body any) (int, []byte, time.Duration) {
	return func(path string, body any) (int, []byte, time.Duration) {
		t.Helper()
		b, _ := json.Marshal(body)
		req, _ := http.NewRequest("POST", s.url+path, bytes.NewReader(b))
		req.Header.Set("Authorization", "Bearer "+token)
		req.Header.Set("Content-Type", "application/json")
		start := time.Now()
		resp, err := (&http.Client{Timeout: 10 * time.Minute}).Do(req)
		if err != nil {
			t.Fatalf("POST %s: %v", path, err)
		}
		defer resp.Body.Close()
		out, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, out, time.Since(start)
	}
}

// rpcStartWithPrompt is the JSON-RPC turn/start of a supervised turn id in
// workspace ws rooted at root, whose prompt is text.
func rpcStartWithPrompt(id, ws, root, text string) map[string]any {
	return map[string]any{"jsonrpc": "2.0", "id": 1, "method": "turn/start", "params": map[string]any{
		"turn_id": id, "workspace_id": ws, "thread_id": "th", "workspace_root": root,
		"permission_profile": map[string]any{"mode": "supervised"},
		"input":              []map[string]any{{"type": "text", "text": text, "textElements": []any{}}},
	}}
}
