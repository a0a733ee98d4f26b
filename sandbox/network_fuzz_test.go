package sandbox

import (
	"errors"
	"fmt"
	"net/netip"
	"regexp"
	"strings"
	"testing"

	"turnstile/domain"
)

// FuzzCheckURLRules checks, for any host and rule:
//   - a "d" rule allows only d and its dot-bounded subdomains (no suffix
//     attack), a "=h" rule only h, an origin rule only its scheme, host
//     and effective port;
//   - the verdict does not change with the host's case or one trailing dot;
//   - the same rule also denied always refuses (denied first);
//   - the matcher agrees with domain.DomainRuleCovers on well-formed rules.
func FuzzCheckURLRules(f *testing.F) {
	for _, s := range [][3]string{
		{"example.com", "example.com", "https"}, {"badexample.com", "example.com", "https"},
		{"a.example.com", "example.com", "http"}, {"example.com.", "=example.com", "https"},
		{"EXAMPLE.com", "=https://example.com:8443", "https"}, {"example.com:8443", "=https://example.com:8443", "https"},
		{"example.com:443", "=https://example.com", "https"}, {"example.com", "=http://example.com", "https"},
		{"[::1]", "=::1", "http"}, {"[::ffff:127.0.0.1]", "=127.0.0.1", "http"}, {"xn--bcher-kva.ch", "ch", "https"},
		{"a.b", "b.", "https"}, {"example.com..", "example.com", "https"}, {".example.com", "example.com", "https"},
		{"exampl%65.com", "example.com", "https"}, {"example.com\t", "example.com", "https"},
		{"[fe80::1%25eth0]", "=fe80::1", "http"}, {"10.0.0.1", "=10.0.0.1", "http"}, {"2130706433", "=127.0.0.1", "http"},
	} {
		f.Add(s[0], s[1], s[2] == "https")
	}
	wellFormed := regexp.MustCompile(`^(=|\*\.|\*\*\.)?(https?://)?[a-z0-9-]+(\.[a-z0-9-]+)*(:[1-9][0-9]{0,4})?$`)
	f.Fuzz(func(t *testing.T, hostport, rule string, https bool) {
		scheme := "http"
		if https {
			scheme = "https"
		}
		raw := scheme + "://" + hostport + "/p"
		np := domain.NetworkPolicy{Mode: domain.NetworkRestricted, AllowedDomains: []string{rule}, AllowLocalhost: true, AllowPrivateNetworks: true}
		err := CheckURL(netSnapshot(np), raw)
		var r *Refusal
		if err != nil && !errors.As(err, &r) {
			t.Fatalf("non-Refusal error: %v", err)
		}
		tg, perr := parseURLTarget(raw)
		if err == nil {
			if perr != nil {
				t.Fatalf("allowed an unparsable URL %q", raw)
			}
			pr, perr2 := domain.ParseNetRule(rule)
			if perr2 != nil {
				t.Fatalf("allowed %q under a malformed rule %q", raw, rule)
			}
			switch pr.Kind {
			case domain.RuleOrigin:
				if tg.Scheme != pr.Scheme || tg.Host != pr.Host || tg.Port != pr.Port {
					t.Fatalf("origin rule %q allowed %q", rule, raw)
				}
			case domain.RuleExact:
				if tg.Host != pr.Host {
					t.Fatalf("exact rule %q allowed %q", rule, raw)
				}
			case domain.RuleSubdomains:
				if !strings.HasSuffix(tg.Host, "."+pr.Host) {
					t.Fatalf("rule %q allowed %q (host %q), not a subdomain", rule, raw, tg.Host)
				}
			default:
				if tg.Host != pr.Host && !strings.HasSuffix(tg.Host, "."+pr.Host) {
					t.Fatalf("rule %q allowed %q (host %q) without a dot boundary", rule, raw, tg.Host)
				}
			}
			// Denied first: the same rule denied refuses.
			both := np
			both.DeniedDomains = []string{rule}
			if CheckURL(netSnapshot(both), raw) == nil {
				t.Fatalf("rule %q both allowed and denied: %q allowed", rule, raw)
			}
		}
		// Case and one trailing dot do not change the verdict.
		if h, port, found := strings.Cut(hostport, ":"); !strings.Contains(hostport, "[") && !strings.ContainsAny(hostport, "/?#@\\%") {
			variant := strings.ToUpper(h)
			if !strings.HasSuffix(h, ".") {
				variant += "."
			}
			if found {
				variant += ":" + port
			}
			err2 := CheckURL(netSnapshot(np), scheme+"://"+variant+"/p")
			if (err == nil) != (err2 == nil) {
				t.Fatalf("%q: %v but %q: %v", hostport, err, variant, err2)
			}
		}
		// Agreement with the domain core: the rule allows the target exactly
		// when it covers the origin rule naming the target.
		if perr == nil && wellFormed.MatchString(strings.ToLower(rule)) {
			if pr, err := domain.ParseNetRule(rule); err == nil {
				y := fmt.Sprintf("=%s://%s:%d", tg.Scheme, tg.Host, tg.Port)
				if tg.Addr.Is6() {
					y = fmt.Sprintf("=%s://[%s]:%d", tg.Scheme, tg.Host, tg.Port)
				}
				if got, want := pr.Matches(tg, false), domain.DomainRuleCovers(rule, y); got != want {
					t.Fatalf("rule %q on %s: Matches %v, DomainRuleCovers %v", rule, y, got, want)
				}
			}
		}
	})
}

// FuzzIPForms: every spelling of one IPv4 address (dotted, decimal, hex,
// octal, short, IPv4-mapped and NAT64 IPv6) gets the same verdict, and a
// loopback or private address is never allowed without its flag.
func FuzzIPForms(f *testing.F) {
	for _, v := range []uint32{0x7f000001, 0x0a000001, 0xa9fea9fe, 0x5db8d822, 0, 0x64400001, 0xc0a80101, 0xffffffff} {
		f.Add(v)
	}
	f.Fuzz(func(t *testing.T, v uint32) {
		a := netip.AddrFrom4([4]byte{byte(v >> 24), byte(v >> 16), byte(v >> 8), byte(v)})
		b := a.As4()
		forms := []string{
			a.String(), fmt.Sprint(v), fmt.Sprintf("0x%x", v), fmt.Sprintf("0%o", v),
			fmt.Sprintf("%d.%d", b[0], v&0xffffff), fmt.Sprintf("0x%x.0%o.%d", b[0], b[1], uint32(b[2])<<8|uint32(b[3])),
			"[::ffff:" + a.String() + "]", fmt.Sprintf("[64:ff9b::%x:%x]", uint16(v>>16), uint16(v)),
		}
		np := domain.NetworkPolicy{Mode: domain.NetworkEnabled}
		cls := classifyAddr(a)
		for _, h := range forms {
			err := CheckURL(netSnapshot(np), "http://"+h+"/")
			if v == 0 && strings.HasPrefix(h, "0") && h != a.String() && h != "0" {
				continue // "00", "0x0": not every resolver reads these
			}
			switch cls {
			case classPublic:
				if err != nil && !strings.HasPrefix(h, "[64:ff9b") {
					t.Fatalf("%s (%s) refused: %v", h, a, err)
				}
			default:
				if err == nil {
					t.Fatalf("%s (%s, %s) allowed without its flag", h, a, cls)
				}
			}
		}
	})
}
