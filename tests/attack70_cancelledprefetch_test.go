package tests

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"net/http"
	"strings"
	"testing"
)

// TestAttack70CancelledPrefetchLooksUpUnderTheLock: a decision whose
// lookup before the lock the agent cancels looks its host up again, under
// the turn's lock, for the whole lookup bound — the wait the sixty-seventh
// review's fix was to take off the turn's lock.
//
// Severity: low (each such call holds the turn's lock for one
// --dns-timeout again, as before the fix; a person's answer queued on the
// lock gets it next, but the agent repeats it at will, and half of its
// calls win the lock).
//
// Attack: the agent sends a WebFetch of a host whose name server never
// answers and closes its connection once the lookup is under way.
// DecisionChecker.Prefetch (sandbox/lookupcache.go) runs under the
// request's context: cancelled, LookupCache.LookupNetIP keeps nothing ("the
// caller gave up"). execute (domain/engine/execute.go) then takes the
// turn's lock again with that cancelled context: en.lock's select has both
// cases ready and picks one at random, and half the time it takes the
// lock; the command, marked LookedUp, is decided again, pendingLookup lets
// it through, and DecisionChecker.CheckURL looks the host up under the
// lock with context.Background and the whole --dns-timeout (the cache has
// no answer). The test cancels calls one at a time, each followed by a
// call of the same turn that needs no lookup (it waits for the lock, so
// once it is answered the cancelled call's outcome is settled), until a
// cancelled call's host has been looked up again.
//
// Control: a call of a silent host left to finish is looked up once (its
// failure is kept and read under the lock).
//
// Suggested fix: after Prefetch, give up when ctx has ended (check ctx.Err()
// before en.lock, as en.lock's select does not), or let the check under
// the lock never look up when LookedUp is set (CheckURLStatic plus the
// cached answer only, a missing one refused host_unresolved), or look up
// under a context detached from the caller's so that the answer is always
// kept.
func TestAttack70CancelledPrefetchLooksUpUnderTheLock(t *testing.T) {
	t.Parallel()
	pc, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pc.Close() })
	log := &queryLog{PacketConn: pc}
	const attempts = 24
	silent := []string{"control.silent.example.org"}
	for i := range attempts {
		silent = append(silent, fmt.Sprintf("c%d.silent.example.org", i))
	}
	dns := serveDNS(log, nil, silent...)
	ws := workspace(t)
	s := ccServer(t, ws, "full_access", nil, "--dns-server", dns, "--dns-timeout", "1s")
	rt := roAs(s, roCreate(t, s, "cc-agent", "runtime"))
	const session = "sess-cancel"
	fetch := func(id, url string) []byte {
		return ccEdit(t, ccPayload(t, "pre_webfetch", session, ws), map[string]any{"tool_use_id": id,
			"tool_input": map[string]any{"url": url, "prompt": "read it"}})
	}
	rt.hookHTTP(ccPayload(t, "user_prompt_submit", session, ws))
	// settle is a call of the turn that needs no lookup: answered, every
	// command of the turn queued before it has let the lock go.
	n := 0
	settle := func() {
		n++
		if got := rt.hookHTTP(fetch(fmt.Sprintf("toolu_settle%d", n), "https://93.184.216.34/")); !strings.Contains(got, `"permissionDecision"`) {
			t.Fatalf("a call with no lookup: %s", got)
		}
	}

	// Control: a call of a silent host left to finish.
	if got := rt.hookHTTP(fetch("toolu_control", "https://control.silent.example.org/")); !strings.Contains(got, "host_unresolved") {
		t.Fatalf("control: a silent host's call: %s", got)
	}
	settle()
	once := log.asked("control.silent.example.org")
	if once == 0 {
		t.Fatal("control: the silent host was not looked up")
	}

	for i := range attempts {
		host := fmt.Sprintf("c%d.silent.example.org", i)
		ctx, cancel := context.WithCancel(context.Background())
		req, _ := http.NewRequestWithContext(ctx, "POST", s.URL+"/v1/hooks/claude-code", bytes.NewReader(fetch(fmt.Sprintf("toolu_c%d", i), "https://"+host+"/")))
		req.Header.Set("Authorization", "Bearer "+rt.Token)
		req.Header.Set("Content-Type", "application/json")
		done := make(chan struct{})
		go func() {
			defer close(done)
			if resp, err := (&http.Client{Transport: &http.Transport{DisableKeepAlives: true}}).Do(req); err == nil {
				resp.Body.Close()
			}
		}()
		pollUntil(t, "the lookup of "+host+" under way", func() bool { return log.asked(host) >= once })
		cancel()
		<-done
		settle()
		if got := log.asked(host); got > once {
			t.Fatalf("a call whose lookup before the lock was cancelled had its host looked up again (%d queries, %d for a whole lookup), under the turn's lock, at attempt %d", got, once, i)
		}
	}
}
