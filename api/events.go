package api

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"github.com/go-chi/chi/v5"

	"turnstile/domain"
	"turnstile/domain/eventcodec"
	"turnstile/domain/eventstore"
	"turnstile/domain/turn"
	"turnstile/projections"
)

// StoredEvent is one event of a turn's raw history, with the exact stored
// metadata and data (so a client can recompute the hash chain).
type StoredEvent struct {
	Version       int64        `json:"version"`
	Position      string       `json:"position"`
	EventID       string       `json:"event_id"`
	Type          string       `json:"type"`
	SchemaVersion int          `json:"schema_version"`
	OccurredAt    time.Time    `json:"occurred_at"`
	Actor         domain.Actor `json:"actor,omitzero"`
	CorrelationID string       `json:"correlation_id,omitempty"`
	PrevHash      string       `json:"prev_hash"`
	Hash          string       `json:"hash"`
	Metadata      rawJSON      `json:"metadata"`
	Data          rawJSON      `json:"data"`
}

func (s *Server) turnEvents(w http.ResponseWriter, r *http.Request) {
	id := chi.URLParam(r, "turn_id")
	if err := checkID("turn_id", id); err != nil {
		writeError(w, err)
		return
	}
	if err := s.authorizeTurn(r, domain.OpTurnHistory, id); err != nil {
		writeError(w, err)
		return
	}
	from, err := intParam(r.URL.Query().Get("from"), "from", 0, 1<<31-1)
	if err != nil {
		writeError(w, err)
		return
	}
	limit, err := intParam(r.URL.Query().Get("limit"), "limit", 1000, 10000)
	if err != nil {
		writeError(w, err)
		return
	}
	if limit == 0 {
		limit = 10000 // the store's "no bound", bounded by the page's bytes
	}
	pageBytes := s.eventsPageBytes()
	recs, err := s.readPage(r.Context(), turn.StreamName(id), uint64(from), limit, pageBytes)
	if err != nil {
		writeError(w, err)
		return
	}
	if len(recs) == 0 && from == 0 {
		writeError(w, &turn.NotFoundError{Kind: "turn", ID: id})
		return
	}
	out := make([]StoredEvent, 0, len(recs))
	size, cut := 0, false
	for i := range recs {
		if size += pageCost(&recs[i]); size > pageBytes && i > 0 {
			cut = true // the rest on the next page
			break
		}
		e, err := eventcodec.Decode(&recs[i])
		if err != nil {
			writeError(w, err)
			return
		}
		out = append(out, StoredEvent{
			Version: e.Version, Position: recs[i].Position.String(), EventID: e.ID.String(), Type: e.Type, SchemaVersion: e.SchemaVersion,
			OccurredAt: e.OccurredAt, Actor: e.Actor, CorrelationID: e.CorrelationID, PrevHash: e.PrevHash, Hash: e.Hash,
			Metadata: recs[i].Metadata, Data: recs[i].Data,
		})
	}
	if len(out) == 1 {
		if wb, ok := w.(wholeBudgetAnswer); ok {
			wb.answerFromWholeBudget()
		}
	}
	page := map[string]any{"turn_id": id, "from": from, "events": out}
	if len(out) > 0 && (cut || len(out) == limit) {
		page["next"] = from + len(out)
	}
	writeJSON(w, http.StatusOK, page)
}

// maxEventsPageBytes bounds the stored bytes of one page of a turn's
// events (at least one event is given): a turn of large events came back
// whole in one page of the limit's 10,000 events, past the request's share
// of --max-body-memory, and every answer was a 503 (the
// hundred-and-fifty-third review). A page that may not be the last names
// the next one's "from" as "next".
const maxEventsPageBytes = 8 << 20

// eventFieldsBytes is about what an event's answer adds to its stored
// data and metadata (its version, ids, type, times and hashes as JSON).
const eventFieldsBytes = 512

// pageCost is what an event takes of a page's bytes.
func pageCost(r *eventstore.RecordedEvent) int {
	return len(r.Data) + len(r.Metadata) + eventFieldsBytes
}

// eventsPageBytes bounds a page's bytes: maxEventsPageBytes, or a quarter
// of --max-body-memory when that is less (half a principal's share, which
// holds the answer while it is written): under a small budget a turn of
// large events came back as 503 server_busy at every read, and its audit
// and replay never succeeded.
func (s *Server) eventsPageBytes() int {
	if s.bodies == nil {
		return maxEventsPageBytes
	}
	return int(min(int64(maxEventsPageBytes), s.bodies.max/4))
}

// pageChunk is how many events readPage reads from the store at a time.
const pageChunk = 64

