package esdbstore

import (
	"context"
	"errors"
	"io"
	"strings"

	esdbc "github.com/EventStore/EventStore-Client-Go/v4/esdb"

	"turnstile/domain/eventstore"
)

// ReadStream returns up to max events of stream from revision from on (all
// of them when max <= 0), one page per request. A missing stream yields no
// events and no error.
func (s *Store) ReadStream(ctx context.Context, stream string, from uint64, max int) ([]eventstore.RecordedEvent, error) {
	var out []eventstore.RecordedEvent
	next := from
	for {
		want := s.opts.PageSize
		if max > 0 {
			want = min(want, max-len(out))
		}
		page, err := s.readPage(ctx, "read "+stream, func(ctx context.Context, c *esdbc.Client) (*esdbc.ReadStream, error) {
			return c.ReadStream(ctx, stream, esdbc.ReadStreamOptions{Direction: esdbc.Forwards, From: esdbc.Revision(next)}, uint64(want))
		})
		if isNotFound(err) {
			return out, nil
		}
		if err != nil {
			return nil, err
		}
		for _, e := range page {
			out = append(out, toRecorded(e))
		}
		if len(page) < want || (max > 0 && len(out) >= max) {
			return out, nil
		}
		next = page[len(page)-1].EventNumber + 1
	}
}

// ReadAll returns up to max events of user streams strictly after from
// (all of them when max <= 0). A $all read from a position includes the
// event at that position, so the first page drops it; events of system
// streams are skipped.
func (s *Store) ReadAll(ctx context.Context, from eventstore.Position, max int) ([]eventstore.RecordedEvent, error) {
	var out []eventstore.RecordedEvent
	pos := from
	for {
		var start esdbc.AllPosition = esdbc.Position{Commit: pos.Commit, Prepare: pos.Prepare}
		if pos == eventstore.Start {
			start = esdbc.Start{}
		}
		want := s.opts.PageSize
		page, err := s.readPage(ctx, "read $all", func(ctx context.Context, c *esdbc.Client) (*esdbc.ReadStream, error) {
			return c.ReadAll(ctx, esdbc.ReadAllOptions{Direction: esdbc.Forwards, From: start}, uint64(want))
		})
		if err != nil {
			return nil, err
		}
		for _, e := range page {
			p := eventstore.Position{Commit: e.Position.Commit, Prepare: e.Position.Prepare}
			if !pos.Less(p) {
				continue // the event at the start position, read again
			}
			pos = p
			if isSystem(e.StreamID) {
				continue
			}
			out = append(out, toRecorded(e))
			if max > 0 && len(out) == max {
				return out, nil
			}
		}
		if len(page) < want {
			return out, nil
		}
	}
}

// readPage runs one read request, bounded by Options.Timeout, retrying it
// while the server is unavailable, and returns its events.
func (s *Store) readPage(ctx context.Context, op string, open func(context.Context, *esdbc.Client) (*esdbc.ReadStream, error)) ([]*esdbc.RecordedEvent, error) {
	pageCtx, cancel := context.WithTimeout(ctx, s.opts.Timeout)
	defer cancel()
	wait := s.opts.MinBackoff / 2
	for {
		var page []*esdbc.RecordedEvent // this attempt's; read only once it is over
		err := s.do(pageCtx, func(ctx context.Context, c *esdbc.Client) error {
			rs, err := open(ctx, c)
			if err != nil {
				return err
			}
			defer rs.Close()
			for {
				e, err := rs.Recv()
				if errors.Is(err, io.EOF) {
					return nil
				}
				if err != nil {
					return err
				}
				page = append(page, e.OriginalEvent())
			}
		})
		if err == nil || isNotFound(err) {
			return page, err
		}
		if !transient(err) || pageCtx.Err() != nil {
			return nil, s.wrap(ctx, op, err)
		}
		wait = s.backoff(wait)
		if sleep(pageCtx, wait) != nil {
			return nil, s.wrap(ctx, op, err)
		}
	}
}

// isNotFound reports the client's "stream not found" error.
func isNotFound(err error) bool {
	var e *esdbc.Error
	return errors.As(err, &e) && e.Code() == esdbc.ErrorCodeResourceNotFound
}

// isSystem reports whether stream is a system stream ($-prefixed).
func isSystem(stream string) bool { return strings.HasPrefix(stream, "$") }

func toRecorded(e *esdbc.RecordedEvent) eventstore.RecordedEvent {
	return eventstore.RecordedEvent{
		ID:       e.EventID,
		Stream:   e.StreamID,
		Revision: e.EventNumber,
		Position: eventstore.Position{Commit: e.Position.Commit, Prepare: e.Position.Prepare},
		Type:     e.EventType,
		Data:     e.Data,
		Metadata: e.UserMetadata,
		Created:  e.CreatedDate,
	}
}
