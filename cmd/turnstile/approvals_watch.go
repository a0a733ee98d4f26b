package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"turnstile/api"
	"turnstile/domain"
	"turnstile/domain/turn"
	"turnstile/projections"
)

// approvalsWatch subscribes to the server's event stream, then lists the
// requests already pending (so none opened in between is missed: the
// stream, subscribed first, carries every later one), and prints each
// request as it opens and as it is resolved until the stream ends.
func approvalsWatch(c *client, turnID string, asJSON bool, stdout, stderr io.Writer) int {
	q := url.Values{}
	if turnID != "" {
		q.Set("turn_id", turnID)
	}
	req, err := http.NewRequest("GET", c.base+"/v1/events?"+q.Encode(), nil)
	if err != nil {
		fmt.Fprintln(stderr, "turnstile approvals watch:", err)
		return 1
	}
	req.Header.Set("Authorization", "Bearer "+c.token)
	req.Header.Set("Accept", "text/event-stream")
	resp, err := (&http.Client{Transport: c.http.Transport}).Do(req) // no timeout: the stream lasts
	if err != nil {
		fmt.Fprintln(stderr, "turnstile approvals watch:", c.unreachable(err))
		return 1
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		body, _ := io.ReadAll(resp.Body)
		var e struct {
			Error apiError `json:"error"`
		}
		if json.Unmarshal(body, &e) == nil && e.Error.Code != "" {
			e.Error.Status = resp.StatusCode
			if resp.StatusCode == http.StatusUnauthorized {
				e.Error.Message += "; the token came from " + c.tokenSource
			}
			fmt.Fprintln(stderr, "turnstile approvals watch:", &e.Error)
		} else {
			fmt.Fprintf(stderr, "turnstile approvals watch: HTTP %d: %s\n", resp.StatusCode, strings.TrimSpace(string(body)))
		}
		return 1
	}
	rd := bufio.NewReader(resp.Body)
	// The server writes a comment once it has subscribed.
	if _, err := rd.ReadString('\n'); err != nil {
		fmt.Fprintln(stderr, "turnstile approvals watch: the event stream ended:", err)
		return 1
	}
	seen := map[string]bool{}
	pending, err := c.approvals("pending", turnID)
	if err != nil {
		fmt.Fprintln(stderr, "turnstile approvals watch:", err)
		return 1
	}
	w := &watchPrinter{out: stdout, json: asJSON}
	if !asJSON {
		fmt.Fprintf(stdout, "watching %s for approval requests (%d pending); Ctrl-C to stop\n", c.base, len(pending))
	}
	for i := range pending {
		seen[pending[i].Request.RequestID] = true
		w.opened(&pending[i])
	}
	var event, data string
	for {
		line, err := rd.ReadString('\n')
		if err != nil {
			if err == io.EOF {
				fmt.Fprintln(stderr, "turnstile approvals watch: the server closed the event stream")
				return 1
			}
			fmt.Fprintln(stderr, "turnstile approvals watch:", err)
			return 1
		}
		line = strings.TrimRight(line, "\r\n")
		switch {
		case strings.HasPrefix(line, "event:"):
			event = strings.TrimSpace(strings.TrimPrefix(line, "event:"))
		case strings.HasPrefix(line, "data:"):
			data += strings.TrimSpace(strings.TrimPrefix(line, "data:"))
		case line == "":
			w.notification(event, data, seen)
			event, data = "", ""
		}
	}
}

// watchPrinter prints what `approvals watch` sees.
type watchPrinter struct {
	out  io.Writer
	json bool
}

// notification handles one SSE message.
func (w *watchPrinter) notification(event, data string, seen map[string]bool) {
	if event != api.MethodRequestOpened && event != api.MethodRequestResolved {
		return
	}
	var n struct {
		Params struct {
			TurnID     string               `json:"turn_id"`
			Request    turn.ApprovalRequest `json:"request"`
			RequestID  string               `json:"request_id"`
			ToolCallID string               `json:"tool_call_id"`
			ExpiresAt  time.Time            `json:"expires_at"`
			Resolution domain.Resolution    `json:"resolution"`
			Reason     domain.Reason        `json:"reason"`
			Actor      domain.Actor         `json:"actor"`
		} `json:"params"`
	}
	if json.Unmarshal([]byte(data), &n) != nil {
		return
	}
	p := &n.Params
	if event == api.MethodRequestOpened {
		if seen[p.Request.RequestID] {
			return
		}
		seen[p.Request.RequestID] = true
		w.opened(&projections.ApprovalView{Request: p.Request, ToolCallID: p.ToolCallID, Status: projections.ApprovalPending, ExpiresAt: p.ExpiresAt})
		return
	}
	if w.json {
		fmt.Fprintln(w.out, data)
		return
	}
	by := "the server"
	if p.Actor.Name != "" {
		by = p.Actor.Name + " (" + string(p.Actor.Role) + ")"
	}
	fmt.Fprintf(w.out, "resolved %s: %s by %s (turn %s)\n\n", shown(p.RequestID), shown(string(p.Resolution)), shown(by), shown(p.TurnID))
}

// opened prints a pending request.
func (w *watchPrinter) opened(a *projections.ApprovalView) {
	if w.json {
		b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "method": api.MethodRequestOpened, "params": map[string]any{
			"turn_id": a.Request.TurnID, "request": a.Request, "tool_call_id": a.ToolCallID, "expires_at": a.ExpiresAt}})
		fmt.Fprintln(w.out, string(b))
		return
	}
	printApproval(w.out, a, time.Now())
	fmt.Fprintln(w.out)
}
