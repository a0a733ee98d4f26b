package api

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"sync/atomic"
	"time"

	"turnstile/domain"
	"turnstile/domain/eventcodec"
	"turnstile/domain/eventstore"
	"turnstile/domain/turn"
	"turnstile/internal/fanout"
)

// Server-Sent Events: one store subscription per process (the broadcaster,
// started with the first stream) decodes and encodes each event once; each
// client reads the shared frames, filtered by the metadata the frame
// carries (turn, workspace), never by decoding it again. A client that
// resumes (Last-Event-ID) or starts from the beginning first reads the store
// itself, once, up to the broadcast's position, then joins the broadcast.

// catchUpPage is how many events a resuming client reads at a time.
const catchUpPage = 512

// sseBatch is the most frames a client takes from the broadcast at once.
const sseBatch = 128

// knownWorkspacesMax bounds the broadcaster's turn → workspace cache; past
// it the cache starts over (a miss costs one read-model lookup).
const knownWorkspacesMax = 100_000

// beforeJoinHook, set by tests only, runs between a resuming client's bulk
// read of the store and its joining the broadcast: the hand-over boundary.
var beforeJoinHook atomic.Pointer[func(*http.Request)]

// broadcaster returns the process's broadcaster, starting it at the read
// models' position on first use. It stops when the server drains.
func (s *Server) broadcaster() *fanout.Broadcaster {
	s.fanOnce.Do(func() {
		known := map[string]string{}
		frames := s.metrics.sseFrames.WithLabelValues("broadcast")
		s.fan = fanout.New(fanout.Config{
			Store: s.cfg.Store, Prefix: turn.StreamPrefix, Buffer: s.cfg.SSEBuffer,
			From: s.cfg.Projector.Position(),
			Encode: func(ctx context.Context, rec *eventstore.RecordedEvent) (*fanout.Frame, error) {
				if len(known) > knownWorkspacesMax {
					clear(known)
				}
				f, err := s.encodeFrame(ctx, rec, known, true)
				if f != nil {
					frames.Inc()
				}
				return f, err
			},
			OnSlow:  s.metrics.sseSlow.Inc,
			OnError: func(err error) { s.log.Warn("event broadcast: subscription dropped, resuming", "err", err) },
		})
		ctx, cancel := context.WithCancel(context.Background())
		go func() { <-s.draining; cancel() }()
		go func() {
			if err := s.fan.Run(ctx); err != nil && ctx.Err() == nil && !errors.Is(err, eventstore.ErrClosed) {
				s.log.Error("event broadcast stopped", "err", err)
			}
		}()
	})
	return s.fan
}

// encodeFrame decodes a stored event and encodes its SSE frame, with the
// turn and workspace a client filters on. known caches turn → workspace
// (TurnStarted fills it); forget drops a turn once it has ended.
func (s *Server) encodeFrame(ctx context.Context, rec *eventstore.RecordedEvent, known map[string]string, forget bool) (*fanout.Frame, error) {
	if !isTurnStream(rec.Stream) {
		return nil, nil
	}
	e, err := eventcodec.DecodeUnhashed(rec)
	if err != nil {
		return nil, err
	}
	if st, ok := e.Payload.(*turn.TurnStarted); ok {
		known[e.TurnID] = st.WorkspaceID
	}
	ws := s.workspaceOf(ctx, known, e.TurnID)
	method, params := notification(&e)
	data, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "method": method, "params": params})
	if err != nil {
		return nil, err
	}
	pos := rec.Position.String()
	b := make([]byte, 0, len(data)+len(pos)+len(method)+24)
	b = append(b, "id: "...)
	b = append(b, pos...)
	b = append(b, "\nevent: "...)
	b = append(b, method...)
	b = append(b, "\ndata: "...)
	start := len(b)
	b = append(b, data...)
	msg := b[start:len(b):len(b)]
	b = append(b, "\n\n"...)
	switch e.Payload.(type) {
	case *turn.TurnCompleted, *turn.TurnInterrupted, *turn.TurnFailed:
		if forget {
			delete(known, e.TurnID)
		}
	}
	return &fanout.Frame{Position: rec.Position, TurnID: e.TurnID, Workspace: ws, Bytes: b, Message: msg}, nil
}

// join joins the broadcast: a stream of one turn gets that turn's frames
// queued for it, and is not woken by the others'.
func join(b *fanout.Broadcaster, turnID string) *fanout.Client {
	if turnID != "" {
		return b.JoinTurn(turnID)
	}
	return b.Join()
}

func isTurnStream(s string) bool {
	return len(s) > len(turn.StreamPrefix) && s[:len(turn.StreamPrefix)] == turn.StreamPrefix
}

