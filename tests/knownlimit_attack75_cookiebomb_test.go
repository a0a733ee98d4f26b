//go:build knownlimits

package tests

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
)

// TestAttack75ConsoleCookieBombFromAnotherPort: a browser keeps one cookie
// jar per host, not per port (RFC 6265 §8.5), and a page served on ANY
// port of the console's host may set cookies that the browser then sends
// to the console too. ui.go's own comments name this threat (the agent's
// dev server on another port of 127.0.0.1, which the person opens to see
// the agent's work), and the CSRF token and the multi-cookie lookup of
// consoleSession answer two of its forms. A third is left: the agent's page
// answers with two dozen "Set-Cookie: bombN=<4,000 bytes>; Path=/;
// Max-Age=<a year>" (Chromium keeps up to 180 cookies of 4,096 bytes per
// host; 24 are needed). From then on every request the person's browser
// sends to the console — the page /ui/ itself, the sign-in, the event
// stream, every answer to an approval request — carries a Cookie header of
// ~96 KB, over the server's header limit (--max-header-bytes, 64 KiB by
// default), and the server refuses it 431 before any handler runs. The
// person cannot load the console, sign in again, or answer anything; the
// agent's requests wait until they expire, and a person who does not know
// to clear the site's cookies (the browser shows a bare 431) is shut out
// for a year. The agent needs no credential for this, only a page the
// person opens once.
//
// Severity: medium (d: stops a person from answering through the console,
// persistently, from one visit to the agent's page; fails closed — the
// agent gains no answer of its own).
//
// Secure outcome: the person's console request, carrying what the browser
// sends for the host (the session cookie plus the agent's 24 cookies), is
// served. A fix needs the console's requests to be accepted with a Cookie
// header as large as a browser may hold for one host (Chromium: 180 ×
// 4 KiB, about 740 KB; Go's own default limit is 1 MiB), e.g. a header
// limit at least that large (bounded per connection by the connection
// limit), or the console served from a listener/host name whose cookie jar
// no port the agent can bind shares. Control: the same request with the
// session cookie alone is served.
func TestAttack75ConsoleCookieBombFromAnotherPort(t *testing.T) {
	t.Parallel()
	s := StartServer(t, "")
	approver := roCreate(t, s, "person", "approver")

	// The person signs in as the console does (api/ui/app.js): the token
	// in a header; the answer sets the session cookie and gives the CSRF
	// token.
	req, err := http.NewRequest("POST", s.URL+"/ui/session", nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+approver)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("premise: sign-in: %d %s", resp.StatusCode, body)
	}
	var info struct {
		CSRF string `json:"csrf_token"`
	}
	if err := json.Unmarshal(body, &info); err != nil || info.CSRF == "" {
		t.Fatalf("premise: sign-in answer without a csrf_token: %s", body)
	}
	var session string
	for _, c := range resp.Cookies() {
		if c.Name == "turnstile_session" {
			session = c.Name + "=" + c.Value
		}
	}
	if session == "" {
		t.Fatal("premise: the sign-in set no session cookie")
	}

	// What the console sends: GET /v1/approvals with the host's cookies
	// and the CSRF token (no Authorization header).
	console := func(cookie string) (int, string) {
		req, err := http.NewRequest("GET", s.URL+"/v1/approvals?status=pending", nil)
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Cookie", cookie)
		req.Header.Set("X-CSRF-Token", info.CSRF)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	if st, b := console(session); st != http.StatusOK {
		t.Fatalf("control: the console's request with its session cookie alone: %d %s", st, b)
	}

	// The browser's Cookie header after the person opened the agent's page
	// on another port of 127.0.0.1 once: the agent's 24 cookies of 4,000
	// bytes (each within a browser's 4,096-byte limit, 24 far below its
	// 180 per host) and the console's own session cookie.
	var jar []string
	for i := range 24 {
		jar = append(jar, fmt.Sprintf("bomb%02d=%s", i, strings.Repeat("b", 4000)))
	}
	jar = append(jar, session)
	if st, b := console(strings.Join(jar, "; ")); st != http.StatusOK {
		if len(b) > 200 {
			b = b[:200]
		}
		t.Errorf("with 24 cookies the agent's page on another port of the console's host set, the person's console request was refused %d (%s): "+
			"the console cannot load, sign in or answer any approval until the person clears the host's cookies", st, b)
	}
}
