package main

import (
	"flag"
	"fmt"
	"io"
	"net/url"
	"strconv"

	"github.com/google/uuid"

	"turnstile/api"
	"turnstile/domain/eventcodec"
	"turnstile/domain/eventstore"
	"turnstile/domain/turn"
)

// fetchEvents pages through a turn's raw history.
func (c *client) fetchEvents(turnID string) ([]eventstore.RecordedEvent, error) {
	var out []eventstore.RecordedEvent
	for from := 0; ; {
		var page struct {
			Events []api.StoredEvent `json:"events"`
			Next   *int              `json:"next"`
		}
		if _, err := c.do("GET", "/v1/turns/"+url.PathEscape(turnID)+"/events?limit=10000&from="+strconv.Itoa(from), nil, &page); err != nil {
			return nil, err
		}
		for _, e := range page.Events {
			id, err := uuid.Parse(e.EventID)
			if err != nil {
				return nil, fmt.Errorf("event %d: bad id %q", e.Version, e.EventID)
			}
			pos, _ := eventstore.ParsePosition(e.Position)
			out = append(out, eventstore.RecordedEvent{ID: id, Stream: turn.StreamName(turnID), Revision: uint64(e.Version),
				Position: pos, Type: e.Type, Data: e.Data, Metadata: e.Metadata})
		}
		switch {
		case page.Next != nil && *page.Next > from:
			from = *page.Next // a page cut by its bytes, or a full one
			continue
		case page.Next != nil || len(page.Events) < 10000:
			return out, nil
		}
		from += len(page.Events) // a server that names no next page
	}
}

func replayCmd(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("replay", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var cf clientFlags
	cf.register(fs)
	at := fs.Int64("at", -1, "replay up to this version (default: the latest)")
	asJSON := fs.Bool("json", false, "print JSON")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: turnstile replay TURN_ID [--at VERSION] [--json]\n\nFolds the turn's stored events (fetched from the server) up to a version and prints\nits status, profile, security snapshot and pending approvals as of that version.\n\nflags:")
		fs.PrintDefaults()
	}
	if err := fs.Parse(reorder(args)); err != nil {
		return flagExit(err)
	}
	if fs.NArg() != 1 {
		if fs.NArg() == 0 {
			fmt.Fprint(stderr, "turnstile replay: missing TURN_ID (the turn to replay)\n\n")
		} else {
			fmt.Fprintf(stderr, "turnstile replay: one TURN_ID, got %d arguments\n\n", fs.NArg())
		}
		fs.Usage()
		return 2
	}
	c, err := cf.client()
	if err != nil {
		fmt.Fprintln(stderr, "turnstile replay:", err)
		return 1
	}
	id := fs.Arg(0)
	recs, err := c.fetchEvents(id)
	if err != nil {
		fmt.Fprintln(stderr, "turnstile replay:", err)
		return 1
	}
	s := turn.NewState(id)
	for i := range recs {
		if *at >= 0 && int64(recs[i].Revision) > *at {
			break
		}
		e, err := eventcodec.Decode(&recs[i])
		if err != nil {
			fmt.Fprintln(stderr, "turnstile replay:", err)
			return 1
		}
		turn.Evolve(s, &e)
	}
	if *at > s.Version {
		fmt.Fprintf(stderr, "turnstile replay: turn %s has no version %d (latest is %d)\n", id, *at, s.Version)
		return 1
	}
	type pending struct {
		RequestID  string `json:"request_id"`
		ToolCallID string `json:"tool_call_id"`
		ToolName   string `json:"tool_name"`
		Action     string `json:"action"`
		Summary    string `json:"summary"`
		ExpiresAt  string `json:"expires_at"`
	}
	var open []pending
	for _, r := range s.OpenApprovals() {
		open = append(open, pending{r.Request.RequestID, r.ToolCallID, r.Action.ToolName, string(r.Action.Kind), r.Request.Summary, r.ExpiresAt.Format("2006-01-02T15:04:05Z07:00")})
	}
	if *asJSON {
		printJSON(stdout, map[string]any{"turn_id": id, "version": s.Version, "status": s.Status, "snapshot_version": s.SnapshotVersion,
			"security_snapshot": s.Snapshot, "pending_approvals": open, "grants": len(s.Grants)})
		return 0
	}
	snap := s.Snapshot
	fmt.Fprintf(stdout, "turn %s at version %d: %s\n", shown(id), s.Version, s.Status)
	fmt.Fprintf(stdout, "profile: %s (%s), snapshot from version %d\n", snap.PermissionProfile.Mode, snap.PermissionProfile.Source, s.SnapshotVersion)
	fmt.Fprintf(stdout, "sandbox: %s, network %s, enforcement %s\n", snap.Sandbox.Mode, snap.Network.Mode, snap.Enforcement.Status)
	fmt.Fprintf(stdout, "grants for the turn: %d\n", len(s.Grants))
	fmt.Fprintf(stdout, "pending approvals: %d\n", len(open))
	for _, p := range open {
		fmt.Fprintf(stdout, "  %s  %s  %s  (expires %s)\n", shown(p.RequestID), p.Action, shown(p.Summary), p.ExpiresAt)
	}
	return 0
}

// reorder moves flags after positional arguments to the front, so that
// "replay ID --at 3" parses like "replay --at 3 ID".
func reorder(args []string) []string {
	var flags, pos []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			pos = append(pos, args[i+1:]...)
			break
		}
		if len(a) > 1 && a[0] == '-' {
			flags = append(flags, a)
			if !hasValue(a) && i+1 < len(args) && !isBoolFlag(a) {
				flags = append(flags, args[i+1])
				i++
			}
			continue
		}
		pos = append(pos, a)
	}
	return append(flags, pos...)
}

func hasValue(a string) bool {
	for i := range a {
		if a[i] == '=' {
			return true
		}
	}
	return false
}

func isBoolFlag(a string) bool {
	switch a {
	case "-json", "--json", "-all", "--all", "-quiet", "--quiet", "-h", "--help", "-help":
		return true
	}
	return false
}
