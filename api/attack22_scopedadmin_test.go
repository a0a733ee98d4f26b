package api_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"testing"
)

// TestAttack22ScopedAdminMintsUnscopedCredential (twenty-second attack
// review): `token create --role admin --workspace ws1` makes an admin the
// README says is limited to ws1 ("outside them every request is a 403 that
// appends nothing"). POST /v1/credentials checks its role only, not that
// the credential it makes stays within the creator's workspaces: the ws1
// admin creates an admin of every workspace (or an approver of ws2), whose
// token then reads and answers ws2's approval requests. It can also revoke
// another workspace's credentials (and list every credential). Control: the ws1 admin
// answers ws1's request, and is refused ws2's directly.
func TestAttack22ScopedAdminMintsUnscopedCredential(t *testing.T) {
	s := startInProcess(t)
	root := t.TempDir()
	as := func(token, method, path string, body any) (int, []byte) {
		t.Helper()
		var rd io.Reader
		if body != nil {
			b, _ := json.Marshal(body)
			rd = bytes.NewReader(b)
		}
		req, _ := http.NewRequest(method, s.url+path, rd)
		req.Header.Set("Authorization", "Bearer "+token)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		out, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, out
	}
	ask := func(turnID, ws string) string {
		t.Helper()
		if st, b := s.do("POST", "/v1/turns", map[string]any{"turn_id": turnID, "workspace_id": ws, "thread_id": "th",
			"permission_profile": map[string]string{"mode": "supervised"}, "workspace_root": root}); st != http.StatusCreated {
			t.Fatalf("start %s: %d %s", turnID, st, b)
		}
		st, b := s.do("POST", "/v1/turns/"+turnID+"/decisions", map[string]any{"tool_call_id": "c1", "tool_name": "exec_command",
			"arguments": map[string]any{"cmd": "make deploy"}})
		var d struct {
			Request struct {
				RequestID string `json:"request_id"`
			} `json:"request"`
		}
		if st != http.StatusOK || json.Unmarshal(b, &d) != nil || d.Request.RequestID == "" {
			t.Fatalf("decide in %s: %d %s", turnID, st, b)
		}
		return d.Request.RequestID
	}
	r1, r2 := ask("sa-1", "ws1"), ask("sa-2", "ws2")
	s.credential("ws2-runtime", "runtime", "ws2")
	admin1 := s.credential("ws1-admin", "admin", "ws1")

	// Control: the ws1 admin answers ws1's request and is refused ws2's.
	if st, b := as(admin1, "POST", "/v1/approvals/"+r1+"/respond", map[string]string{"resolution": "deny"}); st != http.StatusOK {
		t.Fatalf("control: the ws1 admin answering ws1's request: %d %s", st, b)
	}
	if st, b := as(admin1, "POST", "/v1/approvals/"+r2+"/respond", map[string]string{"resolution": "allow_once"}); st != http.StatusNotFound {
		t.Fatalf("control: the ws1 admin answering ws2's request: %d %s, want 404 (as a missing one)", st, b)
	}

	// The ws1 admin mints a credential outside ws1.
	for _, c := range []struct {
		name string
		body map[string]any
	}{
		{"every workspace", map[string]any{"name": "minted-all", "role": "admin"}},
		{"ws2", map[string]any{"name": "minted-ws2", "role": "approver", "workspaces": []string{"ws2"}}},
	} {
		st, b := as(admin1, "POST", "/v1/credentials", c.body)
		if st != http.StatusCreated {
			continue // refused: holds
		}
		var nc struct {
			Token string `json:"token"`
		}
		_ = json.Unmarshal(b, &nc)
		t.Errorf("the ws1 admin created a credential of %s: %s", c.name, b)
		if st, b := as(nc.Token, "GET", "/v1/approvals/"+r2, nil); st == http.StatusOK {
			t.Errorf("  …which reads ws2's request: %.200s…", b)
		}
		if st, b := as(nc.Token, "POST", "/v1/approvals/"+r2+"/respond", map[string]string{"resolution": "allow_once"}); st == http.StatusOK {
			t.Errorf("  …which answers ws2's request allow_once: %s", b)
		}
	}
	// …and revokes a credential of ws2.
	if st, b := as(admin1, "POST", "/v1/credentials/ws2-runtime/revoke", nil); st == http.StatusOK {
		t.Errorf("the ws1 admin revoked ws2's runtime credential: %s", b)
	}
	// …and lists them: it sees its own workspace's only.
	st, b := as(admin1, "GET", "/v1/credentials", nil)
	var list struct {
		Credentials []struct {
			Name       string
			Workspaces []string
		}
	}
	if st != http.StatusOK || json.Unmarshal(b, &list) != nil {
		t.Fatalf("the ws1 admin's list: %d %s", st, b)
	}
	for _, c := range list.Credentials {
		if len(c.Workspaces) != 1 || c.Workspaces[0] != "ws1" {
			t.Errorf("the ws1 admin's list shows %s of %v", c.Name, c.Workspaces)
		}
	}
	// Control: within ws1 it creates, lists and revokes.
	if st, b := as(admin1, "POST", "/v1/credentials", map[string]any{"name": "ws1-runner", "role": "runtime", "workspaces": []string{"ws1"}}); st != http.StatusCreated {
		t.Fatalf("control: the ws1 admin creating a ws1 runtime: %d %s", st, b)
	}
	if st, b := as(admin1, "GET", "/v1/credentials", nil); st != http.StatusOK || !bytes.Contains(b, []byte(`"ws1-runner"`)) {
		t.Fatalf("control: the ws1 admin's list lacks its new credential: %d %s", st, b)
	}
	if st, b := as(admin1, "POST", "/v1/credentials/ws1-runner/revoke", nil); st != http.StatusOK {
		t.Fatalf("control: the ws1 admin revoking its ws1 runtime: %d %s", st, b)
	}
}
