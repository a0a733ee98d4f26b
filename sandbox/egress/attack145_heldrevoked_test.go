package egress

import (
	"bufio"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"turnstile/domain"
)

// The hundred-and-forty-fifth review: a credential's revocation ends what
// it has open on every surface, and a wait for a person ends unanswered (an
// exec held with ?wait= answers 202 and runs nothing; a held hook is
// answered deny; a long poll ends credential_revoked). The egress proxy
// checks the credential of a connection once, when it arrives (serve:
// p.valid), and then re-checks only the connections it tracks (watch,
// every Recheck). A connection whose question waits for a person
// (Decide holds it, up to --egress-ask-wait) is not tracked yet: the
// revocation passes it by, and when the person answers allow (a person
// who does not know, or an allow_for_turn that another connection's
// question got), it is dialled, admitted (admit re-checks the snapshot,
// not the credential) and its request is carried upstream, for a
// credential revoked before that.
//
// Attack: the agent's proxy URL opens a connection whose question waits;
// the agent's credential is revoked; its tunnel already open is closed
// (the revocation is in force: the proxy saw it); then a person allows the
// question. The held request reaches the upstream with the revoked
// credential's URL. Control: the same, unrevoked (another credential's
// URL), goes through.

// holdJudge holds the decisions of one host until answered.
type holdJudge struct {
	*snapJudge
	host   string
	asked  chan string // the principal whose question waits
	answer chan struct{}
}

func (j *holdJudge) Decide(ctx context.Context, turnID, rawURL, method string) (Verdict, error) {
	if strings.Contains(rawURL, j.host) {
		j.asked <- ActorOf(ctx).Name
		select {
		case <-j.answer: // a person allowed it
		case <-ctx.Done():
			return Verdict{Code: "approval_pending"}, nil
		}
	}
	return j.snapJudge.Decide(ctx, turnID, rawURL, method)
}

func TestAttack145_HeldConnectionOfRevokedCredentialCarried(t *testing.T) {
	var mu sync.Mutex
	hits := map[string]bool{}
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		hits[r.URL.Path] = true
		mu.Unlock()
		io.WriteString(w, "upstream got "+r.URL.Path)
	}))
	t.Cleanup(up.Close)
	_, upPort, _ := net.SplitHostPort(up.Listener.Addr().String())
	echo, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { echo.Close() })
	go func() {
		for {
			c, err := echo.Accept()
			if err != nil {
				return
			}
			go func() { defer c.Close(); io.Copy(c, c) }()
		}
	}()
	_, echoPort, _ := net.SplitHostPort(echo.Addr().String())

	lo := []netip.Addr{netip.MustParseAddr("127.0.0.1")}
	res := &mapResolver{m: map[string][]netip.Addr{"held.example.test": lo, "echo.example.test": lo}}
	sj := newSnapJudge()
	sj.set("t1", domain.NetworkPolicy{Mode: domain.NetworkRestricted, AllowedDomains: []string{"**.example.test"}, AllowLocalhost: true})
	j := &holdJudge{snapJudge: sj, host: "held.example.test", asked: make(chan string, 4), answer: make(chan struct{})}
	p := NewProxy(j, res)
	p.AskWait = time.Minute
	var revoked atomic.Bool
	p.Valid = func(_ context.Context, by domain.Actor, credID string) error {
		if revoked.Load() && credID == "cred-agent" {
			return errors.New("the credential of " + by.String() + " was revoked")
		}
		return nil
	}
	addr := startProxy(t, p)
	agent := domain.Actor{Name: "agent", Role: domain.RoleRuntime}
	other := domain.Actor{Name: "other", Role: domain.RoleRuntime}

	type result struct {
		status int
		body   string
		err    error
	}
	heldGet := func(by domain.Actor, cred, path string) chan result {
		u, _ := url.Parse(p.ProxyURLFor(addr, "t1", by, cred))
		c := &http.Client{Transport: &http.Transport{Proxy: http.ProxyURL(u), DisableKeepAlives: true}, Timeout: 90 * time.Second}
		ch := make(chan result, 1)
		go func() {
			resp, err := c.Get("http://held.example.test:" + upPort + path)
			if err != nil {
				ch <- result{err: err}
				return
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			ch <- result{status: resp.StatusCode, body: resp.Header.Get(HeaderRefusal) + " " + string(b)}
		}()
		return ch
	}
	hit := func(path string) bool {
		mu.Lock()
		defer mu.Unlock()
		return hits[path]
	}

	t.Run("control", func(t *testing.T) {
		// A question held for a person, answered allow: carried.
		ch := heldGet(other, "cred-other", "/control")
		if who := <-j.asked; who != "other" {
			t.Fatalf("asked for %q", who)
		}
		j.answer <- struct{}{}
		r := <-ch
		if r.err != nil || r.status != http.StatusOK || !hit("/control") {
			t.Fatalf("control: an allowed held request of a valid credential: %+v (upstream hit %v)", r, hit("/control"))
		}
	})

	t.Run("attack", func(t *testing.T) {
		// The agent holds a tunnel open, and a question waiting.
		conn, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		pu, _ := url.Parse(p.ProxyURLFor(addr, "t1", agent, "cred-agent"))
		pass, _ := pu.User.Password()
		auth := base64.StdEncoding.EncodeToString([]byte(pu.User.Username() + ":" + pass))
		fmt.Fprintf(conn, "CONNECT echo.example.test:%s HTTP/1.1\r\nHost: echo.example.test:%s\r\nProxy-Authorization: Basic %s\r\n\r\n", echoPort, echoPort, auth)
		br := bufio.NewReader(conn)
		resp, err := http.ReadResponse(br, nil)
		if err != nil || resp.StatusCode != http.StatusOK {
			t.Fatalf("setup: the agent's tunnel: %v %v", resp, err)
		}
		// The first bytes of a tunnel are judged (a TLS hello or a plain
		// request); a line of no letters is carried as it comes.
		fmt.Fprintf(conn, "\x16\n")
		ch := heldGet(agent, "cred-agent", "/attack")
		if who := <-j.asked; who != "agent" {
			t.Fatalf("asked for %q", who)
		}

		// The agent's credential is revoked; the proxy closes its open
		// tunnel (the revocation is seen: the event this waits for).
		revoked.Store(true)
		conn.SetReadDeadline(time.Now().Add(30 * time.Second)) // a bound on the wait, not the assertion
		_, rerr := io.Copy(io.Discard, br)
		var ne net.Error
		if errors.As(rerr, &ne) && ne.Timeout() {
			t.Fatalf("setup: the revoked credential's tunnel was not closed")
		}

		// Then a person allows the waiting question.
		j.answer <- struct{}{}
		r := <-ch
		t.Logf("the revoked credential's held request after the allow: %d %q %v", r.status, r.body, r.err)
		if hit("/attack") || r.status == http.StatusOK {
			t.Errorf("a connection of a credential revoked while its question waited for a person was carried upstream once the question was allowed (%d %q; upstream hit %v): the proxy checks the credential when a connection arrives and on the connections it tracks, never after the wait",
				r.status, r.body, hit("/attack"))
		}
	})
}
