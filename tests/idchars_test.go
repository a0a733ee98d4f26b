package tests

import (
	"net/http"
	"testing"
)

// TestIDCharacters (the eighty-seventh review): an identifier holding a
// control or format character (NUL, ESC, U+202E), invalid UTF-8 (which
// JSON decoding turns into U+FFFD, making two ids one) or only blanks is a
// 400 naming the field, and appends nothing. Control: the same requests
// with a plain id, and one with letters outside ASCII, are accepted.
func TestIDCharacters(t *testing.T) {
	t.Parallel()
	s := StartServer(t, "")
	root := workspace(t)
	bad := []string{"a\x00b", "\x1b[31mred", "toolu_\u202eevil", "\u200b", "   ", "toolu_\xff\xfe"}
	for _, v := range bad {
		for _, field := range []string{"workspace_id", "thread_id"} {
			body := map[string]any{"turn_id": "idc", "workspace_id": "ws", "thread_id": "th", "workspace_root": root}
			body[field] = v
			status, b := s.Request("POST", "/v1/turns", body)
			if e := wantError(t, status, b, http.StatusBadRequest, "invalid_field"); e.Details["field"] != field {
				t.Fatalf("%s %q: the error names %v", field, v, e.Details["field"])
			}
		}
	}
	if status, _ := s.Request("GET", "/v1/turns/idc", nil); status != http.StatusNotFound {
		t.Fatalf("a refused start created the turn: %d", status)
	}
	if status, b := s.Request("POST", "/v1/turns", map[string]any{"turn_id": "idc", "workspace_id": "wörkspace", "thread_id": "th", "workspace_root": root}); status != http.StatusCreated {
		t.Fatalf("control: a workspace id with a letter outside ASCII: %d %s", status, b)
	}
	before := s.footprint("idc")
	for _, v := range bad {
		for _, field := range []string{"tool_call_id", "item_id"} {
			body := map[string]any{"tool_call_id": "c1", "tool_name": "read_file", "arguments": map[string]any{"path": "a"}}
			body[field] = v
			status, b := s.Request("POST", "/v1/turns/idc/decisions", body)
			if e := wantError(t, status, b, http.StatusBadRequest, "invalid_field"); e.Details["field"] != field {
				t.Fatalf("decision %s %q: the error names %v", field, v, e.Details["field"])
			}
		}
		status, b := s.Request("POST", "/v1/turns/idc/exec", map[string]any{"tool_call_id": v, "argv": []string{"true"}})
		if e := wantError(t, status, b, http.StatusBadRequest, "invalid_field"); e.Details["field"] != "tool_call_id" {
			t.Fatalf("exec tool_call_id %q: the error names %v", v, e.Details["field"])
		}
	}
	if after := s.footprint("idc"); after != before {
		t.Fatalf("refused requests appended: %v → %v", before, after)
	}
	if d := s.decide("idc", "toolu_01ABC", "read_file", map[string]any{"path": "a"}); d.Decision == "" {
		t.Fatalf("control: a plain call id: %+v", d)
	}
}
