package projections

import (
	"encoding/binary"
	"fmt"
	"time"

	"turnstile/domain"
	"turnstile/domain/turn"
)

// appendSummary encodes s (its profile as an index into the checkpoint's
// profiles): strings and times length-prefixed, numbers as varints. Times
// keep their zone offset (time.MarshalBinary), so a restored summary
// renders exactly as the folded one.
func appendSummary(b []byte, s *summary, profile int) ([]byte, error) {
	for _, str := range []string{s.id, s.workspace, s.thread, s.parent, string(s.status)} {
		b = binary.AppendUvarint(b, uint64(len(str)))
		b = append(b, str...)
	}
	b = binary.AppendVarint(b, s.version)
	b = binary.AppendVarint(b, s.snapshotVersion)
	b = binary.AppendUvarint(b, uint64(profile))
	b = binary.AppendUvarint(b, uint64(s.pending))
	for _, t := range []time.Time{s.started, s.updated, s.ended} {
		tb, err := t.MarshalBinary()
		if err != nil {
			return nil, fmt.Errorf("projections: encoding a checkpoint: turn %s: %w", s.id, err)
		}
		b = binary.AppendUvarint(b, uint64(len(tb)))
		b = append(b, tb...)
	}
	return b, nil
}

// summaryReader decodes what appendSummary wrote, failing on the first
// short or malformed field.
type summaryReader struct {
	b   []byte
	err error
}

func (r *summaryReader) uvarint() uint64 {
	if r.err != nil {
		return 0
	}
	v, n := binary.Uvarint(r.b)
	if n <= 0 {
		r.err = fmt.Errorf("%w: bad summary", ErrBadCheckpoint)
		return 0
	}
	r.b = r.b[n:]
	return v
}

func (r *summaryReader) varint() int64 {
	if r.err != nil {
		return 0
	}
	v, n := binary.Varint(r.b)
	if n <= 0 {
		r.err = fmt.Errorf("%w: bad summary", ErrBadCheckpoint)
		return 0
	}
	r.b = r.b[n:]
	return v
}

func (r *summaryReader) bytes() []byte {
	n := r.uvarint()
	if r.err != nil {
		return nil
	}
	if n > uint64(len(r.b)) {
		r.err = fmt.Errorf("%w: bad summary", ErrBadCheckpoint)
		return nil
	}
	out := r.b[:n]
	r.b = r.b[n:]
	return out
}

func (r *summaryReader) time() time.Time {
	var t time.Time
	if b := r.bytes(); r.err == nil {
		if err := t.UnmarshalBinary(b); err != nil {
			r.err = fmt.Errorf("%w: %v", ErrBadCheckpoint, err)
		}
	}
	return t
}

// readSummary decodes one summary from b and returns what follows it.
func readSummary(b []byte, s *summary, profiles []*domain.TurnPermissionProfileSnapshot) ([]byte, error) {
	r := &summaryReader{b: b}
	s.id, s.workspace, s.thread, s.parent = string(r.bytes()), string(r.bytes()), string(r.bytes()), string(r.bytes())
	s.status = turn.Status(r.bytes())
	s.version, s.snapshotVersion = r.varint(), r.varint()
	prof, pending := r.uvarint(), r.uvarint()
	s.started, s.updated, s.ended = r.time(), r.time(), r.time()
	if r.err != nil {
		return nil, r.err
	}
	if prof >= uint64(len(profiles)) || s.id == "" {
		return nil, fmt.Errorf("%w: bad summary of %q", ErrBadCheckpoint, s.id)
	}
	s.profile, s.pending = profiles[prof], int(pending)
	return r.b, nil
}
