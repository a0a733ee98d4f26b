package tests

import (
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"
)

// TestAttack54SignInShareHeldByTheAgent: the console's sign-in (POST
// /ui/session) reads its body, no credential having authenticated it yet,
// against the share of the body budget that every unauthenticated request
// shares, an eighth of --max-body-memory (api/ui.go consoleSignIn:
// chargeBodyTo(r, domain.Principal{}); api/bodybudget.go chargeBodyTo: one
// counter for Role "" and Name "", whoMax = max/8). The agent needs no
// credential to send such a body, and a sign-in body may be up to 8 KiB
// (maxSignInBytes) held for as long as the read timeout lets the
// connection trickle. So the agent opens sign-ins it never finishes until
// the shared eighth is full (32 MiB by default: about 4,100 connections of
// 8 KiB; here, with --max-body-memory 400000, seven) and every person's
// sign-in is then refused 503 server_busy ("this credential's request
// bodies in flight hold its share"): nobody can sign in to the console to
// answer the agent's approval requests for as long as the agent keeps the
// connections trickling.
//
// The sixteenth review put the sign-in into that share so that
// the agent could not take the whole budget (TestAttack16SignInBodies-
// OutsideEveryShare); its control only checked a sign-in next to two
// bodies cut at 8 KiB, never a share the agent filled.
//
// Since the fix, the console sends the token as "Authorization: Bearer"
// (a header, bounded with every request's), and a sign-in so needs no
// share of the body budget; the person signs in that way here.
//
// Secure outcome: a person's sign-in is answered while the agent holds
// unauthenticated bodies (its own share is the agent's to exhaust, not
// the person's). Control: the same sign-in before the agent's bodies.
//
// Severity: low (availability of the approval channel; the agent gains
// no answer of its own).
func TestAttack54SignInShareHeldByTheAgent(t *testing.T) {
	t.Parallel()
	const budget = 400_000 // an eighth: 50,000 bytes for every unauthenticated body
	s := StartServer(t, "", "--max-body-memory", strconv.Itoa(budget))
	approver := roCreate(t, s, "person", "approver")
	held := func() int64 {
		_, body := s.Request("GET", "/metrics", nil)
		for _, line := range strings.Split(string(body), "\n") {
			if v, ok := strings.CutPrefix(line, "turnstile_request_body_bytes_held "); ok {
				n, _ := strconv.ParseFloat(v, 64)
				return int64(n)
			}
		}
		return -1
	}
	// The person signs in as the console does: the token in a header
	// (api/ui/app.js), no body.
	signIn := func() (int, string) {
		req, err := http.NewRequest("POST", s.URL+"/ui/session", nil)
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Authorization", "Bearer "+approver)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	if st, b := signIn(); st != http.StatusOK {
		t.Fatalf("control: the person's sign-in before the agent's bodies: %d %s", st, b)
	}

	// The agent: sign-ins with no credential, an unfinished JSON string each,
	// left open. Six of 8,000 bytes and one of 1,950: 49,950 of the 50,000.
	var total int64
	for i, n := range []int{8000, 8000, 8000, 8000, 8000, 8000, 1950} {
		pr, pw := io.Pipe()
		t.Cleanup(func() { pw.Close() })
		req, err := http.NewRequest("POST", s.URL+"/ui/session", pr)
		if err != nil {
			t.Fatal(err)
		}
		done := make(chan int, 1)
		go func() {
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				done <- -1
				return
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			done <- resp.StatusCode
		}()
		go io.WriteString(pw, `{"token":"`+strings.Repeat("x", n-len(`{"token":"`)))
		total += int64(n)
		pollUntil(t, fmt.Sprintf("the agent's sign-in body %d is held", i), func() bool {
			select {
			case st := <-done:
				t.Fatalf("premise: the agent's unfinished sign-in %d was answered %d", i, st)
			default:
			}
			return held() >= total
		})
	}

	if st, b := signIn(); st != http.StatusOK {
		t.Errorf("the person's sign-in while the agent holds unfinished sign-ins (%d bytes of bodies no credential sent) was refused: %d %s", held(), st, b)
	}
}
