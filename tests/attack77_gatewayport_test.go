package tests

import (
	"encoding/json"
	"net/http"
	"os/exec"
	"strings"
	"testing"
)

// TestAttack77SandboxDrivesTheGatewayAPIThroughTheProxy (seventy-seventh
// review, medium: a sandboxed command reaches the gateway's own port and
// leaves the sandbox through it): a profile that allows loopback by an
// allow rule ("127.0.0.1", or "localhost", as the egress tests' own "web"
// profile does for a dev server) opens every port of it to the egress
// proxy's connections, and the proxy never refuses the server's own
// listeners: its API (--listen, 127.0.0.1:8740 by default), the shared
// egress listener and the console. A command of such a turn sends, through
// its proxy at 127.0.0.1:3128, plain HTTP requests to the API with the
// runtime's credential (the adversary holds it): it starts a new turn in
// full_access and runs a command there through /exec, which runs with no
// sandbox at all (no network namespace, no allow-list, no Landlock): past
// everything the restricted turn's profile and sandbox hold it to. The
// network restriction was the only thing between a credential inside the
// sandbox and the gateway (the token files are masked, the API is not
// reachable from the command's own namespace); the proxy carries it there.
// An allow rule for loopback is the person's choice of the services they
// run there, not of turnstile itself, as the gateway's secrets are masked
// whatever the mode.
//
// Fix: the proxy (CheckAddr's callers: dial and the recheck) refuses the
// addresses and ports the server itself listens on (the API, the shared
// egress listener, the console; on every local address when one is bound
// to 0.0.0.0 or ::), whatever the rules and allow_localhost, with its own
// refusal code; the README's proxy section says so.
//
// Control: the allowed origin (a test server on 127.0.0.1) is reached
// through the proxy, and a host the profile does not name is refused.
// Attack: the API answers the command, and the turn the command asked for
// exists.
func TestAttack77SandboxDrivesTheGatewayAPIThroughTheProxy(t *testing.T) {
	t.Parallel()
	curl, err := exec.LookPath("curl")
	if err != nil {
		t.Fatal("curl is needed: " + err.Error())
	}
	s, root := egressServer(t)
	token := s.credential("agent", "runtime")
	agent := roAs(s, token)
	if st, body := startProfileTurn(agent, "w", root, map[string]any{"profile": "web"}); st != http.StatusCreated {
		t.Fatalf("start: %d %s", st, body)
	}
	origin := egressOrigin(t, "allowed-origin")
	run := func(call string, args ...string) decisionAnswer {
		t.Helper()
		return agent.execArgv("w", call, append([]string{curl, "-sS", "-x", "http://127.0.0.1:3128", "--max-time", "15"}, args...)...)
	}
	// Controls.
	if out := run("ok", "http://"+origin+"/"); out.Result.ExitCode != 0 || out.Result.Stdout != "allowed-origin" {
		t.Fatalf("control: the allowed origin through the proxy: %+v", out.Result)
	}
	if out := run("other", "-o", "/dev/null", "-w", "%{http_code}", "http://other.test:1/"); out.Result.Stdout != "403" {
		t.Fatalf("control: other.test (not allowed): %+v, want 403", out.Result)
	}
	// Attack: start a full_access turn through the gateway's API.
	api := strings.TrimSuffix(s.URL, "/")
	start, _ := json.Marshal(map[string]any{"turn_id": "esc", "workspace_id": "ws", "thread_id": "th-esc", "workspace_root": root,
		"permission_profile": map[string]any{"mode": "full_access"}})
	out := run("start", "-o", "/dev/null", "-w", "%{http_code}", "-H", "Authorization: Bearer "+token,
		"-H", "Content-Type: application/json", "--data-binary", string(start), api+"/v1/turns")
	if out.Result.Stdout == "201" {
		t.Errorf("a command of the restricted turn started turn esc in full_access through the gateway's API (%s), reached through the egress proxy", api)
	}
	if st, _ := s.Do("GET", "/v1/turns/esc", nil); st == http.StatusOK {
		t.Errorf("turn esc exists: the sandboxed command drove the gateway's API")
		// And runs a command there with no sandbox.
		run2, _ := json.Marshal(map[string]any{"tool_call_id": "esc-1", "argv": []string{"/bin/sh", "-c", "readlink /proc/self/ns/net"}, "timeout_ms": 10000})
		out := run("exec", "-H", "Authorization: Bearer "+token, "-H", "Content-Type: application/json", "--data-binary", string(run2), api+"/v1/turns/esc/exec")
		t.Logf("the full_access command's answer, through the proxy: %s", out.Result.Stdout)
	}
}
