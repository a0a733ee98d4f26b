package api

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"runtime"
	"slices"
	"sync"

	"github.com/google/uuid"

	"turnstile/domain"
	"turnstile/domain/eventcodec"
	"turnstile/domain/eventstore"
	"turnstile/domain/turn"
)

// VerifyLine is one line of GET /v1/audit/verify (newline-delimited JSON):
// progress while the walk runs, then one head per turn and done; or
// tampered (the first bad event), or error, which ends the stream.
type VerifyLine struct {
	Progress *VerifyProgress `json:"progress,omitempty"`
	Tampered *VerifyTamper   `json:"tampered,omitempty"`
	Head     *VerifyHead     `json:"head,omitempty"`
	Done     *VerifyProgress `json:"done,omitempty"`
	Error    *Error          `json:"error,omitempty"`
}

// VerifyProgress counts what a walk has checked so far.
type VerifyProgress struct {
	Turns  int `json:"turns"`
	Events int `json:"events"`
	// Position is the store position checked up to.
	Position string `json:"position"`
}

// VerifyTamper names the first event whose chain does not hold.
type VerifyTamper struct {
	TurnID string `json:"turn_id"`
	// Version is the first bad event: the one that no longer hashes to the
	// prev_hash its successor recorded, or whose own prev_hash or place in
	// the stream is wrong.
	Version   int64  `json:"version"`
	EventType string `json:"event_type,omitempty"`
	EventID   string `json:"event_id,omitempty"`
	Message   string `json:"message"`
}

// VerifyHead is a turn's last event (version and hash) as the walk found it.
type VerifyHead struct {
	TurnID  string `json:"turn_id"`
	Version int64  `json:"version"`
	Hash    string `json:"hash"`
}

// verifyPage is how many records the walk reads at a time.
const verifyPage = 4096

// verifyProgressEvery is how many events pass between progress lines.
const verifyProgressEvery = 100_000

// chain is the walk's state of one turn's stream.
type chain struct {
	next     uint64 // revision expected next
	hash     string // hash of the last event
	lastType string // type and id of the last event, to name it
	lastID   uuid.UUID
	visible  bool // in the credential's scope
}

// chainWalk checks every turn's hash chain in one pass over the log.
type chainWalk struct {
	p      domain.Principal
	chains map[string]*chain
	order  []string // turn ids in order of their first event
	seen   VerifyProgress
	tamper *VerifyTamper
}

// verifyAll walks the whole store once, in pages of raw records, and checks
// every turn's hash chain where the events are: each record's metadata
// gives its prev_hash and the record is hashed; no payload is decoded into
// domain types (but a turn's first event, for a workspace-scoped
// credential's scope). Progress lines are streamed while it runs.
func (s *Server) verifyAll(w http.ResponseWriter, r *http.Request) {
	flusher, ok := s.streamable(w, r)
	if !ok {
		return
	}
	w.Header().Set("Content-Type", "application/x-ndjson")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	enc := json.NewEncoder(w)
	emit := func(l VerifyLine) { _ = enc.Encode(l) }
	cw := &chainWalk{p: principalOf(r), chains: map[string]*chain{}}
	err := cw.walk(r.Context(), s.cfg.Store, func() {
		pr := cw.seen
		emit(VerifyLine{Progress: &pr})
		flusher.Flush()
	})
	switch {
	case err != nil:
		emit(VerifyLine{Error: mapError(err)})
	case cw.tamper != nil:
		emit(VerifyLine{Tampered: cw.tamper})
	default:
		for _, id := range cw.order {
			if c := cw.chains[id]; c.visible {
				emit(VerifyLine{Head: &VerifyHead{TurnID: id, Version: int64(c.next) - 1, Hash: c.hash}})
			}
		}
		emit(VerifyLine{Done: &cw.seen})
	}
	flusher.Flush()
}

