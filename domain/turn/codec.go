package turn

import (
	"crypto/sha1"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strconv"
	"time"

	"github.com/google/uuid"

	"turnstile/domain"
	"turnstile/domain/eventstore"
)

// Event is one event of a turn's stream with its envelope.
type Event struct {
	ID            uuid.UUID
	Type          string
	SchemaVersion int
	TurnID        string
	OccurredAt    time.Time
	// Actor is who caused the event: the authenticated principal's name and
	// role, or domain.SystemActor. Events stored before roles existed carry
	// a bare name ("agent", "approver").
	Actor domain.Actor
	// CorrelationID ties the event to a tool call or an HTTP request.
	CorrelationID string
	// PrevHash is the Hash of the previous event of the stream ("" for the first).
	PrevHash string
	Payload  Payload

	// Set when the event is read back (or appended):
	Version  int64               // stream revision
	Position eventstore.Position // global position
	Hash     string              // SHA-256 of the stored metadata and data
	// Size is the stored metadata and data's length, when read back (the
	// read models count what open turns hold by it).
	Size int
}

// Envelope is the stored metadata of an event.
type Envelope struct {
	EventID       uuid.UUID    `json:"event_id"`
	Type          string       `json:"type"`
	SchemaVersion int          `json:"schema_version"`
	TurnID        string       `json:"turn_id"`
	OccurredAt    time.Time    `json:"occurred_at"`
	Actor         domain.Actor `json:"actor,omitzero"`
	CorrelationID string       `json:"correlation_id,omitempty"`
	PrevHash      string       `json:"prev_hash,omitempty"`
}

// StreamName is the stream of a turn.
func StreamName(turnID string) string { return "turn-" + turnID }

// StreamPrefix selects every turn stream.
const StreamPrefix = "turn-"

// HashOf is the chain hash of a stored event: SHA-256 over its metadata, a
// newline, and its data.
func HashOf(metadata, data []byte) string {
	h := sha256.New()
	h.Write(metadata)
	h.Write([]byte{'\n'})
	h.Write(data)
	return hex.EncodeToString(h.Sum(nil))
}

// envelopeError is the error json.Marshal gives for env, the error Encode
// has always returned, or err should Marshal not fail.
func envelopeError(env Envelope, err error) error {
	if _, merr := json.Marshal(env); merr != nil {
		return merr
	}
	return err
}

// Encode turns events into store records, chaining each to the previous
// one's hash (prevHash for the first). It sets each event's PrevHash, Hash
// and final ID.
//
// The id Decide gives an event stands for the command's identity; Encode
// folds the event's content into it (type, payload, time, actor,
// correlation and the previous hash), so one id always stands for the same
// bytes. A retried append of the same command at the same place carries the
// same ids and the store recognises it; another instance's different event
// for the same command (another time, a stale chain) carries other ids and
// meets a wrong expected version instead of being mistaken for a retry.
func Encode(events []Event, prevHash string) ([]eventstore.EventData, error) {
	out := make([]eventstore.EventData, len(events))
	var scratch [1024]byte // contentID's input, on the stack unless an event is larger
	buf := scratch[:0]
	for i := range events {
		e := &events[i]
		if e.ID == uuid.Nil {
			return nil, fmt.Errorf("encode %s: event id is not set", e.Type)
		}
		version, ok := EventRegistry.Version(e.Payload.EventType())
		if !ok {
			return nil, fmt.Errorf("%w: %q", ErrUnknownEventType, e.Payload.EventType())
		}
		e.Type, e.SchemaVersion, e.PrevHash = e.Payload.EventType(), version, prevHash
		data, err := marshalPayload(e.Payload)
		if err != nil {
			return nil, fmt.Errorf("encode %s: %w", e.Type, err)
		}
		env := Envelope{
			Type: e.Type, SchemaVersion: version, TurnID: e.TurnID, OccurredAt: e.OccurredAt.UTC(),
			Actor: e.Actor, CorrelationID: e.CorrelationID, PrevHash: prevHash,
		}
		e.ID, buf = contentID(buf, e.ID, &env, data)
		env.EventID = e.ID
		meta, err := env.appendJSON(make([]byte, 0, env.size()))
		if err != nil {
			return nil, envelopeError(env, err)
		}
		e.Hash = HashOf(meta, data)
		prevHash = e.Hash
		out[i] = eventstore.EventData{ID: e.ID, Type: e.Type, Data: data, Metadata: meta}
	}
	return out, nil
}

// contentID derives an event's id from its command identity and content:
// the UUIDv5 (in idNamespace) of the SHA-256 of the identity, the
// envelope's fields each followed by a NUL (numbers in decimal), and the
// data. It builds that input in buf (reused, returned for the next event).
func contentID(buf []byte, identity uuid.UUID, env *Envelope, data []byte) (uuid.UUID, []byte) {
	b := append(buf[:0], identity[:]...)
	b = append(b, 0)
	b = append(b, env.Type...)
	b = append(b, 0)
	b = strconv.AppendInt(b, int64(env.SchemaVersion), 10)
	b = append(b, 0)
	b = append(b, env.TurnID...)
	b = append(b, 0)
	b = strconv.AppendInt(b, env.OccurredAt.UnixNano(), 10)
	b = append(b, 0)
	b = append(b, env.Actor.Name...)
	b = append(b, 0)
	b = append(b, env.Actor.Role...)
	b = append(b, 0)
	b = append(b, env.CorrelationID...)
	b = append(b, 0)
	b = append(b, env.PrevHash...)
	b = append(b, 0)
	b = append(b, data...)
	sum := sha256.Sum256(b)
	return uuidV5(idNamespace, sum[:]), b
}

