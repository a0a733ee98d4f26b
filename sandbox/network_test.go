package sandbox

import (
	"errors"
	"net/netip"
	"slices"
	"testing"

	"turnstile/domain"
)

// netSnapshot returns a supervised snapshot whose network policy is np.
func netSnapshot(np domain.NetworkPolicy) *domain.TurnExecutionSecuritySnapshot {
	return &domain.TurnExecutionSecuritySnapshot{Network: np}
}

func wantCode(t *testing.T, err error, code string) {
	t.Helper()
	if code == "" {
		if err != nil {
			t.Fatalf("refused: %v", err)
		}
		return
	}
	var r *Refusal
	if !errors.As(err, &r) || r.Code != code {
		t.Fatalf("got %v, want %s", err, code)
	}
}

func TestCheckURL(t *testing.T) {
	restricted := domain.NetworkPolicy{Mode: domain.NetworkRestricted,
		AllowedDomains: []string{"example.com", "=exact.org", "=https://api.port.io:8443", "=http://plain.io", "=10.1.2.3", "=[fd00::5]", "*.wild.dev"},
		DeniedDomains:  []string{"bad.example.com", "*.evil.net"}}
	withLocal := restricted
	withLocal.AllowLocalhost = true
	withLocal.AllowedDomains = append(withLocal.AllowedDomains, "localhost", "=127.0.0.1", "=::1")
	enabled := domain.NetworkPolicy{Mode: domain.NetworkEnabled}
	enabledAll := domain.NetworkPolicy{Mode: domain.NetworkEnabled, AllowLocalhost: true, AllowPrivateNetworks: true}
	disabled := domain.NetworkPolicy{Mode: domain.NetworkDisabled, AllowedDomains: []string{"example.com"}}
	cases := []struct {
		name string
		np   domain.NetworkPolicy
		url  string
		code string
	}{
		{"apex", restricted, "https://example.com/x", ""},
		{"subdomain", restricted, "https://a.b.example.com/x", ""},
		{"suffix attack", restricted, "https://badexample.com/", CodeHostNotAllowed},
		{"suffix attack 2", restricted, "https://example.com.evil.io/", CodeHostNotAllowed},
		{"case and trailing dot", restricted, "HTTPS://WWW.Example.COM./", ""},
		{"spaces", restricted, "  https://example.com/  ", ""},
		{"double trailing dot", restricted, "https://example.com../", CodeNetworkInvalidURL},
		{"empty label", restricted, "https://a..example.com/", CodeNetworkInvalidURL},
		{"denied subdomain first", restricted, "https://bad.example.com/", CodeHostDenied},
		{"denied deeper", restricted, "https://x.bad.example.com/", CodeHostDenied},
		{"denied wildcard covers apex", restricted, "https://evil.net/", CodeHostDenied},
		{"exact host", restricted, "http://exact.org:9999/", ""},
		{"exact host not sub", restricted, "https://www.exact.org/", CodeHostNotAllowed},
		{"origin rule", restricted, "https://api.port.io:8443/v1", ""},
		{"origin rule wrong port", restricted, "https://api.port.io/v1", CodeHostNotAllowed},
		{"origin rule wrong scheme", restricted, "http://api.port.io:8443/v1", CodeHostNotAllowed},
		{"origin rule default port", restricted, "http://plain.io:80/", ""},
		{"origin rule default port mismatch", restricted, "http://plain.io:8080/", CodeHostNotAllowed},
		{"wildcard sub", restricted, "https://a.wild.dev/", ""},
		{"wildcard not apex", restricted, "https://wild.dev/", CodeHostNotAllowed},
		{"scheme ftp", restricted, "ftp://example.com/", CodeNetworkUnsupportedScheme},
		{"scheme file", restricted, "file:///etc/passwd", CodeNetworkUnsupportedScheme},
		{"no host", restricted, "https:///x", CodeNetworkInvalidURL},
		{"opaque", restricted, "https:example.com", CodeNetworkInvalidURL},
		{"bad port", restricted, "https://example.com:0/", CodeNetworkInvalidURL},
		{"non-ascii host", restricted, "https://exämple.com/", CodeNetworkInvalidURL},
		{"userinfo trick", restricted, "https://example.com@evil.io/", CodeHostNotAllowed},
		{"disabled", disabled, "https://example.com/", CodeNetworkDisabled},
		{"unknown mode fails closed", domain.NetworkPolicy{}, "https://example.com/", CodeNetworkDisabled},
		{"enabled public", enabled, "https://anything.io/", ""},
		{"localhost", enabled, "http://localhost:8080/", CodeLocalhostNotAllowed},
		{"localhost dot case", enabled, "http://LOCALHOST./", CodeLocalhostNotAllowed},
		{"sub.localhost", enabled, "http://api.localhost/", CodeLocalhostNotAllowed},
		{"loopback v4", enabled, "http://127.0.0.1/", CodeLocalhostNotAllowed},
		{"loopback v4 other", enabled, "http://127.8.9.10/", CodeLocalhostNotAllowed},
		{"loopback decimal", enabled, "http://2130706433/", CodeLocalhostNotAllowed},
		{"loopback hex", enabled, "http://0x7f000001/", CodeLocalhostNotAllowed},
		{"loopback short", enabled, "http://127.1/", CodeLocalhostNotAllowed},
		{"loopback octal", enabled, "http://0177.0.0.1/", CodeLocalhostNotAllowed},
		{"zero address", enabled, "http://0.0.0.0:80/", CodeLocalhostNotAllowed},
		{"zero short", enabled, "http://0/", CodeLocalhostNotAllowed},
		{"loopback v6", enabled, "http://[::1]/", CodeLocalhostNotAllowed},
		{"loopback v6 long", enabled, "http://[0:0:0:0:0:0:0:1]/", CodeLocalhostNotAllowed},
		{"unspecified v6", enabled, "http://[::]/", CodeLocalhostNotAllowed},
		{"mapped loopback", enabled, "http://[::ffff:127.0.0.1]/", CodeLocalhostNotAllowed},
		{"mapped loopback hex", enabled, "http://[::ffff:7f00:1]/", CodeLocalhostNotAllowed},
		{"nat64 loopback", enabled, "http://[64:ff9b::7f00:1]/", CodeLocalhostNotAllowed},
		{"v4-compatible loopback", enabled, "http://[::127.0.0.1]/", CodeLocalhostNotAllowed},
		{"private 10", enabled, "http://10.0.0.1/", CodePrivateAddress},
		{"private 172", enabled, "http://172.16.5.4/", CodePrivateAddress},
		{"private 192.168", enabled, "http://192.168.1.1/", CodePrivateAddress},
		{"cgnat", enabled, "http://100.64.0.1/", CodePrivateAddress},
		{"link-local", enabled, "http://169.254.1.1/", CodePrivateAddress},
		{"metadata", enabled, "http://169.254.169.254/latest/meta-data/", CodePrivateAddress},
		{"metadata decimal", enabled, "http://2852039166/", CodePrivateAddress},
		{"metadata v6", enabled, "http://[fd00:ec2::254]/", CodePrivateAddress},
		{"metadata name", enabled, "http://metadata.google.internal./", CodePrivateAddress},
		{"ula", enabled, "http://[fc00::1]/", CodePrivateAddress},
		{"link-local v6 zone", enabled, "http://[fe80::1%25eth0]/", CodePrivateAddress},
		{"mapped private", enabled, "http://[::ffff:10.0.0.1]/", CodePrivateAddress},
		{"nat64 metadata", enabled, "http://[64:ff9b::a9fe:a9fe]/", CodePrivateAddress},
		{"6to4 private", enabled, "http://[2002:0a00:0001::1]/", CodePrivateAddress},
		{"public v4", enabled, "http://93.184.216.34/", ""},
		{"public v6", enabled, "http://[2606:2800:220:1:248:1893:25c8:1946]/", ""},
		{"all allowed", enabledAll, "http://169.254.169.254/", ""},
		{"all allowed localhost", enabledAll, "http://[::1]:9/", ""},
		{"private via exact rule", restricted, "http://10.1.2.3/", ""},
		{"private v6 via exact rule", restricted, "http://[fd00::5]/", ""},
		{"private not named", restricted, "http://10.1.2.4/", CodeHostNotAllowed},
		{"localhost needs flag even with rule", restricted, "http://127.0.0.1/", CodeLocalhostNotAllowed},
		{"localhost with flag and rule", withLocal, "http://127.0.0.1:8080/", ""},
		{"localhost name with flag and rule", withLocal, "http://localhost:8080/", ""},
		{"mapped localhost with flag and rule", withLocal, "http://[::ffff:127.0.0.1]/", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			wantCode(t, CheckURL(netSnapshot(c.np), c.url), c.code)
		})
	}
	wantCode(t, CheckURL(nil, "https://example.com/"), CodeNoSnapshot)
}

