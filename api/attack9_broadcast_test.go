package api_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"runtime"
	"strings"
	"testing"

	"turnstile/api"
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