// uuidV5 is uuid.NewSHA1 without its allocations: the SHA-1 of the
// namespace and name, with the version (5) and variant (RFC 4122) bits set.
func uuidV5(space uuid.UUID, name []byte) uuid.UUID {
	var in [16 + sha256.Size]byte
	copy(in[:], space[:])
	return v5(sha1.Sum(append(in[:16], name...)))
}

// v5 is the UUIDv5 of a name's SHA-1 (that of the namespace followed by
// the name): its first 16 bytes with the version (5) and variant (RFC 4122)
// bits set.
func v5(h [sha1.Size]byte) uuid.UUID {
	var u uuid.UUID
	copy(u[:], h[:])
	u[6] = u[6]&0x0f | 0x50
	u[8] = u[8]&0x3f | 0x80
	return u
}

// Decode reads a stored event with encoding/json, computing its chain hash.
// An unknown type or schema version fails with ErrUnknownEventType. It is
// the reference decoder, the definition of what a stored event means;
// readers on a hot path (the engine's load, the projections) use
// eventcodec.Decode, a faster decoder proven to give the same result.
func Decode(r *eventstore.RecordedEvent) (Event, error) {
	e, err := DecodeUnhashed(r)
	if err == nil {
		e.Hash = HashOf(r.Metadata, r.Data)
	}
	return e, err
}

// DecodeUnhashed is Decode without the chain hash (Hash is empty), for
// readers that do not extend the chain: read models and notifications.
func DecodeUnhashed(r *eventstore.RecordedEvent) (Event, error) {
	var env Envelope
	if err := json.Unmarshal(r.Metadata, &env); err != nil {
		return Event{}, fmt.Errorf("decode %s@%d metadata: %w", r.Stream, r.Revision, err)
	}
	if env.Type != r.Type {
		return Event{}, fmt.Errorf("decode %s@%d: metadata type %q differs from stored type %q", r.Stream, r.Revision, env.Type, r.Type)
	}
	p, err := EventRegistry.New(r.Type, env.SchemaVersion)
	if err != nil {
		return Event{}, fmt.Errorf("decode %s@%d: %w", r.Stream, r.Revision, err)
	}
	if err = json.Unmarshal(r.Data, p); err != nil {
		return Event{}, fmt.Errorf("decode %s@%d %s: %w", r.Stream, r.Revision, r.Type, err)
	}
	return Event{
		ID: r.ID, Type: r.Type, SchemaVersion: env.SchemaVersion, TurnID: env.TurnID, OccurredAt: env.OccurredAt,
		Actor: env.Actor, CorrelationID: env.CorrelationID, PrevHash: env.PrevHash, Payload: p,
		Version: int64(r.Revision), Position: r.Position, Size: len(r.Metadata) + len(r.Data),
	}, nil
}

// ChainError reports a broken hash chain.
type ChainError struct {
	Stream   string
	Revision uint64
	Want     string
	Got      string
}

func (e *ChainError) Error() string {
	return fmt.Sprintf("hash chain broken at %s@%d: prev_hash %q, previous event hashes to %q", e.Stream, e.Revision, e.Got, e.Want)
}

// VerifyChain checks that each record's prev_hash is the hash of the one
// before it; prev is the hash of the record before the first ("" at the
// start of a stream). It returns the last hash.
func VerifyChain(records []eventstore.RecordedEvent, prev string) (string, error) {
	for i := range records {
		r := &records[i]
		var env struct {
			PrevHash string `json:"prev_hash"`
		}
		if err := json.Unmarshal(r.Metadata, &env); err != nil {
			return prev, fmt.Errorf("verify %s@%d: %w", r.Stream, r.Revision, err)
		}
		if env.PrevHash != prev {
			return prev, &ChainError{Stream: r.Stream, Revision: r.Revision, Want: prev, Got: env.PrevHash}
		}
		prev = HashOf(r.Metadata, r.Data)
	}
	return prev, nil
}

// eventID derives a deterministic event id from a command's identity: the
// UUIDv5 (in idNamespace) of turnID and parts joined by NULs. The name is
// built on the stack unless it is longer than scratch (a decision's is
// about 60 bytes).
func eventID(turnID string, parts ...string) uuid.UUID {
	var scratch [256]byte
	b := append(scratch[:0], idNamespace[:]...)
	b = append(b, turnID...)
	for _, p := range parts {
		b = append(b, 0)
		b = append(b, p...)
	}
	return v5(sha1.Sum(b))
}

// idNamespace is the UUIDv5 namespace of turnstile event ids.
var idNamespace = uuid.MustParse("6f0b5f3e-2b1c-5d7a-9c43-7e1f0a8b9d21")

// RequestID derives the approval request id of a tool call.
func RequestID(turnID, toolCallID string) string {
	return uuid.NewSHA1(idNamespace, []byte("request\x00"+turnID+"\x00"+toolCallID)).String()
}