// sseFilter is what one client's stream carries.
type sseFilter struct {
	turn, workspace string
	p               domain.Principal
}

// match reports whether the client sees f. A scoped credential's stream
// carries its workspaces only; a turn whose workspace is unknown is left out.
func (sf *sseFilter) match(f *fanout.Frame) bool {
	if sf.turn != "" && f.TurnID != sf.turn {
		return false
	}
	if sf.workspace != "" && f.Workspace != sf.workspace {
		return false
	}
	return !sf.p.Scoped() || sf.p.InScope(f.Workspace)
}

// sseWriter writes one client's stream and remembers the position of the
// last event it has passed (written or filtered out).
type sseWriter struct {
	w       http.ResponseWriter
	flusher http.Flusher
	filter  sseFilter
	sent    eventstore.Position
	buf     []byte // the frames of one batch, written at once
	// auth authenticates the client's credential again (stillAuthenticated);
	// a catch-up calls it before every page after the first.
	auth func(context.Context) error
	// rc sets each write's deadline, timeout from its start; once the
	// client is cut off (kicked), the grace's deadline stands.
	rc      *http.ResponseController
	timeout time.Duration
	kicked  atomic.Bool
}

// write writes b and flushes, each writeChunk of it within the write
// timeout: a client that stops reading ends its stream, in a catch-up or a
// turn's quiet as on the live stream, rather than hold its connection and
// what is being written; one that reads slowly but steadily keeps it.
func (sw *sseWriter) write(b []byte) error {
	for len(b) > 0 {
		n := min(len(b), writeChunk)
		if sw.rc != nil && !sw.kicked.Load() {
			_ = sw.rc.SetWriteDeadline(time.Now().Add(sw.timeout))
		}
		if _, err := sw.w.Write(b[:n]); err != nil {
			return err
		}
		b = b[n:]
	}
	sw.flusher.Flush()
	return nil
}

// writeChunk is the part of a write that must go out within the write
// timeout.
const writeChunk = 64 << 10

// frames writes the frames after sent that the client sees, in one write
// (one chunk, one system call for the batch), and flushes.
func (sw *sseWriter) frames(fs []*fanout.Frame) error {
	sw.buf = sw.buf[:0]
	for _, f := range fs {
		if !sw.sent.Less(f.Position) {
			continue // already passed (the store read overlapped the broadcast)
		}
		sw.sent = f.Position
		if f.Bytes == nil || !sw.filter.match(f) {
			continue
		}
		sw.buf = append(sw.buf, f.Bytes...)
	}
	if len(sw.buf) == 0 {
		return nil
	}
	if err := sw.write(sw.buf); err != nil {
		sw.buf = nil
		return err
	}
	if cap(sw.buf) > 256<<10 {
		sw.buf = nil // a burst's buffer is not kept by an idle client
	}
	return nil
}

// catchUp reads the store after sw.sent, up to and including upTo (the end
// of the log when upTo is nil), and writes what the client sees.
func (s *Server) catchUp(ctx context.Context, sw *sseWriter, known map[string]string, upTo *eventstore.Position) error {
	frames := s.metrics.sseFrames.WithLabelValues("catch_up")
	batch := make([]*fanout.Frame, 0, catchUpPage)
	for page := 0; ; page++ {
		select {
		case <-s.draining:
			return context.Canceled
		default:
		}
		// A client reading slowly stays in its catch-up, which reads up
		// to the end of the log: each page is read for a credential that
		// still authenticates, or the stream ends.
		if page > 0 && sw.auth != nil {
			if err := sw.auth(ctx); err != nil {
				return err
			}
		}
		recs, err := s.cfg.Store.ReadAll(ctx, sw.sent, catchUpPage)
		if err != nil {
			return err
		}
		batch = batch[:0]
		done := len(recs) < catchUpPage
		for i := range recs {
			if upTo != nil && upTo.Less(recs[i].Position) {
				done = true
				break
			}
			f, err := s.encodeFrame(ctx, &recs[i], known, false)
			if err != nil {
				return err
			}
			if f == nil {
				f = &fanout.Frame{Position: recs[i].Position}
			} else {
				frames.Inc()
			}
			batch = append(batch, f)
		}
		if err := sw.frames(batch); err != nil {
			return err
		}
		if len(batch) > 0 {
			sw.sent = batch[len(batch)-1].Position
		}
		if done {
			return nil
		}
	}
}

// sseError writes an error frame (no id: a client resuming keeps the last
// event id it got) and flushes.
func sseError(sw *sseWriter, code, message string, details map[string]any) {
	data, _ := json.Marshal(map[string]any{"error": map[string]any{"code": code, "message": message, "details": details}})
	_ = sw.write(fmt.Appendf(nil, "event: error\ndata: %s\n\n", data))
}

