package api_test

import (
	"bufio"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"turnstile/api"
)

// TestRequestsInFlightPerCredential: the agent holds a credential and
// opens event streams (or sockets, waits, commands), each a connection and
// goroutines of the server for as long as it lasts. Past MaxRequests in
// flight its next request is refused 429 quota_exceeded before its handler
// runs. Controls: another credential is served meanwhile, and once one of
// the agent's streams closes, its next request is served.
func TestRequestsInFlightPerCredential(t *testing.T) {
	s := startInProcessOn(t, filepath.Join(t.TempDir(), "events.db"), func(c *api.Config) { c.MaxRequests = 2 })
	agent := s.credential("agent", "approver")
	other := s.credential("other", "approver")
	get := func(token, path string) *http.Response {
		t.Helper()
		req, _ := http.NewRequest("GET", s.url+path, nil)
		req.Header.Set("Authorization", "Bearer "+token)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		return resp
	}
	stream := func(token string) *http.Response {
		t.Helper()
		resp := get(token, "/v1/events")
		if resp.StatusCode != http.StatusOK {
			b, _ := io.ReadAll(resp.Body)
			t.Fatalf("a stream: %d %s", resp.StatusCode, b)
		}
		// The stream is open once its first line arrived.
		if _, err := bufio.NewReader(resp.Body).ReadString('\n'); err != nil {
			t.Fatal(err)
		}
		return resp
	}
	first := stream(agent)
	defer first.Body.Close()
	second := stream(agent)
	defer second.Body.Close()
	resp := get(agent, "/v1/turns")
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusTooManyRequests || !strings.Contains(string(b), "requests_in_flight_per_credential") {
		t.Fatalf("the agent's third request in flight: %d %s, want 429 requests_in_flight_per_credential", resp.StatusCode, b)
	}
	if resp := get(other, "/v1/turns"); resp.StatusCode != http.StatusOK {
		t.Fatalf("another credential while the agent holds its bound: %d", resp.StatusCode)
	} else {
		resp.Body.Close()
	}
	first.Body.Close()
	// The server notices the close when its next write fails or its
	// request context ends: poll until the agent is served again.
	deadline := time.Now().Add(20 * time.Second)
	for {
		resp := get(agent, "/v1/turns")
		resp.Body.Close()
		if resp.StatusCode == http.StatusOK {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("after one of its streams closed, the agent's request: %d, want 200", resp.StatusCode)
		}
		time.Sleep(5 * time.Millisecond) // polling a condition, not standing in for it
	}
}
