package tests

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// egressProfiles: "web" may reach 127.0.0.1, localhost and rebind.test
// without asking; "nolocal" allows rebind.test only (no loopback);
// "askweb" allows 127.0.0.1 and localhost but asks before each origin.
const egressProfiles = `
[permissions.web]
extends = ":workspace"
[permissions.web.network]
enabled = true
[permissions.web.network.domains]
"127.0.0.1" = "allow"
"localhost" = "allow"
"rebind.test" = "allow"
[permissions.web.approvals]
policy = "full_access"

[permissions.nolocal]
extends = ":workspace"
[permissions.nolocal.network]
enabled = true
[permissions.nolocal.network.domains]
"rebind.test" = "allow"
[permissions.nolocal.approvals]
policy = "full_access"

[permissions.askweb]
extends = ":workspace"
[permissions.askweb.network]
enabled = true
[permissions.askweb.network.domains]
"127.0.0.1" = "allow"
"localhost" = "allow"
[permissions.askweb.approvals]
policy = "supervised"
`

func egressServer(t *testing.T) (*Server, string) {
	t.Helper()
	return egressServerWith(t)
}

// egressServerWith is egressServer with more serve flags.
func egressServerWith(t *testing.T, flags ...string) (*Server, string) {
	t.Helper()
	if os.Geteuid() != 0 {
		if os.Getenv("CI") == "true" {
			t.Fatal("CI=true: the egress proxy needs a root server")
		}
		t.Skip("the egress proxy needs a root server")
	}
	dns := dnsServer(t, map[string][]netip.Addr{"rebind.test": {netip.MustParseAddr("127.0.0.1")}, "other.test": {netip.MustParseAddr("127.0.0.1")}})
	file := filepath.Join(t.TempDir(), "profiles.toml")
	os.WriteFile(file, []byte(egressProfiles), 0o644)
	s := StartServer(t, "", append([]string{"--profiles", file, "--dns-server", dns, "--egress-listen", "127.0.0.1:0", "--egress-ask-wait", "20s"}, flags...)...)
	root := workspace(t)
	return s, root
}

func egressOrigin(t *testing.T, body string) string {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, body) }))
	t.Cleanup(srv.Close)
	return srv.Listener.Addr().String()
}

func (s *Server) execArgv(turnID, callID string, argv ...string) decisionAnswer {
	s.t.Helper()
	status, out := s.exec(turnID, "", map[string]any{"tool_call_id": callID, "argv": argv, "timeout_ms": 20000})
	if status != http.StatusOK || !out.Ran || out.Result == nil {
		s.t.Fatalf("exec %v: %d %+v", argv, status, out)
	}
	return out
}

