package api_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"runtime"
	"strings"
	"testing"

	"turnstile/api"
	"turnstile/domain/eventstore"
)

// TestAttack9BroadcastHoldsLargeFrames: the event broadcast kept the last
// serve --sse-buffer frames (8192 by default) for its readers, whatever
// their size, for as long as the server ran. A turn/started notification
// carries the turn's whole prompt: a runtime credential sending turn/start
// with a prompt of nearly 1 MiB (the body limit; a Claude Code
// UserPromptSubmit takes 16 MiB) made the server hold every one of them
// while an approver's console was open, 8 GiB (128 GiB through the hook)
// at the default. Here, with a buffer of 1024 frames, 40 prompts (36 MiB)
// must not all stay in memory. The control: the stream still carries each
// of them, whole, to the reader that follows it.
func TestAttack9BroadcastHoldsLargeFrames(t *testing.T) {
	s := startSSE(t, api.Config{SSEBuffer: 1024}, 0)
	c := s.openSSE("", "", 0) // an approver's console: the broadcast runs
	agent := s.credential("agent", "runtime")
	prompt := strings.Repeat("p", 900<<10)
	heap := func() uint64 {
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		return m.HeapAlloc
	}
	// The control, read as the turns start (a console follows the stream
	// live): the reader gets every turn/started, with its prompt.
	const turns = 40
	read := make(chan error, 1)
	go func() {
		for got := 0; got < turns; {
			f, err := c.next()
			if err != nil {
				read <- fmt.Errorf("the stream ended after %d turn/started: %v", got, err)
				return
			}
			if f.event != "turn/started" {
				continue
			}
			if !strings.Contains(f.data, prompt) {
				read <- fmt.Errorf("turn/started %d does not carry its prompt", got)
				return
			}
			got++
		}
		read <- nil
	}()
	before := heap()
	for i := range turns {
		body := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"turn/start","params":{"turn_id":"big-%d","workspace_id":"ws","workspace_root":%q,"input":[{"type":"text","text":%q}]}}`, i, i, s.root, prompt)
		req, _ := http.NewRequest("POST", s.url+"/rpc", strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+agent)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		var out struct {
			Error json.RawMessage `json:"error"`
		}
		err = json.NewDecoder(resp.Body).Decode(&out)
		resp.Body.Close()
		if err != nil || resp.StatusCode != http.StatusOK || out.Error != nil {
			t.Fatalf("turn/start %d: %d %v %s", i, resp.StatusCode, err, out.Error)
		}
	}
	if err := <-read; err != nil {
		t.Fatal(err)
	}
	grown := int64(heap()) - int64(before)
	t.Logf("heap grew by %d MiB after %d turns of %d KiB prompts", grown>>20, turns, len(prompt)>>10)
	if grown > 20<<20 {
		t.Fatalf("the server holds %d MiB after %d turns of %d KiB prompts: the broadcast keeps every frame, however large", grown>>20, turns, len(prompt)>>10)
	}
}

// TestAttack9HookStoresLargePrompt: the Claude Code hook takes bodies of up
// to 16 MiB, for the tool_response of a PostToolUse (which is only hashed),
// and took them for every event: a runtime credential posting
// UserPromptSubmit with a 2 MiB prompt had it stored whole in the turn's
// first event, which every reader of that turn then loads (an event stream
// resuming reads 512 events a page: 8 GiB of 16 MiB prompts). An event
// other than PostToolUse is bounded like every other body (1 MiB), and
// refused whole above it. The controls: a prompt under the limit starts the
// session's turn, and a PostToolUse with a 2 MiB tool_response is recorded.
func TestAttack9HookStoresLargePrompt(t *testing.T) {
	ws := t.TempDir()
	hs, st, _ := startHookServer(t, ws)
	post := func(body map[string]any) (int, string) {
		t.Helper()
		b, _ := json.Marshal(body)
		req, _ := http.NewRequest("POST", hs.URL+"/v1/hooks/claude-code", bytes.NewReader(b))
		req.Header.Set("Authorization", "Bearer hook-test-token-0123456789")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		out, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(out)
	}
	stored := func() int {
		t.Helper()
		recs, err := st.ReadAll(context.Background(), eventstore.Start, 0)
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, r := range recs {
			n += len(r.Data)
		}
		return n
	}
	big := strings.Repeat("p", 2<<20)
	if status, body := post(map[string]any{"session_id": "s", "cwd": ws, "hook_event_name": "UserPromptSubmit", "prompt": big}); status < 400 {
		t.Errorf("a 2 MiB prompt: %d %.200s", status, body)
	}
	if n := stored(); n > 1<<20 {
		t.Fatalf("a 2 MiB prompt was stored (%d bytes of events)", n)
	}
	if status, body := post(map[string]any{"session_id": "s", "cwd": ws, "hook_event_name": "UserPromptSubmit", "prompt": "fix the tests"}); status != http.StatusOK {
		t.Fatalf("a prompt: %d %s", status, body)
	}
	if status, body := post(map[string]any{"session_id": "s", "cwd": ws, "hook_event_name": "PreToolUse", "tool_name": "Read",
		"tool_input": map[string]any{"file_path": ws + "/f"}, "tool_use_id": "toolu_1"}); status != http.StatusOK || !strings.Contains(body, `"allow"`) {
		t.Fatalf("PreToolUse: %d %s", status, body)
	}
	if status, body := post(map[string]any{"session_id": "s", "cwd": ws, "hook_event_name": "PostToolUse", "tool_name": "Read",
		"tool_input": map[string]any{"file_path": ws + "/f"}, "tool_use_id": "toolu_1", "tool_response": map[string]any{"content": big}}); status != http.StatusOK {
		t.Fatalf("a PostToolUse of a 2 MiB result: %d %.200s", status, body)
	}
}
