package egress

import (
	"io"
	"net"
	"net/http"
	"net/netip"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"turnstile/domain"
	"turnstile/sandbox"
)

// TestAttack40AzureWireServerByName: under an allow-list, a cloud metadata
// address is opened only by a rule naming it exactly, never by a rule
// naming a host that resolves to it nor by allow_private_networks
// (README, "Each connection is judged"; sandbox/netrules.go's
// metadataAddrs: AWS, GCP, Azure, OpenStack, Alibaba, ECS, EKS, Tencent).
// Azure's other host endpoint, the WireServer at 168.63.129.16 (a public
// address, reachable from every Azure VM), is missing: it hands a VM's
// agent its goal state, extension configuration and their protected
// settings (the certificates to decrypt them are asked for from the same
// address), which is what the metadata class keeps from a command. It is
// classified public, so any allowed name that resolves to it opens it.
//
// The test puts 168.63.129.16 in a network namespace of its own behind a
// veth pair (not an address of this host: its route is unicast, as on an
// Azure VM), serves HTTP there, and asks the proxy for
// http://wire.allowed.test/ under an allow-list of **.allowed.test.
//
// Fixed would look like: 168.63.129.16 joins metadataAddrs (classified
// cloud-metadata: opened by a rule naming that address only), in the
// sandbox's classifier and in domain's specialHost (profiles explain).
//
// Severity: low (Azure hosts only, and it needs an allowed name that
// resolves to that address, e.g. a wildcard over a domain whose records
// the agent can set).
//
// Controls: imds.allowed.test → 169.254.169.254 is refused private_address
// (the class works); an allow rule naming 168.63.129.16 itself reaches the
// server (the setup routes; that stays allowed after a fix).
func TestAttack40AzureWireServerByName(t *testing.T) {
	wire := netip.MustParseAddr("168.63.129.16")
	serveRouted(t, "r40wire", wire, 80, "wireserver goal state")

	res := &mapResolver{m: map[string][]netip.Addr{
		"wire.allowed.test": {wire},
		"imds.allowed.test": {netip.MustParseAddr("169.254.169.254")},
	}}
	j := newSnapJudge()
	j.set("named", domain.NetworkPolicy{Mode: domain.NetworkRestricted, AllowedDomains: []string{"**.allowed.test"}})
	j.set("literal", domain.NetworkPolicy{Mode: domain.NetworkRestricted, AllowedDomains: []string{"=168.63.129.16"}})
	p := NewProxy(j, res)
	addr := startProxy(t, p)
	named, literal := proxyClient(p.ProxyURL(addr, "named")), proxyClient(p.ProxyURL(addr, "literal"))

	if code, h, _ := get(t, named, "http://imds.allowed.test/"); code != http.StatusForbidden || h.Get(HeaderRefusal) != sandbox.CodePrivateAddress {
		t.Fatalf("control: an allowed name resolving to 169.254.169.254: %d %q, want 403 private_address", code, h.Get(HeaderRefusal))
	}
	if code, h, body := get(t, literal, "http://168.63.129.16/"); code != http.StatusOK || body != "wireserver goal state" {
		t.Fatalf("control: a rule naming 168.63.129.16 does not reach the server in the namespace: %d %q %q", code, h.Get(HeaderRefusal), body)
	}
	code, h, body := get(t, named, "http://wire.allowed.test/")
	if code != http.StatusForbidden || h.Get(HeaderRefusal) != sandbox.CodePrivateAddress {
		t.Errorf("wire.allowed.test → 168.63.129.16 (Azure's WireServer) under **.allowed.test: %d %q %q; want 403 private_address, as 169.254.169.254: an allowed name opened a cloud host endpoint no rule names", code, h.Get(HeaderRefusal), body)
	}
}

// serveRouted serves body over HTTP on addr:port in a network namespace of
// its own (ns), reached from the test's namespace through a veth pair and
// a route to addr: an address of another host (its route is unicast), as
// a cloud's host endpoints are to a VM. It needs root; everything it
// creates goes with the test.
func serveRouted(t *testing.T, ns string, addr netip.Addr, port int, body string) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("needs root: a network namespace and a veth pair")
	}
	host, peer := ns+"0", ns+"1"
	run := func(args ...string) {
		t.Helper()
		if out, err := exec.Command(args[0], args[1:]...).CombinedOutput(); err != nil {
			t.Fatalf("%s: %v: %s", strings.Join(args, " "), err, out)
		}
	}
	exec.Command("ip", "netns", "del", ns).Run() // a leftover of an interrupted run
	run("ip", "netns", "add", ns)
	t.Cleanup(func() { exec.Command("ip", "netns", "del", ns).Run() })
	run("ip", "link", "add", host, "type", "veth", "peer", "name", peer, "netns", ns)
	t.Cleanup(func() { exec.Command("ip", "link", "del", host).Run() })
	fam, plen := "-4", "/32"
	if addr.Is6() {
		// No duplicate address detection: the addresses are usable at once
		// (no wait for them).
		fam, plen = "-6", "/128"
		run("sysctl", "-qw", "net.ipv6.conf."+host+".accept_dad=0")
		run("ip", "netns", "exec", ns, "sysctl", "-qw", "net.ipv6.conf.default.accept_dad=0")
		run("ip", "netns", "exec", ns, "sysctl", "-qw", "net.ipv6.conf."+peer+".accept_dad=0")
	}
	run("ip", "link", "set", host, "up")
	if addr.Is6() {
		// IPv6 answers a neighbour solicitation only for an address of the
		// interface it came in on: the test's side needs one of its own,
		// which the route below makes the source.
		run("ip", "-6", "addr", "add", "fd40:40::1/128", "dev", host, "nodad")
	}
	run("ip", fam, "route", "add", addr.String()+plen, "dev", host)
	run("ip", "-n", ns, "link", "set", "lo", "up")
	run("ip", "-n", ns, "link", "set", peer, "up")
	if addr.Is6() {
		run("ip", "-n", ns, "-6", "addr", "add", addr.String()+plen, "dev", peer, "nodad")
	} else {
		run("ip", "-n", ns, "addr", "add", addr.String()+plen, "dev", peer)
	}
	run("ip", "-n", ns, fam, "route", "add", "default", "dev", peer)

	// Listen on addr:port inside the namespace, from a locked thread.
	runtime.LockOSThread()
	orig, err := os.Open("/proc/thread-self/ns/net")
	if err != nil {
		t.Fatal(err)
	}
	defer orig.Close()
	target, err := os.Open("/run/netns/" + ns)
	if err != nil {
		t.Fatal(err)
	}
	defer target.Close()
	if err := unix.Setns(int(target.Fd()), unix.CLONE_NEWNET); err != nil {
		t.Fatal(err)
	}
	ln, lerr := net.Listen("tcp", netip.AddrPortFrom(addr, uint16(port)).String())
	if err := unix.Setns(int(orig.Fd()), unix.CLONE_NEWNET); err != nil {
		t.Fatalf("back to the test's namespace: %v", err) // the thread stays locked
	}
	runtime.UnlockOSThread()
	if lerr != nil {
		t.Fatal(lerr)
	}
	t.Cleanup(func() { ln.Close() })
	go http.Serve(ln, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, body) }))
}