// TestEgressSandboxedCurl: a command of a turn whose profile restricts
// the network reaches an allowed origin with curl through the proxy; a
// host the profile does not allow gets 403 and a decision_denied event; a
// host that resolves to loopback is refused under a profile without
// localhost and reached under one with it; curl with the proxy switched
// off reaches nothing.
func TestEgressSandboxedCurl(t *testing.T) {
	t.Parallel()
	curl, err := exec.LookPath("curl")
	if err != nil {
		t.Fatal("curl is needed: " + err.Error())
	}
	s, root := egressServer(t)
	origin := egressOrigin(t, "allowed-origin")
	port := origin[strings.LastIndex(origin, ":")+1:]
	if st, body := startProfileTurn(s, "w", root, map[string]any{"profile": "web"}); st != http.StatusCreated {
		t.Fatalf("start: %d %s", st, body)
	}
	if st, body := startProfileTurn(s, "n", root, map[string]any{"profile": "nolocal"}); st != http.StatusCreated {
		t.Fatalf("start: %d %s", st, body)
	}
	code := func(turnID, call string, args ...string) string {
		out := s.execArgv(turnID, call, append([]string{curl, "-sS", "-o", "/dev/null", "-w", "%{http_code}", "--max-time", "10"}, args...)...)
		return out.Result.Stdout
	}
	if out := s.execArgv("w", "ok", curl, "-sS", "--max-time", "10", "http://"+origin+"/"); out.Result.ExitCode != 0 || out.Result.Stdout != "allowed-origin" {
		t.Fatalf("curl to the allowed origin: %+v", out.Result)
	}
	if c := code("w", "rebind-allowed", "http://rebind.test:"+port+"/"); c != "200" {
		t.Fatalf("rebind.test → 127.0.0.1 with localhost allowed (control): %s", c)
	}
	if c := code("n", "rebind-refused", "http://rebind.test:"+port+"/"); c != "403" {
		t.Fatalf("rebind.test → 127.0.0.1 without localhost: %s, want 403", c)
	}
	if c := code("w", "other", "http://other.test:"+port+"/"); c != "403" {
		t.Fatalf("other.test (not allowed): %s, want 403", c)
	}
	if out := s.execArgv("w", "bypass", curl, "-sS", "--noproxy", "*", "--max-time", "5", "http://"+origin+"/"); out.Result.ExitCode == 0 {
		t.Fatalf("curl bypassing the proxy reached the origin: %+v", out.Result)
	}
	// The allowed connections are summarised per origin with their bytes
	// (within --egress-flush).
	pollUntil(t, "the egress.traffic summary in the audit", func() bool {
		var a struct {
			Rows []struct{ Kind, Detail string }
		}
		s.JSON("GET", "/v1/turns/w/audit", nil, http.StatusOK, &a)
		for _, r := range a.Rows {
			// A GET's request line and headers count up (curl's: ~80
			// bytes), the answer's status line and headers down with its
			// 14-byte body.
			if r.Kind != "egress_traffic" || !strings.HasPrefix(r.Detail, "http://"+origin+": 1 connections, ") || strings.Contains(r.Detail, " 0 bytes up") {
				continue
			}
			var up, down int
			if _, err := fmt.Sscanf(r.Detail[strings.Index(r.Detail, ", ")+2:], "%d bytes up, %d bytes down", &up, &down); err == nil && down > 14+len("HTTP/1.1 200 OK\r\n") && down < 14+1024 {
				return true
			}
		}
		return false
	})
	_, raw := s.events("w")
	if !strings.Contains(string(raw), "other.test") || !strings.Contains(string(raw), "host_not_allowed") {
		t.Fatalf("no decision_denied event of the proxy for other.test in %.2000s", raw)
	}
	// The summaries are the command's principal's (who ran /exec), as its
	// connections' decisions are.
	var evs struct {
		Events []struct {
			Type  string
			Actor struct{ Name, Role string }
		}
	}
	if err := json.Unmarshal(raw, &evs); err != nil {
		t.Fatal(err)
	}
	summaries := 0
	for _, e := range evs.Events {
		if e.Type == "egress.traffic" {
			summaries++
			if e.Actor.Name != "admin" || e.Actor.Role != "admin" {
				t.Errorf("an egress.traffic summary of the admin's command recorded as %s:%s", e.Actor.Role, e.Actor.Name)
			}
		}
	}
	if summaries == 0 {
		t.Fatalf("no egress.traffic event in %.2000s", raw)
	}
}