// readPage reads up to limit events of stream from from, in chunks, and
// stops after the chunk that passes pageBytes: a page of large events is
// not read whole (up to the limit's 10,000) only to be cut (the
// hundred-and-fifty-fifth review). A chunk bounds what is read past the
// page's bytes to pageChunk events (a larger first read would let a turn
// of small events followed by large ones hold thousands of the large).
func (s *Server) readPage(ctx context.Context, stream string, from uint64, limit, pageBytes int) ([]eventstore.RecordedEvent, error) {
	var out []eventstore.RecordedEvent
	size := 0
	for len(out) < limit && size <= pageBytes {
		n := min(pageChunk, limit-len(out))
		recs, err := s.cfg.Store.ReadStream(ctx, stream, from+uint64(len(out)), n)
		if err != nil {
			return nil, err
		}
		for i := range recs {
			size += pageCost(&recs[i])
		}
		out = append(out, recs...)
		if len(recs) < n {
			break
		}
	}
	return out, nil
}

// Notification methods of the event stream (and of JSON-RPC notifications).
const (
	MethodTurnStarted     = "turn/started"
	MethodRequestOpened   = "turn/permission/request/opened"
	MethodRequestResolved = "turn/permission/request/resolved"
	MethodAudit           = "turn/permission/audit"
	MethodTurnCompleted   = "turn/completed"
	MethodTurnInterrupted = "turn/interrupted"
	MethodTurnFailed      = "turn/failed"
)

// notification maps a stored event to its notification: one per event.
func notification(e *turn.Event) (string, map[string]any) {
	p := map[string]any{"turn_id": e.TurnID, "version": e.Version, "occurred_at": e.OccurredAt}
	switch ev := e.Payload.(type) {
	case *turn.TurnStarted:
		p["workspace_id"], p["thread_id"] = ev.WorkspaceID, ev.ThreadID
		if ev.ParentTurnID != "" {
			p["parent_turn_id"] = ev.ParentTurnID
		}
		if len(ev.Input) > 0 {
			p["input"] = ev.Input
		}
		return MethodTurnStarted, p
	case *turn.ApprovalRequested:
		p["request"], p["tool_call_id"], p["expires_at"] = ev.Request, ev.ToolCallID, ev.ExpiresAt
		return MethodRequestOpened, p
	case *turn.ApprovalResolved:
		p["request_id"], p["tool_call_id"], p["resolution"], p["reason"], p["actor"] = ev.RequestID, ev.ToolCallID, ev.Resolution, ev.Reason, e.Actor
		return MethodRequestResolved, p
	case *turn.TurnCompleted:
		p["status"], p["reason"] = turn.StatusCompleted, ev.Reason
		return MethodTurnCompleted, p
	case *turn.TurnInterrupted:
		p["status"], p["reason"] = turn.StatusInterrupted, ev.Reason
		return MethodTurnInterrupted, p
	case *turn.TurnFailed:
		p["status"], p["reason"] = turn.StatusFailed, ev.Reason
		return MethodTurnFailed, p
	case *turn.DecisionAllowed:
		auditParams(p, "decision_allowed", &ev.Decided)
	case *turn.DecisionDenied:
		auditParams(p, "decision_denied", &ev.Decided)
	case *turn.ProfileSelected:
		p["kind"], p["profile_mode"], p["profile_source"] = "profile_selected", ev.Profile.Mode, ev.Profile.Source
	case *turn.SecuritySnapshotResolved:
		p["kind"], p["enforcement"] = "security_snapshot_resolved", ev.Snapshot.Enforcement
	case *turn.ProfileChanged:
		p["kind"], p["profile_mode"], p["enforcement"] = "profile_changed", ev.Profile.Mode, ev.Snapshot.Enforcement
		p["profile"], p["snapshot_version"] = ev.Profile.Profile, e.Version
		if ev.Confirmed {
			// The permissions did not change: who asked for them did.
			p["confirmed"] = true
			delete(p, "snapshot_version")
		}
	case *turn.ToolCompleted:
		p["kind"], p["tool_call_id"], p["tool_name"], p["decision"] = projections.AuditToolCompleted, ev.ToolCallID, ev.Action.ToolName, ev.Decision
		p["request_key"] = projections.RequestKey{ActionKind: ev.Action.Kind, ScopeHash: ev.Action.ScopeHash}
	case *turn.ExecStarted:
		p["kind"], p["tool_call_id"] = "exec_started", ev.ToolCallID
	case *turn.ExecFinished:
		p["kind"], p["tool_call_id"], p["exit_code"], p["timed_out"] = "exec_finished", ev.ToolCallID, ev.ExitCode, ev.TimedOut
		p["stopped"] = ev.Stopped
		if len(ev.Quarantined) > 0 {
			p["quarantined"] = ev.Quarantined
		}
		if len(ev.CheckLimits) > 0 {
			p["check_limits"] = ev.CheckLimits
		}
	case *turn.ChildTurnStarted:
		p["kind"], p["child_turn_id"] = "child_turn_started", ev.ChildTurnID
	case *turn.EgressTraffic:
		p["kind"], p["origin"], p["connections"], p["bytes_up"], p["bytes_down"] = projections.AuditEgressTraffic, ev.Origin, ev.Connections, ev.BytesUp, ev.BytesDown
	}
	return MethodAudit, p
}