// stream serves one client: the store up to the broadcast (when it
// resumes), then the broadcast, until the client goes, the server drains,
// or the client falls too far behind.
func (s *Server) stream(r *http.Request, sw *sseWriter, catchUp bool) {
	ctx := r.Context()
	b := s.broadcaster()
	known := map[string]string{}
	sw.auth = func(ctx context.Context) error { return s.stillAuthenticated(ctx, r) }
	sw.rc, sw.timeout = http.NewResponseController(sw.w), s.cfg.SSEWriteTimeout
	if catchUp {
		// The bulk of a resume, before joining: the broadcast does not
		// hold frames for a client that is still reading history.
		if err := s.catchUp(ctx, sw, known, nil); err != nil {
			s.catchUpEnded(sw, err)
			return
		}
	}
	if hook := beforeJoinHook.Load(); hook != nil {
		(*hook)(r)
	}
	c := join(b, sw.filter.turn)
	defer c.Leave()
	grace := s.cfg.SSESlowGrace
	c.OnKick(func() {
		// A client stuck in a write gets grace to read what is queued
		// (and the close reason); then the connection goes.
		sw.kicked.Store(true)
		_ = sw.rc.SetWriteDeadline(time.Now().Add(grace))
	})
	if catchUp {
		// The events appended while the bulk was read: from the store up
		// to the broadcast's position at joining, then the broadcast.
		joined := c.Joined()
		if sw.sent.Less(joined) {
			if err := s.catchUp(ctx, sw, known, &joined); err != nil {
				s.catchUpEnded(sw, err)
				return
			}
		}
	} else {
		sw.sent = c.Joined()
		if err := sw.write(fmt.Appendf(nil, ": turnstile events from %s\n\n", sw.sent)); err != nil {
			return
		}
	}
	keepalive := time.NewTicker(15 * time.Second)
	defer keepalive.Stop()
	recheck := time.NewTicker(CredentialRecheck)
	defer recheck.Stop()
	buf := make([]*fanout.Frame, 0, sseBatch)
	for {
		wake := c.Wake()
		frames, err := c.Take(buf[:0])
		if errors.Is(err, fanout.ErrSlow) {
			s.slow(sw, b)
			return
		}
		if err := sw.frames(frames); err != nil {
			return
		}
		if c.Pending() {
			// Busy: the credential's check is not left to the select.
			select {
			case <-recheck.C:
				if sw.lostAuth(ctx) {
					return
				}
			default:
			}
			continue
		}
		select {
		case <-wake:
		case <-c.Kicked():
		case <-ctx.Done():
			return
		case <-s.draining:
			return
		case <-b.Done():
			if err := b.Err(); err != nil && !errors.Is(err, context.Canceled) {
				sseError(sw, "unavailable", "the event broadcast stopped; reconnect with Last-Event-ID", map[string]any{"last_event_id": sw.sent.String()})
			}
			return
		case <-keepalive.C:
			if err := sw.write([]byte(": keepalive\n\n")); err != nil {
				return
			}
		case <-recheck.C:
			if sw.lostAuth(ctx) {
				return
			}
		}
	}
}

// catchUpEnded ends a stream whose catch-up failed: a credential that no
// longer authenticates is told so, as on the live stream.
func (s *Server) catchUpEnded(sw *sseWriter, err error) {
	s.log.Debug("event stream: catch-up ended", "err", err)
	if err == errRevoked {
		sw.endWith(err)
	}
}

// lostAuth authenticates the client's credential again and, when it no
// longer authenticates (or the store cannot say), ends the stream with an
// error event naming why and where it was.
func (sw *sseWriter) lostAuth(ctx context.Context) bool {
	err := sw.auth(ctx)
	if err != nil {
		sw.endWith(err)
	}
	return err != nil
}

// endWith sends the error event that ends the stream.
func (sw *sseWriter) endWith(err error) {
	e := mapError(err)
	sseError(sw, e.Code, e.Message, map[string]any{"last_event_id": sw.sent.String()})
}

// slow ends a client that fell behind with a frame naming the reason and
// where to resume.
func (s *Server) slow(sw *sseWriter, b *fanout.Broadcaster) {
	s.log.Info("event stream: slow consumer cut off", "last_event_id", sw.sent.String())
	sseError(sw, "slow_consumer",
		fmt.Sprintf("this client fell more than %d events behind the live stream and was disconnected; reconnect with Last-Event-ID %s to resume from the store", b.Buffer(), sw.sent),
		map[string]any{"last_event_id": sw.sent.String(), "buffer": strconv.Itoa(b.Buffer())})
}
