package tests

import (
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestAttack83BrowserProfileHoldsTheConsoleSession (eighty-third review,
// medium): the console keeps the approver's session in the person's
// browser, and a browser keeps it on disk in its profile under the
// person's home: the session cookie (Firefox's cookies.sqlite in plain
// text; Chromium's Cookies, encrypted on Linux with the fixed key
// "peanuts" where no keyring answers) and the CSRF token, which the
// console puts in sessionStorage (Firefox's
// sessionstore-backups/recovery.jsonlz4, Chromium's "Session Storage"
// leveldb; the README says so itself: "browsers keep sessionStorage on
// disk to restore a session"). The two together are the approver:
// sessionAuth takes any client that sends the cookie and X-CSRF-Token
// without Origin or Sec-Fetch-Site headers.
//
// The default sensitive list (domain.SensitiveHomeNames) denies a home's
// credential stores to every restricted turn, .ssh, .netrc, gh's
// hosts.yml, Claude Code's and Codex's logins among them, but no browser
// profile (.mozilla, .config/google-chrome, .config/chromium,
// snap/firefox, .var/app/org.mozilla.firefox, …). A turn whose roots hold
// the person's home (workspace_root ~, or ~ among app_read_roots, so the
// agent can read the person's dotfiles) lets a command (or the runtime's
// read_file) read the profile: the agent passes the cookie and the token
// to its runtime, which answers its own approval requests as the
// approver, and can widen its turns (an admin's console session).
//
// Root cause: domain/sensitive.go SensitiveHomeNames lists no browser
// profile, though the gateway's own approver session lives there.
//
// Fix: deny the usual browser profile directories under every sensitive
// home (Firefox, Chromium, Chrome, Brave, Edge, Vivaldi, Opera, their
// snap and flatpak homes) as credential stores; and bind a console
// session to more than what the profile holds (e.g. require the
// console's Origin or Sec-Fetch-Site: same-origin on every session
// request, which a replaying client can forge, so better: keep the CSRF
// token in memory only and accept a reload's sign-in), or document that
// a turn must never read the person's home.
//
// Setup: a supervised turn over a new /home/a83-home-* (a home of
// SensitiveHomes; decisions on paths are judged without the files).
// Control: its .ssh/id_ed25519 and .netrc are denied
// (sensitive_path). Impact check: a console session's cookie and CSRF
// token, sent by a plain client, answer a request of the agent's.
// Attack: reads of the browser profiles' cookie and session stores are
// allowed.
func TestAttack83BrowserProfileHoldsTheConsoleSession(t *testing.T) {
	t.Parallel()
	s := StartServer(t, "")
	agent := roAs(s, roCreate(t, s, "agent83", "runtime", "ws"))
	approver := roCreate(t, s, "alice83", "approver", "ws")
	// A home of SensitiveHomes (/home/*), small (a walk of /root here
	// takes longer than a decision may): the person's, as a turn's root.
	home, err := os.MkdirTemp("/home", "a83-home-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(home) })
	agent.startTurn("home", "ws", "supervised", home)

	// Impact check: what the profile holds answers approvals.
	req, _ := http.NewRequest("POST", s.URL+"/ui/session", nil)
	req.Header.Set("Authorization", "Bearer "+approver)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var info struct {
		CSRF string `json:"csrf_token"`
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || json.Unmarshal(b, &info) != nil || info.CSRF == "" || len(resp.Cookies()) == 0 {
		t.Fatalf("console sign-in: %d %s", resp.StatusCode, b)
	}
	cookie := resp.Cookies()[0]
	var dec struct {
		Request struct {
			RequestID string `json:"request_id"`
		} `json:"request"`
	}
	agent.JSON("POST", "/v1/turns/home/exec", map[string]any{"tool_call_id": "c1", "argv": []string{"true"}}, http.StatusAccepted, &dec)
	replay, _ := http.NewRequest("POST", s.URL+"/v1/approvals/"+dec.Request.RequestID+"/respond", strings.NewReader(`{"resolution":"allow_once"}`))
	replay.AddCookie(cookie)
	replay.Header.Set("X-CSRF-Token", info.CSRF)
	replay.Header.Set("Content-Type", "application/json")
	rresp, err := http.DefaultClient.Do(replay)
	if err != nil {
		t.Fatal(err)
	}
	rb, _ := io.ReadAll(rresp.Body)
	rresp.Body.Close()
	if rresp.StatusCode != http.StatusOK {
		t.Fatalf("premise: the session's cookie and CSRF token, replayed by a plain client, answer a request: %d %s", rresp.StatusCode, rb)
	}
	t.Logf("the console session's cookie and CSRF token, replayed outside the browser, answered the agent's request: %s", rb)

	// Attack: the browser profiles that hold them are readable. The files
	// stand for what the person's browser wrote (their contents do not
	// matter to the decision).
	profiles := []string{
		home + "/.mozilla/firefox/abcd1234.default-release/cookies.sqlite",
		home + "/.mozilla/firefox/abcd1234.default-release/sessionstore-backups/recovery.jsonlz4",
		home + "/.config/chromium/Default/Cookies",
		home + "/.config/google-chrome/Default/Session Storage/000003.log",
		home + "/snap/firefox/common/.mozilla/firefox/abcd1234.default/cookies.sqlite",
	}
	for _, p := range append(profiles, home+"/.ssh/id_ed25519", home+"/.netrc") {
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("turnstile_session="+cookie.Value+" turnstile_csrf="+info.CSRF), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	for i, p := range profiles {
		d := agent.decide("home", "b"+string(rune('a'+i)), "read_file", map[string]any{"path": p})
		t.Logf("%s: %s %s %s", p, d.Decision, d.Reason, d.Refusal)
		if d.Decision != "deny" {
			t.Errorf("read_file %s (the browser profile holding the approver's console session): %s %s; want deny (sensitive_path), as ~/.ssh", p, d.Decision, d.Reason)
		}
	}
	// Control: the home's credential stores, present the same way, are
	// denied.
	for i, p := range []string{home + "/.ssh/id_ed25519", home + "/.netrc"} {
		wantDecision(t, "read "+p, agent.decide("home", "ctl"+string(rune('a'+i)), "read_file", map[string]any{"path": p}), "deny", "sandbox_denied", "sensitive_path")
	}
}