func auditParams(p map[string]any, kind string, d *turn.Decided) {
	p["kind"], p["tool_call_id"], p["item_id"], p["tool_name"] = kind, d.ToolCallID, d.ItemID, d.Action.ToolName
	p["request_key"] = projections.RequestKey{ActionKind: d.Action.Kind, ScopeHash: d.Action.ScopeHash}
	p["decision"], p["reason"], p["cached"] = d.Decision.Behavior.String(), d.Decision.Reason, d.Decision.Cached
	if d.Refusal != "" {
		p["refusal"] = d.Refusal
	}
}

// events streams notifications as Server-Sent Events, each after its event is
// durable, with the store position as its id; Last-Event-ID resumes.
func (s *Server) events(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	turnFilter, wsFilter := q.Get("turn_id"), q.Get("workspace_id")
	p := principalOf(r)
	if wsFilter != "" {
		if err := p.AuthorizeIn(domain.OpEventsSubscribe, wsFilter); err != nil {
			writeError(w, err)
			return
		}
	}
	if turnFilter != "" {
		if err := s.authorizeTurn(r, domain.OpEventsSubscribe, turnFilter); err != nil {
			writeError(w, err)
			return
		}
	}
	from, beyond, catchUp := eventstore.Start, false, true
	last := r.Header.Get("Last-Event-ID")
	if last == "" {
		last = q.Get("last_event_id")
	}
	if last != "" {
		p, err := eventstore.ParsePosition(last)
		if err != nil {
			writeError(w, errorf(http.StatusBadRequest, "invalid_field", map[string]any{"field": "Last-Event-ID", "value": last}, "Last-Event-ID %q is not a position", last))
			return
		}
		from = p
		beyond = s.beyondLog(r.Context(), from)
	} else {
		switch f := q.Get("from"); f {
		case "start":
		case "", "now":
			catchUp = false // only what happens from now on
		default:
			writeError(w, &domain.InvalidEnumError{Field: "from", Value: f, Allowed: []string{"start", "now"}})
			return
		}
	}
	flusher, ok := s.streamable(w, r)
	if !ok {
		return
	}
	s.metrics.sse.Add(1)
	defer s.metrics.sse.Add(-1)
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.Header().Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	sw := &sseWriter{w: w, flusher: flusher, filter: sseFilter{turn: turnFilter, workspace: wsFilter, p: p}, sent: from}
	if beyond {
		// A position past the log's end names no event this log holds (a
		// client of another store, or a made-up id): following it would
		// wait silently for events that may never be numbered so.
		sseError(sw, "invalid_last_event_id",
			fmt.Sprintf("Last-Event-ID %s is beyond the end of the event log (last position %s): reconnect without it, after listing what you need (GET /v1/approvals carries the position to resume from)", last, s.cfg.Projector.Position()),
			map[string]any{"last_event_id": last, "position": s.cfg.Projector.Position().String()})
		return
	}
	if catchUp {
		fmt.Fprintf(w, ": turnstile events from %s\n\n", from)
		flusher.Flush()
	}
	s.stream(r, sw, catchUp)
}

// workspaceOf is the workspace of a turn the stream has not seen start:
// from the read models, else from the turn's first event in the store.
func (s *Server) workspaceOf(ctx context.Context, known map[string]string, turnID string) string {
	if ws, ok := known[turnID]; ok {
		return ws
	}
	if ws, ok, err := s.turnWorkspace(ctx, turnID); err == nil && ok {
		known[turnID] = ws
		return ws
	}
	return ""
}

// beyondLog reports whether from lies past the last event the read models
// have applied, after waiting for them as long as a command would (another
// instance may have appended it a moment ago).
func (s *Server) beyondLog(ctx context.Context, from eventstore.Position) bool {
	if !s.cfg.Projector.Position().Less(from) {
		return false
	}
	ctx, cancel := context.WithTimeout(ctx, s.cfg.ProjectionWait)
	defer cancel()
	return s.cfg.Projector.WaitFor(ctx, from) != nil
}

// streamable returns w's Flusher when w can stream and the store answers;
// otherwise it has written the error (500, or the store's) and returns
// false.
func (s *Server) streamable(w http.ResponseWriter, r *http.Request) (http.Flusher, bool) {
	flusher, ok := w.(http.Flusher)
	if !ok {
		writeError(w, errorf(http.StatusInternalServerError, "internal", nil, "streaming unsupported"))
		return nil, false
	}
	if err := s.cfg.Store.Ping(r.Context()); err != nil {
		writeError(w, err)
		return nil, false
	}
	return flusher, true
}
