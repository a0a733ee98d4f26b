package egress

import (
	"net/http"
	"net/netip"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"turnstile/domain"
	"turnstile/sandbox"
)

// TestAttackSelfAddressIsLocalhost: a host service bound to every
// interface (0.0.0.0, as sshd, databases and dev servers often are) is the
// server's own "localhost" whichever of its addresses is dialled. Without
// allow_localhost the proxy refuses it on 127.0.0.1, but an allowed name
// that resolves to the address of the server's own network interface
// (classified "public" because its range is not a private one) reaches the
// very same socket. Wanted: refused as localhost_not_allowed like 127.0.0.1.
// Control: with allow_localhost the same request reaches the service.
func TestAttackSelfAddressIsLocalhost(t *testing.T) {
	self := hostAddr(t, "any")
	port := strconv.Itoa(greeter(t, "tcp4", "0.0.0.0:0", "host-service"))
	if self.Is6() {
		port = strconv.Itoa(greeter(t, "tcp6", "[::]:0", "host-service"))
	}
	res := &mapResolver{m: map[string][]netip.Addr{"self.example.test": {self}}}
	j := newSnapJudge()
	// Private networks are allowed: the host's address may be a private or
	// documentation one, and what is tested is that it is the host.
	np := domain.NetworkPolicy{Mode: domain.NetworkRestricted, AllowedDomains: []string{"**.example.test", "=127.0.0.1"}, AllowPrivateNetworks: true}
	j.set("t", np)
	p := NewProxy(j, res)
	addr := startProxy(t, p)
	c := proxyClient(p.ProxyURL(addr, "t"))

	// The policy refuses the host's own service on loopback ...
	if code, h, _ := get(t, c, "http://127.0.0.1:"+port+"/"); code != http.StatusForbidden || h.Get(HeaderRefusal) != sandbox.CodeLocalhostNotAllowed {
		t.Fatalf("127.0.0.1 without allow_localhost: %d %q (want 403 localhost_not_allowed)", code, h.Get(HeaderRefusal))
	}
	// ... and must refuse it through the host's own interface address too.
	code, h, body := get(t, c, "http://self.example.test:"+port+"/")
	if code != http.StatusForbidden || h.Get(HeaderRefusal) != sandbox.CodeLocalhostNotAllowed {
		t.Errorf("self.example.test → %s (this server's own interface address) without allow_localhost: %d %q body %q; want 403 localhost_not_allowed: the proxy reached a service bound on the server itself", self, code, h.Get(HeaderRefusal), body)
	}

	// Control: where localhost is allowed, the same request reaches it.
	np.AllowLocalhost = true
	j.set("t", np)
	if code, _, body := get(t, c, "http://self.example.test:"+port+"/"); code != http.StatusOK || body != "host-service" {
		t.Fatalf("control with allow_localhost: %d %q", code, body)
	}
}

// TestAttackSelfAddressFromSandbox is TestAttackSelfAddressIsLocalhost from
// a real sandboxed command: curl in the command's own network namespace,
// through the proxy attached there, reaches a service the server bound on
// 0.0.0.0, by a name the allow-list allows that resolves to the server's own
// interface address, while the same curl to 127.0.0.1 gets 403.
func TestAttackSelfAddressFromSandbox(t *testing.T) {
	curl, err := exec.LookPath("curl")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("CI=true and curl is missing")
		}
		t.Skip("curl is missing")
	}
	self := hostAddr(t, "any")
	if self.Is6() {
		t.Skip("the service below is IPv4")
	}
	port := strconv.Itoa(greeter(t, "tcp4", "0.0.0.0:0", "host-service"))
	np := &domain.NetworkPolicy{Mode: domain.NetworkRestricted, AllowedDomains: []string{"**.example.test", "=127.0.0.1"}, AllowPrivateNetworks: true}
	s := sandboxSnapshot(t, domain.ModeSupervised, np)
	j := newSnapJudge()
	j.set("t", *np)
	p := NewProxy(j, &mapResolver{m: map[string][]netip.Addr{"self.example.test": {self}}})
	fetch := func(u string) string {
		r := runIn(t, s, p, "t", curl, "-sS", "--max-time", "10", "-w", " %{http_code}", u)
		return strings.TrimSpace(string(r.Stdout))
	}
	if got := fetch("http://127.0.0.1:" + port + "/"); !strings.HasSuffix(got, " 403") {
		t.Fatalf("sandboxed curl to the host service on 127.0.0.1 (control): %q, want 403", got)
	}
	if got := fetch("http://self.example.test:" + port + "/"); strings.Contains(got, "host-service") {
		t.Errorf("sandboxed curl reached the server's own service through its interface address %s: %q", self, got)
	}
	np2 := *np
	np2.AllowLocalhost = true
	j.set("t", np2)
	s2 := sandboxSnapshot(t, domain.ModeSupervised, &np2)
	if r := runIn(t, s2, p, "t", curl, "-sS", "--max-time", "10", "http://self.example.test:"+port+"/"); string(r.Stdout) != "host-service" {
		t.Fatalf("control with allow_localhost: %q %q", r.Stdout, r.Stderr)
	}
}