func TestCheckAddr(t *testing.T) {
	restricted := domain.NetworkPolicy{Mode: domain.NetworkRestricted, AllowedDomains: []string{"example.com", "=intranet.corp", "=https://svc.corp:8443"}, DeniedDomains: []string{"=6.6.6.6"}}
	withAddr := restricted
	withAddr.AllowedDomains = append(slices.Clone(restricted.AllowedDomains), "=10.0.0.7")
	cases := []struct {
		name string
		np   domain.NetworkPolicy
		host string
		ip   string
		port int
		code string
	}{
		{"public", restricted, "www.example.com", "93.184.216.34", 443, ""},
		{"rebinding to loopback", restricted, "www.example.com", "127.0.0.1", 443, CodeLocalhostNotAllowed},
		{"rebinding to mapped loopback", restricted, "www.example.com", "::ffff:127.0.0.1", 443, CodeLocalhostNotAllowed},
		{"rebinding to metadata", restricted, "www.example.com", "169.254.169.254", 80, CodePrivateAddress},
		{"rebinding to private", restricted, "www.example.com", "192.168.0.10", 80, CodePrivateAddress},
		// REFERENCE §10: only an allow rule naming the address opens a
		// private one; a rule naming the host does not open whatever it
		// resolves to (an attack review: a profile's plain domain is an
		// exact rule, and its DNS may be the agent's to choose).
		{"exact name rule does not open private", restricted, "intranet.corp", "10.0.0.7", 80, CodePrivateAddress},
		{"origin rule does not open private", restricted, "svc.corp", "10.0.0.8", 8443, CodePrivateAddress},
		{"exact address rule opens private", withAddr, "intranet.corp", "10.0.0.7", 80, ""},
		{"exact address rule opens only itself", withAddr, "intranet.corp", "10.0.0.9", 80, CodePrivateAddress},
		{"host's own interface address", domain.NetworkPolicy{Mode: domain.NetworkEnabled}, "self.example", hostAddrOf(t), 80, CodeLocalhostNotAllowed},
		{"host's own interface address with localhost", domain.NetworkPolicy{Mode: domain.NetworkEnabled, AllowLocalhost: true, AllowPrivateNetworks: true}, "self.example", hostAddrOf(t), 80, ""},
		{"documentation range", domain.NetworkPolicy{Mode: domain.NetworkEnabled}, "doc.example", "198.51.100.7", 80, CodePrivateAddress},
		{"origin rule other port", restricted, "svc.corp", "10.0.0.8", 443, CodeHostNotAllowed},
		{"denied resolved address", restricted, "www.example.com", "6.6.6.6", 443, CodeHostDenied},
		{"not allowed name", restricted, "other.io", "1.1.1.1", 443, CodeHostNotAllowed},
		{"disabled", domain.NetworkPolicy{Mode: domain.NetworkDisabled}, "example.com", "1.1.1.1", 443, CodeNetworkDisabled},
		{"localhost allowed", domain.NetworkPolicy{Mode: domain.NetworkEnabled, AllowLocalhost: true}, "localhost", "127.0.0.1", 8080, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			wantCode(t, CheckAddr(netSnapshot(c.np), c.host, netip.MustParseAddr(c.ip), c.port), c.code)
		})
	}
}

func TestParseInetAton(t *testing.T) {
	for in, want := range map[string]string{
		"127.0.0.1": "127.0.0.1", "127.1": "127.0.0.1", "2130706433": "127.0.0.1", "0x7f000001": "127.0.0.1",
		"0177.0.0.01": "127.0.0.1", "10.1.65535": "10.1.255.255", "0": "0.0.0.0", "0x7f.1": "127.0.0.1",
		// A bare "0x" is 0 to the WHATWG URL parser (Node's fetch, Rust's url).
		"0x": "0.0.0.0", "0x7f.0x.0x.1": "127.0.0.1",
	} {
		a, ok := domain.ParseInetAton(in)
		if !ok || a.String() != want {
			t.Errorf("domain.ParseInetAton(%q) = %v, %v; want %s", in, a, ok, want)
		}
	}
	for _, in := range []string{"256.0.0.1", "1.2.3.4.5", "0xg", "1.2.3.256", "4294967296", "08", "abc", "1..2", ""} {
		if a, ok := domain.ParseInetAton(in); ok {
			t.Errorf("domain.ParseInetAton(%q) = %v, want refusal", in, a)
		}
	}
}
