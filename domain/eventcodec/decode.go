// Package eventcodec reads stored turn events fast: reflection-free
// decoders for the JSON the turn codec writes (decisions, approvals,
// envelopes) and a cache of decoded snapshots shared between the turns of
// one workspace and mode. The format and its reference decoder are
// turn.Encode and turn.Decode; Decode here gives the same events
// (TestDecodeMatchesReference, FuzzFastDecode). Pure: no I/O.
package eventcodec

import (
	"fmt"

	"turnstile/domain/eventstore"
	"turnstile/domain/turn"
)

// Decode reads a stored event, computing its chain hash, as turn.Decode
// does. An unknown type or schema version fails with
// turn.ErrUnknownEventType.
func Decode(r *eventstore.RecordedEvent) (turn.Event, error) {
	e, err := DecodeUnhashed(r)
	if err == nil {
		e.Hash = turn.HashOf(r.Metadata, r.Data)
	}
	return e, err
}

// DecodeUnhashed is Decode without the chain hash (Hash is empty), for
// readers that do not extend the chain: read models and notifications.
func DecodeUnhashed(r *eventstore.RecordedEvent) (turn.Event, error) {
	var env turn.Envelope
	if err := decodeEnvelope(r.Metadata, &env); err != nil {
		return turn.Event{}, fmt.Errorf("decode %s@%d metadata: %w", r.Stream, r.Revision, err)
	}
	if env.Type != r.Type {
		return turn.Event{}, fmt.Errorf("decode %s@%d: metadata type %q differs from stored type %q", r.Stream, r.Revision, env.Type, r.Type)
	}
	p, err := turn.EventRegistry.New(r.Type, env.SchemaVersion)
	if err != nil {
		return turn.Event{}, fmt.Errorf("decode %s@%d: %w", r.Stream, r.Revision, err)
	}
	fresh := func() turn.Payload { q, _ := turn.EventRegistry.New(r.Type, env.SchemaVersion); return q }
	if p, err = decodeInto(r.Data, p, fresh); err != nil {
		return turn.Event{}, fmt.Errorf("decode %s@%d %s: %w", r.Stream, r.Revision, r.Type, err)
	}
	return turn.Event{
		ID: r.ID, Type: r.Type, SchemaVersion: env.SchemaVersion, TurnID: env.TurnID, OccurredAt: env.OccurredAt,
		Actor: env.Actor, CorrelationID: env.CorrelationID, PrevHash: env.PrevHash, Payload: p,
		Version: int64(r.Revision), Position: r.Position, Size: len(r.Metadata) + len(r.Data),
	}, nil
}
