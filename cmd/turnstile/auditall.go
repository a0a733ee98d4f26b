package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"turnstile/api"
	"turnstile/domain/turn"
)

// verifyAll runs `audit verify --all` on the server (GET /v1/audit/verify:
// one pass over the store, where the events are), printing progress on
// stderr and the usual report on stdout, and checks the recorded heads.
// ok is false when the server has no such endpoint (an older server): the
// caller then verifies turn by turn.
func (c *client) verifyAll(heads heads, headsFile string, quiet bool, stdout, stderr io.Writer) (code int, ok bool) {
	req, err := http.NewRequest("GET", c.base+"/v1/audit/verify", nil)
	if err != nil {
		fmt.Fprintln(stderr, "turnstile audit:", err)
		return 1, true
	}
	req.Header.Set("Authorization", "Bearer "+c.token)
	// The walk of a large store may take longer than a client's usual
	// timeout; progress lines keep coming while it runs.
	resp, err := (&http.Client{Transport: c.http.Transport}).Do(req)
	if err != nil {
		fmt.Fprintln(stderr, "turnstile audit:", c.unreachable(err))
		return 1, true
	}
	defer resp.Body.Close()
	if resp.StatusCode == http.StatusNotFound || resp.StatusCode == http.StatusMethodNotAllowed {
		return 0, false
	}
	if resp.StatusCode != http.StatusOK {
		var e struct {
			Error apiError `json:"error"`
		}
		b, _ := io.ReadAll(resp.Body)
		if json.Unmarshal(b, &e) == nil && e.Error.Code != "" {
			e.Error.Status = resp.StatusCode
			fmt.Fprintln(stderr, "turnstile audit:", &e.Error)
		} else {
			fmt.Fprintf(stderr, "turnstile audit: HTTP %d: %s\n", resp.StatusCode, b)
		}
		return 1, true
	}
	start := time.Now()
	progress := func(p *api.VerifyProgress) {
		if !quiet {
			fmt.Fprintf(stderr, "\rverified %d events of %d turns (%.0f events/s)", p.Events, p.Turns, float64(p.Events)/max(time.Since(start).Seconds(), 1e-3))
		}
	}
	endProgress := func() {
		if !quiet {
			fmt.Fprintln(stderr)
		}
	}
	seen := map[string]bool{}
	rd := bufio.NewReaderSize(resp.Body, 1<<16)
	for {
		line, err := rd.ReadBytes('\n')
		if err != nil {
			endProgress()
			fmt.Fprintf(stderr, "turnstile audit: the server's verification ended early: %v\n", err)
			return 1, true
		}
		var l api.VerifyLine
		if err := json.Unmarshal(line, &l); err != nil {
			endProgress()
			fmt.Fprintf(stderr, "turnstile audit: a bad line from the server: %v\n", err)
			return 1, true
		}
		switch {
		case l.Progress != nil:
			progress(l.Progress)
		case l.Error != nil:
			endProgress()
			fmt.Fprintf(stderr, "turnstile audit: %s (%s)\n", l.Error.Message, l.Error.Code)
			return 1, true
		case l.Tampered != nil:
			endProgress()
			t := l.Tampered
			fmt.Fprintf(stdout, "TAMPERED: turn %s, %s\n", t.TurnID, t.Message)
			return 1, true
		case l.Head != nil:
			h := l.Head
			seen[h.TurnID] = true
			if err := c.checkHead(heads, h); err != nil {
				endProgress()
				fmt.Fprintf(stdout, "TAMPERED: turn %s, %s\n", h.TurnID, describeTamper(nil, err))
				return 1, true
			}
			heads[h.TurnID] = head{Version: h.Version, Hash: h.Hash}
		case l.Done != nil:
			progress(l.Done)
			endProgress()
			for id := range heads {
				if !seen[id] {
					fmt.Fprintf(stdout, "TAMPERED: turn %s, a head was recorded at version %d but the store holds none of its events: the turn was removed\n", id, heads[id].Version)
					return 1, true
				}
			}
			return verified(heads, headsFile, l.Done.Turns, l.Done.Events, stdout, stderr), true
		}
	}
}

// checkHead compares a turn's recorded head with the store: the same
// version must hash the same (a grown turn: the event at the recorded
// version is fetched and hashed).
func (c *client) checkHead(heads heads, h *api.VerifyHead) error {
	old, ok := heads[h.TurnID]
	if !ok {
		return nil
	}
	if h.Version < old.Version {
		return &headError{fmt.Sprintf("the turn has %d events but a head was recorded at version %d: events were removed", h.Version+1, old.Version)}
	}
	got := h.Hash
	if h.Version > old.Version {
		var page struct {
			Events []api.StoredEvent `json:"events"`
		}
		if _, err := c.do("GET", "/v1/turns/"+url.PathEscape(h.TurnID)+"/events?limit=1&from="+strconv.FormatInt(old.Version, 10), nil, &page); err != nil {
			return err
		}
		if len(page.Events) != 1 {
			return &headError{fmt.Sprintf("version %d, where a head was recorded, is missing", old.Version)}
		}
		e := page.Events[0]
		got = turn.HashOf(e.Metadata, e.Data)
		if got != old.Hash {
			return &headError{fmt.Sprintf("first bad event at version %d (%s %s): it no longer hashes to the head recorded earlier", old.Version, e.Type, e.EventID)}
		}
		return nil
	}
	if got != old.Hash {
		return &headError{fmt.Sprintf("first bad event at version %d: it no longer hashes to the head recorded earlier", old.Version)}
	}
	return nil
}
