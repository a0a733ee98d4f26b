package tests

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"
)

// The twenty-fifth attack review: what a credential can read or learn that
// it should not.

// a25Guesses is a small dictionary of the passwords people choose: an
// offline attacker's list holds millions, at billions of SHA-256 a second.
var a25Guesses = []string{"123456", "password", "qwerty", "letmein", "admin", "welcome", "monkey",
	"dragon", "iloveyou", "trustno1", "hunter2", "summer2024", "winter2023", "changeme", "secret",
	"P@ssw0rd", "Passw0rd!", "football", "baseball", "master", "shadow", "sunshine", "princess"}

// a25Hash is the lowercase hex SHA-256 of s.
func a25Hash(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

// a25ScopeHash is the scope hash of a scope given as its entries: the
// SHA-256 of its canonical JSON (keys sorted, no white space, no HTML
// escaping), REFERENCE §3, as any reader can compute it.
func a25ScopeHash(scope map[string]string) string {
	keys := make([]string, 0, len(scope))
	for k := range scope {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var b strings.Builder
	b.WriteByte('{')
	for i, k := range keys {
		if i > 0 {
			b.WriteByte(',')
		}
		for j, s := range []string{k, scope[k]} {
			var enc strings.Builder
			e := json.NewEncoder(&enc)
			e.SetEscapeHTML(false)
			_ = e.Encode(s)
			b.WriteString(strings.TrimSuffix(enc.String(), "\n"))
			if j == 0 {
				b.WriteByte(':')
			}
		}
	}
	b.WriteByte('}')
	return a25Hash(b.String())
}

// a25AuditScope is the redacted scope of the audit row of a tool call
// (what an auditor of the workspace reads: the form of the scope, every
// secret replaced by [redacted]).
func a25AuditScope(t *testing.T, reader *Server, turnID, callID string) (scope map[string]string, scopeHash string) {
	t.Helper()
	var out struct {
		Rows []struct {
			Kind       string            `json:"kind"`
			ToolCallID string            `json:"tool_call_id"`
			Scope      map[string]string `json:"scope"`
			RequestKey *struct {
				ScopeHash string `json:"scope_hash"`
			} `json:"request_key"`
		} `json:"rows"`
	}
	reader.JSON("GET", "/v1/turns/"+turnID+"/audit", nil, http.StatusOK, &out)
	for _, r := range out.Rows {
		if r.ToolCallID == callID && r.Scope != nil && r.RequestKey != nil {
			return r.Scope, r.RequestKey.ScopeHash
		}
	}
	t.Fatalf("no audit row with a scope for %s in %s: %+v", callID, turnID, out.Rows)
	return nil, ""
}

// TestAttack25RedactedSecretsRecoverableFromHashes: a secret that turnstile
// redacts from what it records and shows is still bound, unsalted, by the
// hashes it publishes beside the redacted text, so any reader of them gets
// it back by guessing offline. The agent (a runtime credential of the
// workspace, here another one than the credential whose turn it reads)
// reads every request's scope_hash on GET /v1/approvals, and a workspace's
// auditor reads url_full_hash, env_sha256 and stdin_sha256 in clear in the
// audit rows (and so does every export of the event log):
//
//   - "PGPASSWORD=summer2024 psql -h db" is shown "PGPASSWORD=[redacted]
//     psql -h db", and the scope hash is SHA-256 of the scope with the exact
//     command: the redacted scope with one guess in place of [redacted]
//     hashes to it;
//   - https://intranet.example/login?user=bob&password=letmein keeps
//     url_full_hash = SHA-256 of the whole URL;
//   - an exec's environment value and stdin ("values and stdin are never
//     stored") keep env_sha256 = SHA-256 of ["PGPASSWORD=summer2024"] and
//     stdin_sha256 = SHA-256 of "hunter2\n" (in every rainbow table).
//
// Control: the redacted text holds none of the secrets, the approver sees
// the requests, and an allow_for_turn grant still matches the same call
// again (what the hash binds must keep binding it).
func TestAttack25RedactedSecretsRecoverableFromHashes(t *testing.T) {
	t.Parallel()
	s := StartServer(t, "")
	owner := roAs(s, roCreate(t, s, "a25-owner", "runtime", "ws1"))
	agent := roAs(s, roCreate(t, s, "a25-agent", "runtime", "ws1"))
	approver := roAs(s, roCreate(t, s, "a25-approver", "approver", "ws1"))
	auditor := roAs(s, roCreate(t, s, "a25-auditor", "auditor", "ws1"))
	root := workspace(t)
	owner.startTurn("a25-h", "ws1", "supervised", root)

	cmd := owner.decide("a25-h", "c-cmd", "exec_command", map[string]any{"cmd": "PGPASSWORD=summer2024 psql -h db"})
	url := owner.decide("a25-h", "c-url", "web_fetch", map[string]any{"url": "https://intranet.example/login?user=bob&password=letmein"})
	exe := owner.decide("a25-h", "c-exe", "exec_command", map[string]any{"cmd": []string{"psql", "-h", "db"},
		"env": map[string]string{"PGPASSWORD": "summer2024"}, "stdin": "hunter2\n"})
	for _, d := range []decisionAnswer{cmd, url, exe} {
		if d.Decision != "ask" || d.Request == nil {
			t.Fatalf("decision %+v, want ask with a request", d)
		}
	}

	// Control: nothing shown holds a secret; the approver lists the three.
	var pending struct {
		Approvals []struct {
			Request json.RawMessage `json:"request"`
		} `json:"approvals"`
	}
	approver.JSON("GET", "/v1/approvals?status=pending&turn_id=a25-h", nil, http.StatusOK, &pending)
	if len(pending.Approvals) != 3 {
		t.Fatalf("the approver lists %d requests, want 3", len(pending.Approvals))
	}
	for _, a := range pending.Approvals {
		for _, secret := range []string{"summer2024", "letmein", "hunter2"} {
			if strings.Contains(string(a.Request), secret) {
				t.Fatalf("a request shows %q in clear: %s", secret, a.Request)
			}
		}
	}

	// The agent, another runtime credential of ws1, reads the requests'
	// scope hashes.
	var seen struct {
		Approvals []struct {
			Request struct {
				ScopeHash string `json:"scope_hash"`
			} `json:"request"`
			ToolCallID string `json:"tool_call_id"`
		} `json:"approvals"`
	}
	agent.JSON("GET", "/v1/approvals?status=pending&turn_id=a25-h", nil, http.StatusOK, &seen)
	hashOf := map[string]string{}
	for _, a := range seen.Approvals {
		hashOf[a.ToolCallID] = a.Request.ScopeHash
	}

	var leaks []string
	// 1. The redacted command, through the scope hash the agent read.
	scope, _ := a25AuditScope(t, auditor, "a25-h", "c-cmd")
	for _, g := range a25Guesses {
		guess := map[string]string{}
		for k, v := range scope {
			guess[k] = strings.ReplaceAll(v, "[redacted]", g)
		}
		if a25ScopeHash(guess) == hashOf["c-cmd"] {
			leaks = append(leaks, "the command's redacted PGPASSWORD is "+g+" (its scope_hash, read by another runtime credential, verifies the guess)")
		}
	}
	// 2. The URL's query, through url_full_hash in the audit row.
	scope, _ = a25AuditScope(t, auditor, "a25-h", "c-url")
	for _, g := range a25Guesses {
		if a25Hash("https://intranet.example/login?user=bob&password="+g) == scope["url_full_hash"] {
			leaks = append(leaks, "the URL's redacted password is "+g+" (url_full_hash in the audit row)")
		}
	}
	// 3. The exec's environment value and stdin, in the audit row.
	scope, _ = a25AuditScope(t, auditor, "a25-h", "c-exe")
	for _, g := range a25Guesses {
		if a25Hash(`["PGPASSWORD=`+g+`"]`) == scope["env_sha256"] {
			leaks = append(leaks, "the environment's PGPASSWORD is "+g+" (env_sha256 in the audit row)")
		}
		if a25Hash(g+"\n") == scope["stdin_sha256"] {
			leaks = append(leaks, "stdin is "+g+` + "\n" (stdin_sha256 in the audit row)`)
		}
	}
	for _, l := range leaks {
		t.Errorf("a redacted secret is recovered offline from an unsalted hash: %s", l)
	}

	// Control: the grant still binds the exact call.
	approver.respond(cmd.Request.RequestID, "allow_for_turn")
	again := owner.decide("a25-h", "c-cmd-2", "exec_command", map[string]any{"cmd": "PGPASSWORD=summer2024 psql -h db"})
	if again.Decision != "allow" || again.Reason != "cached_approval" {
		t.Fatalf("the same call after allow_for_turn: %+v, want allow cached_approval", again)
	}
	other := owner.decide("a25-h", "c-cmd-3", "exec_command", map[string]any{"cmd": "PGPASSWORD=other psql -h db"})
	if other.Decision != "ask" {
		t.Fatalf("another password after allow_for_turn: %+v, want ask", other)
	}
}
