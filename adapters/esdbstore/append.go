package esdbstore

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strconv"

	esdbc "github.com/EventStore/EventStore-Client-Go/v4/esdb"
	"github.com/google/uuid"

	"turnstile/domain/eventstore"
)

// Append writes events to stream if expected holds. It retries, within
// Options.Timeout, while the server is unavailable, always with the same
// event ids and the same expected version.
func (s *Store) Append(ctx context.Context, stream string, expected eventstore.ExpectedVersion, events []eventstore.EventData) (eventstore.AppendResult, error) {
	if err := expected.Check(); err != nil {
		return eventstore.AppendResult{}, err
	}
	data, err := toEventData(stream, events)
	if err != nil {
		return eventstore.AppendResult{}, err
	}
	opts := esdbc.AppendToStreamOptions{ExpectedRevision: toExpected(expected)}

	callCtx, cancel := context.WithTimeout(ctx, s.opts.Timeout)
	defer cancel()
	var res *esdbc.WriteResult
	wait := s.opts.MinBackoff / 2
	for {
		var attempt *esdbc.WriteResult // read only once the attempt is over
		err = s.do(callCtx, func(ctx context.Context, c *esdbc.Client) error {
			var err error
			attempt, err = c.AppendToStream(ctx, stream, opts, data...)
			return err
		})
		if err == nil {
			res = attempt
			break
		}
		if !transient(err) || callCtx.Err() != nil {
			break
		}
		wait = s.backoff(wait)
		if sleep(callCtx, wait) != nil {
			break
		}
	}
	if err != nil {
		var e *esdbc.Error
		if errors.As(err, &e) && e.Code() == esdbc.ErrorCodeWrongExpectedVersion {
			return eventstore.AppendResult{}, &eventstore.WrongExpectedVersionError{
				Stream: stream, Expected: expected, Actual: actualRevision(e.Error()),
			}
		}
		if limit, ok := appendSizeExceeded(err); ok {
			return eventstore.AppendResult{}, &eventstore.AppendTooLargeError{Stream: stream, Limit: limit}
		}
		return eventstore.AppendResult{}, s.wrap(ctx, "append to "+stream, err)
	}
	return eventstore.AppendResult{
		NextExpectedRevision: res.NextExpectedVersion,
		Position:             eventstore.Position{Commit: res.CommitPosition, Prepare: res.PreparePosition},
	}, nil
}

// toEventData validates events and converts them, keeping every id.
func toEventData(stream string, events []eventstore.EventData) ([]esdbc.EventData, error) {
	if stream == "" {
		return nil, fmt.Errorf("%w: empty stream name", ErrInvalid)
	}
	if len(events) == 0 {
		return nil, fmt.Errorf("%w: no events for %s", ErrInvalid, stream)
	}
	out := make([]esdbc.EventData, len(events))
	for i, e := range events {
		if e.ID == uuid.Nil {
			// The client would invent a fresh id, and a retry would no
			// longer be recognisable as the same write.
			return nil, fmt.Errorf("%w: event %d for %s has no id", ErrInvalid, i, stream)
		}
		if e.Type == "" {
			return nil, fmt.Errorf("%w: event %d for %s has no type", ErrInvalid, i, stream)
		}
		out[i] = esdbc.EventData{
			EventID: e.ID, EventType: e.Type, ContentType: esdbc.ContentTypeJson,
			Data: e.Data, Metadata: e.Metadata,
		}
	}
	return out, nil
}

func toExpected(e eventstore.ExpectedVersion) esdbc.ExpectedRevision {
	if rev, ok := e.Revision(); ok {
		return esdbc.Revision(rev)
	}
	if e.IsNoStream() {
		return esdbc.NoStream{}
	}
	return esdbc.Any{}
}

// gotRevision matches the current revision in the v4 client's message
// "wrong expected version: expecting 'E' but got 'C'".
var gotRevision = regexp.MustCompile(`but got '([^']*)'`)

// actualRevision parses the stream's current revision from a wrong expected
// version message: -1 for no_stream, -2 when the message does not say.
func actualRevision(msg string) int64 {
	m := gotRevision.FindStringSubmatch(msg)
	if m == nil {
		return -2
	}
	if m[1] == "no_stream" {
		return -1
	}
	n, err := strconv.ParseInt(m[1], 10, 64)
	if err != nil || n < -1 {
		return -2
	}
	return n
}

// maxAppendSize matches the server's refusal of an append over its
// MaxAppendSize ("Maximum Append Size of 1048576 Exceeded.").
var maxAppendSize = regexp.MustCompile(`Maximum Append Size of (\d+) Exceeded`)

// appendSizeExceeded reports whether err is the server's refusal of an
// append over its MaxAppendSize, and the size it names.
func appendSizeExceeded(err error) (int64, bool) {
	m := maxAppendSize.FindStringSubmatch(err.Error())
	if m == nil {
		return 0, false
	}
	n, _ := strconv.ParseInt(m[1], 10, 64)
	return n, true
}
