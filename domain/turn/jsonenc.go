package turn

import (
	"strconv"

	"github.com/google/uuid"

	"turnstile/domain"
)

// The hand-written encoders here write exactly the bytes encoding/json's
// Marshal writes for the same values (the stored bytes are hashed into each
// turn's chain, so they must never change); encoding/json stays the
// reference they are tested against (TestEnvelopeJSONMatchesMarshal).

// appendJSON appends the envelope as json.Marshal renders it. It fails
// where Marshal fails: a time RFC 3339 cannot represent.
func (env *Envelope) appendJSON(b []byte) ([]byte, error) {
	b = append(b, `{"event_id":"`...)
	b = appendUUID(b, env.EventID)
	b = append(b, `","type":`...)
	b = appendJSONString(b, env.Type)
	b = append(b, `,"schema_version":`...)
	b = strconv.AppendInt(b, int64(env.SchemaVersion), 10)
	b = append(b, `,"turn_id":`...)
	b = appendJSONString(b, env.TurnID)
	b = append(b, `,"occurred_at":"`...)
	b, err := env.OccurredAt.AppendText(b) // what time.Time.MarshalJSON quotes
	if err != nil {
		return nil, err
	}
	b = append(b, '"')
	if !env.Actor.IsZero() { // omitzero
		b = append(b, `,"actor":{"name":`...)
		b = appendJSONString(b, env.Actor.Name)
		if env.Actor.Role != "" {
			b = append(b, `,"role":`...)
			b = appendJSONString(b, string(env.Actor.Role))
		}
		b = append(b, '}')
	}
	if env.CorrelationID != "" {
		b = append(b, `,"correlation_id":`...)
		b = appendJSONString(b, env.CorrelationID)
	}
	if env.PrevHash != "" {
		b = append(b, `,"prev_hash":`...)
		b = appendJSONString(b, env.PrevHash)
	}
	return append(b, '}'), nil
}

// size is room for the envelope when its strings need no escaping.
func (env *Envelope) size() int {
	return 240 + len(env.Type) + len(env.TurnID) + len(env.Actor.Name) + len(env.Actor.Role) +
		len(env.CorrelationID) + len(env.PrevHash)
}

// appendUUID appends u in its canonical text form (uuid.UUID.MarshalText).
func appendUUID(b []byte, u uuid.UUID) []byte {
	for i, c := range u {
		if i == 4 || i == 6 || i == 8 || i == 10 {
			b = append(b, '-')
		}
		b = append(b, hexDigits[c>>4], hexDigits[c&0xf])
	}
	return b
}

const hexDigits = "0123456789abcdef"

// appendJSONString appends s as json.Marshal writes it (HTML escaped).
func appendJSONString(b []byte, s string) []byte { return domain.AppendJSONString(b, s, true) }