// walk reads the log page by page (the next page is read while this one is
// checked) until its end or the first broken chain.
func (cw *chainWalk) walk(ctx context.Context, store eventstore.Store, progress func()) error {
	type page struct {
		recs []eventstore.RecordedEvent
		err  error
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	pages := make(chan page, 2)
	go func() {
		defer close(pages)
		from := eventstore.Start
		for {
			recs, err := store.ReadAll(ctx, from, verifyPage)
			select {
			case pages <- page{recs, err}:
			case <-ctx.Done():
				return
			}
			if err != nil || len(recs) < verifyPage {
				return
			}
			from = recs[len(recs)-1].Position
		}
	}()
	nextProgress := verifyProgressEvery
	var sums []digest
	for pg := range pages {
		if pg.err != nil {
			return pg.err
		}
		sums = digestAll(pg.recs, sums)
		for i := range pg.recs {
			if err := cw.check(&pg.recs[i], &sums[i]); err != nil || cw.tamper != nil {
				return err
			}
		}
		if len(pg.recs) > 0 {
			cw.seen.Position = pg.recs[len(pg.recs)-1].Position.String()
		}
		if cw.seen.Events >= nextProgress {
			progress()
			nextProgress += verifyProgressEvery
		}
	}
	return ctx.Err()
}

// digest is what the chain check needs of one record: its prev_hash (or
// why its metadata has none) and its own hash.
type digest struct {
	prev, hash string
	err        error
}

// digestAll reads the prev_hash and computes the hash of every turn record
// of a page, on one goroutine per processor: the chain check that follows
// is then a comparison of strings.
func digestAll(recs []eventstore.RecordedEvent, sums []digest) []digest {
	sums = slices.Grow(sums[:0], len(recs))[:len(recs)]
	workers := min(runtime.GOMAXPROCS(0), 8)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for i := w; i < len(recs); i += workers {
				r := &recs[i]
				if !isTurnStream(r.Stream) {
					continue
				}
				d := &sums[i]
				d.prev, d.err = eventcodec.PrevHash(r.Metadata)
				d.hash = turn.HashOf(r.Metadata, r.Data)
			}
		})
	}
	wg.Wait()
	return sums
}

// check verifies one record, digested, against its stream's chain.
func (cw *chainWalk) check(rec *eventstore.RecordedEvent, d *digest) error {
	if !isTurnStream(rec.Stream) {
		return nil
	}
	id := rec.Stream[len(turn.StreamPrefix):]
	c := cw.chains[id]
	if c == nil {
		c = &chain{visible: !cw.p.Scoped()}
		cw.chains[id] = c
		cw.order = append(cw.order, id)
		if !c.visible && rec.Revision == 0 {
			e, err := eventcodec.DecodeUnhashed(rec)
			if err != nil {
				return err
			}
			if st, ok := e.Payload.(*turn.TurnStarted); ok {
				c.visible = cw.p.InScope(st.WorkspaceID)
			}
		}
		if c.visible {
			cw.seen.Turns++
		}
	}
	if c.visible {
		cw.seen.Events++
	}
	bad := func(version int64, typ, evID, format string, args ...any) {
		if c.visible {
			cw.tamper = &VerifyTamper{TurnID: id, Version: version, EventType: typ, EventID: evID, Message: fmt.Sprintf(format, args...)}
		}
	}
	if rec.Revision != c.next {
		bad(int64(c.next), "", "", "version %d is missing: the stream goes on at version %d (events were removed)", c.next, rec.Revision)
		return nil
	}
	if d.err != nil {
		bad(int64(rec.Revision), rec.Type, rec.ID.String(), "its metadata is not the envelope: %v", d.err)
		return nil
	}
	if d.prev != c.hash {
		if rec.Revision == 0 {
			bad(0, rec.Type, rec.ID.String(), "first bad event at version 0 (%s): its prev_hash is not empty", rec.ID)
		} else {
			bad(int64(rec.Revision)-1, c.lastType, c.lastID.String(), "first bad event at version %d (%s %s): it no longer hashes to the prev_hash recorded by version %d",
				rec.Revision-1, c.lastType, c.lastID, rec.Revision)
		}
		return nil
	}
	c.hash, c.lastType, c.lastID = d.hash, rec.Type, rec.ID
	c.next++
	return nil
}
