package tests

import (
	"net"
	"net/http"
	"strconv"
	"strings"
	"testing"
)

// TestSilentConnectionsDoNotLockOutTheAPI: the agent, a local process,
// opens as many connections to the API as it may hold and sends nothing
// on them (each would last --read-header-timeout, here a minute). A
// person's request is still answered: a connection silent past its grace
// is closed to make room (turnstile_http_connections_evicted_total).
// Control: before the flood the person is answered, and with the bound
// full the server holds no more connections than it.
func TestSilentConnectionsDoNotLockOutTheAPI(t *testing.T) {
	t.Parallel()
	s := StartServer(t, "", "--max-connections", "16", "--read-header-timeout", "1m")
	person := roAs(s, s.credential("person", "approver"))
	if st, b := person.Request("GET", "/v1/approvals?status=pending", nil); st != http.StatusOK {
		t.Fatalf("control: before the flood: %d %s", st, b)
	}
	addr := strings.TrimPrefix(s.URL, "http://")
	var held []net.Conn
	t.Cleanup(func() {
		for _, c := range held {
			c.Close()
		}
	})
	for range 16 {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		held = append(held, c)
	}
	// A person arriving now: a new connection.
	fresh := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	waitUntil(t, "a person answered on a new connection while silent connections fill the API's bound", func() (bool, string) {
		req, _ := http.NewRequest("GET", s.URL+"/v1/approvals?status=pending", nil)
		req.Header.Set("Authorization", "Bearer "+person.Token)
		resp, err := fresh.Do(req)
		if err != nil {
			return false, err.Error()
		}
		resp.Body.Close()
		return resp.StatusCode == http.StatusOK, resp.Status
	})
	var metrics []byte
	waitUntil(t, "GET /metrics answered", func() (bool, string) {
		var st int
		st, metrics = s.Do("GET", "/metrics", nil)
		return st == http.StatusOK, strconv.Itoa(st)
	})
	open, evicted := -1.0, 0.0
	for _, line := range strings.Split(string(metrics), "\n") {
		if v, ok := strings.CutPrefix(line, "turnstile_http_connections "); ok {
			open, _ = strconv.ParseFloat(v, 64)
		}
		if v, ok := strings.CutPrefix(line, "turnstile_http_connections_evicted_total "); ok {
			evicted, _ = strconv.ParseFloat(v, 64)
		}
	}
	if evicted < 1 || open > 16 {
		t.Fatalf("connections open %v (bound 16), evicted %v: want at least one silent one closed for the person's", open, evicted)
	}
}
