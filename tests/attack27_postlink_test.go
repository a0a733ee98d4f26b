package tests

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestAttack27PostToolUseThroughALinkUnrecorded: a Claude Code file tool's
// PreToolUse is decided on the resolved path (symlinks followed: README,
// "Paths are resolved as the kernel will resolve them"), but its
// PostToolUse is compared with it on a lexical classification
// (ccPostToolUse and decideToolRun classify with no resolver). For a
// file_path through a symlink inside the workspace the two scope hashes
// differ, so the report of a call that ran is refused, 409
// tool_call_reused, and nothing is recorded: the agent keeps what its
// tools did out of the audit by writing through a link.
//
// With "ask": "ask" and a runtime credential, the report is also what
// withdraws the request that Claude Code's own prompt answered: the
// request stays pending in every approver's list (and console) for a
// call that has already run, and an approver who answers it
// allow_for_turn grants writes to that file for the rest of the turn.
//
// Control: the same Write by the file's own path is recorded, and its
// request withdrawn (cancelled).
func TestAttack27PostToolUseThroughALinkUnrecorded(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	ws, _ = filepath.EvalSymlinks(ws)
	s := ccServer(t, ws, "supervised", nil)
	os.MkdirAll(filepath.Join(ws, "real"), 0o755)
	if err := os.Symlink(filepath.Join(ws, "real"), filepath.Join(ws, "lnk")); err != nil {
		t.Fatal(err)
	}
	rt := roAs(s, roCreate(t, s, "claude", "runtime", "ws-cc"))
	session := "s27-post"
	if out := string(rt.hookHTTP(ccPayload(t, "user_prompt_submit", session, ws))); strings.Contains(out, "deny") {
		t.Fatalf("prompt: %s", out)
	}
	turnID := ccTurn(session, 1)

	write := func(id, path string) (pre string, postStatus int, postBody []byte) {
		in := map[string]any{"file_path": path, "content": "x\n"}
		p := ccEdit(t, ccPayload(t, "pre_write", session, ws), map[string]any{"tool_input": in, "tool_use_id": id})
		pre = rt.hookHTTP(p)
		post := ccEdit(t, ccPayload(t, "pre_write", session, ws), map[string]any{"hook_event_name": "PostToolUse", "tool_input": in,
			"tool_use_id": id, "tool_response": map[string]any{"type": "create", "filePath": path}})
		postStatus, postBody = rt.Request("POST", "/v1/hooks/claude-code", post)
		return
	}
	pending := func() int {
		var out struct {
			Approvals []struct {
				Request struct {
					ToolCallID string `json:"tool_call_id"`
				} `json:"request"`
			} `json:"approvals"`
		}
		s.JSON("GET", "/v1/approvals?status=pending&turn_id="+turnID, nil, http.StatusOK, &out)
		return len(out.Approvals)
	}

	// Control: by the file's own path, the person's answer in Claude
	// Code's prompt is followed by the report, which is recorded and
	// withdraws the request.
	pre, st, body := write("toolu_27real", filepath.Join(ws, "real", "a.txt"))
	if !strings.Contains(pre, `"ask"`) {
		t.Fatalf("control: supervised Write: %s, want ask (Claude Code's prompt)", pre)
	}
	if st != http.StatusOK {
		t.Fatalf("control: PostToolUse of the Write by its own path: %d %s", st, body)
	}
	if n := pending(); n != 0 {
		t.Fatalf("control: %d requests still pending after the report", n)
	}

	// The attack: the same through lnk.
	pre, st, body = write("toolu_27link", filepath.Join(ws, "lnk", "b.txt"))
	if !strings.Contains(pre, `"ask"`) {
		t.Fatalf("supervised Write through lnk: %s, want ask", pre)
	}
	if st != http.StatusOK {
		t.Errorf("PostToolUse of a Write through a symlink inside the workspace: %d %s; want it recorded as the call that ran", st, body)
	}
	if n := pending(); n != 0 {
		t.Errorf("after the report of the Write through lnk, %d request(s) still pending for an approver, for a call Claude Code has run", n)
	}
}
