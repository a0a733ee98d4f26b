package egress

import (
	"strings"
	"testing"
	"time"

	"turnstile/domain"
)

// TestOpenTunnelRecordedWhileOpen: a tunnel that stays open has the bytes
// it carried recorded window by window while it is open (a summary of a
// turn that ended with it would be dropped, and its bytes never recorded),
// and counted once as a connection when it closes, its bytes not twice.
func TestOpenTunnelRecordedWhileOpen(t *testing.T) {
	j := newSnapJudge()
	j.set("t", domain.NetworkPolicy{Mode: domain.NetworkEnabled, AllowLocalhost: true})
	p := NewProxy(j, &mapResolver{})
	p.FlushEvery, p.Recheck = 20*time.Millisecond, 5*time.Millisecond
	addr, echo := startProxy(t, p), echoServer(t)
	c, br, st := dialConnect(t, addr, "t", p.Credential("t"), echo)
	if !strings.HasPrefix(st, "200") {
		t.Fatalf("CONNECT: %s", st)
	}
	msg := strings.Repeat("x", 99)
	if got, err := echoOnce(c, br, msg); err != nil || got != msg+"\n" {
		t.Fatalf("echo: %q %v", got, err)
	}
	recorded := func() (conns, up, down int64) {
		j.mu.Lock()
		defer j.mu.Unlock()
		for _, tr := range j.recorded["t"] {
			conns, up, down = conns+int64(tr.Connections), up+tr.BytesUp, down+tr.BytesDown
		}
		return
	}
	waitFor(t, "the open tunnel's bytes recorded", func() bool { _, up, down := recorded(); return up == 100 && down == 100 })
	if n, _, _ := recorded(); n != 0 || p.Open("t") != 1 {
		t.Fatalf("recorded %d connections while the tunnel is open (%d open), want 0 and 1", n, p.Open("t"))
	}
	c.Close()
	waitFor(t, "the closed tunnel counted", func() bool { n, _, _ := recorded(); return n == 1 })
	if _, up, down := recorded(); up != 100 || down != 100 {
		t.Fatalf("after the close: %d bytes up and %d down recorded in all, want 100 each (not twice)", up, down)
	}
}
