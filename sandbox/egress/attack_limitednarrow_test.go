package egress

import (
	"strings"
	"testing"
	"time"

	"turnstile/domain"
)

// TestAttackNarrowingToLimitedKeepsTunnel: a CONNECT tunnel is refused
// under limited (the method inside TLS cannot be seen), but a tunnel opened
// before a mid-turn narrowing to limited stays open: the watcher re-judges
// open tunnels with CheckAddr only (track.go, watch), which knows nothing of
// AllowedMethods. The agent opens a tunnel early and keeps POSTing through
// it after the person narrowed the turn to read-only methods. Wanted: the
// narrowing closes it, as it closes a tunnel whose host it denies. Control:
// the tunnel works before the narrowing, and a new CONNECT after it is
// refused (the narrowing is in force).
func TestAttackNarrowingToLimitedKeepsTunnel(t *testing.T) {
	echo := echoServer(t)
	j := newSnapJudge()
	np := domain.NetworkPolicy{Mode: domain.NetworkRestricted, AllowLocalhost: true, AllowedDomains: []string{"=127.0.0.1"}}
	j.set("t", np)
	p := NewProxy(j, &mapResolver{})
	p.Recheck = 20 * time.Millisecond
	seen := make(chan int64, 64)
	p.rechecked = func(turnID string, v int64) {
		select {
		case seen <- v:
		default:
		}
	}
	addr := startProxy(t, p)
	conn, br, st := dialConnect(t, addr, "t", p.Credential("t"), echo)
	if !strings.HasPrefix(st, "200") {
		t.Fatalf("CONNECT before the narrowing: %s", st)
	}
	if got, err := echoOnce(conn, br, "before"); err != nil || got != "before\n" {
		t.Fatalf("tunnel before the narrowing (control): %q %v", got, err)
	}

	lim := np
	lim.AllowedMethods = []string{"GET", "HEAD", "OPTIONS"}
	j.set("t", lim) // version 2: limited
	for v := int64(0); v < 2; {
		select {
		case v = <-seen:
		case <-time.After(10 * time.Second):
			t.Fatal("the watcher never judged the narrowed snapshot")
		}
	}
	if _, _, st := dialConnect(t, addr, "t", p.Credential("t"), echo); !strings.HasPrefix(st, "403") || !strings.Contains(st, "method_not_allowed") {
		t.Fatalf("a new CONNECT after the narrowing (control): %s, want 403 method_not_allowed", st)
	}
	if got, err := echoOnce(conn, br, "POST /upload HTTP/1.1"); err == nil {
		t.Errorf("the tunnel opened before the narrowing to limited still carries %q: a tunnel (any method) outlives the narrowing", strings.TrimSpace(got))
	}
}