// TestEgressAskAndNarrowing: the runtime reads its turn's proxy URL (the
// approver may not); a request through the shared proxy under a policy that
// asks is held until allow_once and then answered; a CONNECT tunnel to an
// allowed origin (opened after allow_for_turn) closes when the turn is
// narrowed to supervised (network disabled); only runtime credentials read
// the proxy URL.
func TestEgressAskAndNarrowing(t *testing.T) {
	t.Parallel()
	s, root := egressServer(t)
	origin := egressOrigin(t, "asked-origin")
	if st, body := startProfileTurn(s, "a", root, map[string]any{"profile": "askweb"}); st != http.StatusCreated {
		t.Fatalf("start: %d %s", st, body)
	}
	var eg struct {
		ProxyURL string `json:"proxy_url"`
	}
	s.JSON("GET", "/v1/turns/a/egress", nil, http.StatusOK, &eg)
	pu, err := url.Parse(eg.ProxyURL)
	if err != nil || pu.User == nil || pu.User.Username() != "a" {
		t.Fatalf("proxy_url %q", eg.ProxyURL)
	}
	client := &http.Client{Transport: &http.Transport{Proxy: http.ProxyURL(pu), DisableKeepAlives: true}, Timeout: 30 * time.Second}
	type answer struct {
		code int
		body string
		err  error
	}
	done := make(chan answer, 1)
	go func() {
		resp, err := client.Get("http://" + origin + "/")
		if err != nil {
			done <- answer{err: err}
			return
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		done <- answer{code: resp.StatusCode, body: string(b)}
	}()
	var reqID string
	pollUntil(t, "the proxy's approval request", func() bool {
		var pending struct{ Approvals []approvalView }
		s.JSON("GET", "/v1/approvals?status=pending&turn_id=a", nil, http.StatusOK, &pending)
		if len(pending.Approvals) == 1 {
			reqID = pending.Approvals[0].Request.RequestID
			if sum := pending.Approvals[0].Request.Summary; sum != "Any GET request to http://"+origin+" (every path)" {
				t.Errorf("the plain request's approval reads %q, want GET, its origin and every path", sum)
			}
			return true
		}
		return false
	})
	select {
	case a := <-done:
		t.Fatalf("the connection was answered before the approval: %+v", a)
	default:
	}
	s.respond(reqID, "allow_once")
	if a := <-done; a.err != nil || a.code != 200 || a.body != "asked-origin" {
		t.Fatalf("after allow_once: %+v", a)
	}

	// Narrowing closes an open tunnel. allow_for_turn lets the tunnel open.
	echo, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer echo.Close()
	go func() {
		for {
			c, err := echo.Accept()
			if err != nil {
				return
			}
			go func() { io.Copy(c, c); c.Close() }()
		}
	}()
	conn, err := net.Dial("tcp", pu.Host)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	req := &http.Request{Method: http.MethodConnect, URL: &url.URL{Opaque: echo.Addr().String()}, Host: echo.Addr().String(), Header: http.Header{}}
	cred, _ := pu.User.Password()
	req.SetBasicAuth("a", cred)
	req.Header["Proxy-Authorization"] = req.Header["Authorization"]
	delete(req.Header, "Authorization")
	if err := req.Write(conn); err != nil {
		t.Fatal(err)
	}
	pollUntil(t, "the tunnel's approval request", func() bool {
		var pending struct{ Approvals []approvalView }
		s.JSON("GET", "/v1/approvals?status=pending&turn_id=a", nil, http.StatusOK, &pending)
		if len(pending.Approvals) == 1 {
			// A person is asked about a tunnel as such: any method may
			// pass inside TLS, so it does not read as a GET.
			if sum := pending.Approvals[0].Request.Summary; sum != "A TCP tunnel to "+echo.Addr().String()+" (CONNECT): any protocol, what it carries is not seen" {
				t.Errorf("the tunnel's approval reads %q, want CONNECT, its origin and every path", sum)
			}
			s.respond(pending.Approvals[0].Request.RequestID, "allow_for_turn")
			return true
		}
		return false
	})
	br := bufio.NewReader(conn)
	resp, err := http.ReadResponse(br, req)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("CONNECT: %v %v", resp, err)
	}
	conn.SetDeadline(time.Now().Add(20 * time.Second))
	io.WriteString(conn, "ping\n")
	if line, err := br.ReadString('\n'); err != nil || line != "ping\n" {
		t.Fatalf("tunnel echo: %q %v", line, err)
	}
	s.JSON("POST", "/v1/turns/a/permissions", map[string]any{"permission_profile": map[string]any{"mode": "supervised"}}, http.StatusOK, nil)
	if _, err := br.ReadString('\n'); err == nil {
		t.Fatal("the tunnel is still open after the narrowing")
	}
	// The approver and auditor roles do not get the credential; a runtime
	// credential does (control), its own: the connections through it are
	// recorded as its.
	for _, role := range []string{"approver", "auditor"} {
		if st, body := roAs(s, roCreate(t, s, "eg-"+role, role)).Request("GET", "/v1/turns/a/egress", nil); st != http.StatusForbidden {
			t.Errorf("%s reads the proxy URL: %d %s", role, st, body)
		}
	}
	if st, body := roAs(s, roCreate(t, s, "eg-runtime", "runtime")).Request("GET", "/v1/turns/a/egress", nil); st != http.StatusOK || !strings.Contains(string(body), `"proxy_url":"http://a:`) || strings.Contains(string(body), eg.ProxyURL) {
		t.Errorf("runtime reads the proxy URL: %d %s", st, body)
	}
}
