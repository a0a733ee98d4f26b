package turn

import "turnstile/domain"

// TypeEgressTraffic is the egress proxy's summary of the connections it
// carried to one origin for a turn.
const TypeEgressTraffic = "egress.traffic"

// EgressTraffic batches the egress proxy's allowed connections to one
// origin: how many were carried and the bytes each way, since the previous
// summary of that origin. Each connection was allowed by a decision event
// (the first of an origin under a snapshot) or reused that decision; a
// refused connection is its own decision_denied event.
type EgressTraffic struct {
	// Origin is scheme://host:port (no path, no query).
	Origin      string `json:"origin"`
	Connections int    `json:"connections"`
	BytesUp     int64  `json:"bytes_up"`
	BytesDown   int64  `json:"bytes_down"`
	// Closed counts connections the proxy closed because a narrowed
	// snapshot denied them.
	Closed int `json:"closed,omitempty"`
}

// EventType implements Payload.
func (EgressTraffic) EventType() string { return TypeEgressTraffic }

// RecordEgress records an EgressTraffic summary. ID names the summary
// uniquely (the proxy's instance and a counter): the event id is derived
// from it, so a retried append is the same event.
type RecordEgress struct {
	Meta
	ID      string
	Traffic EgressTraffic
}

func decideEgress(s *State, c *RecordEgress) ([]Event, Outcome, error) {
	if err := s.live(TransDecide); err != nil {
		return nil, Outcome{}, err
	}
	if c.ID == "" || c.Traffic.Origin == "" || c.Traffic.Connections < 0 || c.Traffic.BytesUp < 0 || c.Traffic.BytesDown < 0 {
		return nil, Outcome{}, &domain.FieldError{Field: "traffic", Message: "an origin and non-negative counts are required"}
	}
	t := c.Traffic
	return []Event{s.event(&c.Meta, []string{"egress", c.ID}, &t)}, Outcome{}, nil
}
