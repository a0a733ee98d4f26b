//go:build knownlimits

package tests

import (
	"encoding/json"
	"net/http"
	"os/exec"
	"strings"
	"testing"

	"turnstile/internal/esdbtest"
)

// TestAttack80ProxyCarriesToASecondInstanceOfTheGateway (eightieth review,
// medium where two instances of one deployment share a host: the
// seventy-seventh review's finding through the instance next door): the
// fix (egress Proxy.Own, set from this process's API and shared egress
// listeners) refuses only this process's own ports. The README's
// scale-out section has instances share one store, so a runtime
// credential minted by one is taken by every other; a second instance on
// the same machine (another port for a rolling restart, a second
// workspace group, the console's own instance) listens on loopback, which
// the profile's allow rule "127.0.0.1" opens. A command of a restricted
// turn on instance A sends, through its proxy, the runtime's credential
// to instance B's API and starts a full_access turn there: everything the
// restricted turn's sandbox held it to is gone, exactly as the
// seventy-seventh review's attack did on A.
//
// (The test store is taken --store-unauthenticated for brevity; a store
// with client credentials changes nothing here: the two instances share
// the credentials stream whatever the store's own authentication.)
//
// Control: A's own API is refused gateway_address through the same proxy,
// and B takes the credential from the test itself.
//
// Fix: the proxy must refuse every gateway of the deployment, not only
// this process's listeners: list the peer instances' addresses (a flag, or
// the instances recording their listeners in the shared store, which A
// reads), or refuse every loopback port that answers as a turnstile API;
// at least, the README must say that a loopback allow rule opens any
// other instance sharing the store.
func TestAttack80ProxyCarriesToASecondInstanceOfTheGateway(t *testing.T) {
	t.Parallel()
	curl, err := exec.LookPath("curl")
	if err != nil {
		t.Fatal("curl is needed: " + err.Error())
	}
	store := esdbtest.Start(t)
	conn := store.ConnString()
	a, root := egressServerWith(t, "--store", conn, "--store-unauthenticated", "--store-timeout", "5s")
	b := StartServer(t, "", "--store", conn, "--store-unauthenticated", "--store-timeout", "5s")
	token := a.credential("agent", "runtime")
	agent := roAs(a, token)
	// Control: instance B takes A's runtime credential (one store).
	if st, body := roAs(b, token).Do("GET", "/v1/turns/none", nil); st == http.StatusUnauthorized || st == http.StatusForbidden || st == 0 {
		t.Fatalf("premise: instance B refuses A's credential: %d %s", st, body)
	}
	if st, body := startProfileTurn(agent, "w", root, map[string]any{"profile": "web"}); st != http.StatusCreated {
		t.Fatalf("start: %d %s", st, body)
	}
	run := func(call string, args ...string) decisionAnswer {
		t.Helper()
		return agent.execArgv("w", call, append([]string{curl, "-sS", "-x", "http://127.0.0.1:3128", "--max-time", "15"}, args...)...)
	}
	start := func(id string) string {
		b, _ := json.Marshal(map[string]any{"turn_id": id, "workspace_id": "ws", "thread_id": "th-" + id, "workspace_root": root,
			"permission_profile": map[string]any{"mode": "full_access"}})
		return string(b)
	}
	// Control: A's own API is refused.
	out := run("own", "-o", "/dev/null", "-w", "%{http_code}", "-H", "Authorization: Bearer "+token,
		"-H", "Content-Type: application/json", "--data-binary", start("esc-a"), strings.TrimSuffix(a.URL, "/")+"/v1/turns")
	if out.Result.Stdout == "201" {
		t.Fatalf("control: instance A's own API was reached through its proxy: %+v", out.Result)
	}
	// Attack: instance B's API.
	out = run("peer", "-o", "/dev/null", "-w", "%{http_code}", "-H", "Authorization: Bearer "+token,
		"-H", "Content-Type: application/json", "--data-binary", start("esc-b"), strings.TrimSuffix(b.URL, "/")+"/v1/turns")
	t.Logf("peer: %+v", out.Result)
	if st, _ := roAs(b, token).Do("GET", "/v1/turns/esc-b", nil); st == http.StatusOK || out.Result.Stdout == "201" {
		t.Errorf("a command of the restricted turn on instance A started a full_access turn on instance B (%s), reached through A's egress proxy", b.URL)
	}
}
