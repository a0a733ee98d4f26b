package projections

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/google/uuid"

	"turnstile/domain"
	"turnstile/domain/eventstore"
	"turnstile/domain/turn"
)

// CheckpointFormat is the version of the checkpoint encoding; a checkpoint
// of another version is refused (and the read models replayed in full).
const CheckpointFormat = 1

// checkpointMagic starts every checkpoint's header line:
// "<magic> <format> <sha256 of the body> <length of the body>\n".
const checkpointMagic = "turnstile-readmodels-checkpoint"

// ErrBadCheckpoint is wrapped by every reason Restore refuses a checkpoint.
var ErrBadCheckpoint = errors.New("projections: unusable checkpoint")

type cpBody struct {
	Format      int
	RecentTurns int
	Position    eventstore.Position
	Mark        Mark
	Applied     uint64
	Profiles    []*domain.TurnPermissionProfileSnapshot // nil: none selected
	Old         []cpSummary
	Held        []cpHeld
	Recent      []string
}

type cpSummary struct {
	ID, Workspace, Thread, Parent string
	Status                        turn.Status
	Version, SnapshotVersion      int64
	Profile                       int // index into Profiles
	Pending                       int
	Started, Updated, Ended       time.Time
}

type cpHeld struct {
	Turn      cpView
	Queued    bool
	Audit     []AuditRow
	Timeline  []TimelineRow
	Approvals []ApprovalView // in the order opened
	Pending   []string
}

// cpView is a TurnView whose profile and snapshot are absent until set (a
// zero one would not decode: its enums are invalid).
type cpView struct {
	ID, WorkspaceID, ThreadID, ParentTurnID string
	Status                                  turn.Status
	Version, SnapshotVersion                int64
	Profile                                 *domain.TurnPermissionProfileSnapshot
	Snapshot                                *domain.TurnExecutionSecuritySnapshot
	PendingCount                            int
	StartedAt, UpdatedAt, EndedAt           time.Time
}

func cpViewOf(t *TurnView) cpView {
	v := cpView{ID: t.ID, WorkspaceID: t.WorkspaceID, ThreadID: t.ThreadID, ParentTurnID: t.ParentTurnID, Status: t.Status,
		Version: t.Version, SnapshotVersion: t.SnapshotVersion, PendingCount: t.PendingCount,
		StartedAt: t.StartedAt, UpdatedAt: t.UpdatedAt, EndedAt: t.EndedAt, Profile: profileOrNil(t.Profile)}
	if t.SnapshotVersion >= 0 {
		v.Snapshot = &t.Snapshot
	}
	return v
}

func (v *cpView) view() TurnView {
	t := TurnView{ID: v.ID, WorkspaceID: v.WorkspaceID, ThreadID: v.ThreadID, ParentTurnID: v.ParentTurnID, Status: v.Status,
		Version: v.Version, SnapshotVersion: v.SnapshotVersion, PendingCount: v.PendingCount,
		StartedAt: v.StartedAt, UpdatedAt: v.UpdatedAt, EndedAt: v.EndedAt}
	if v.Profile != nil {
		t.Profile = *v.Profile
	}
	if v.Snapshot != nil {
		t.Snapshot = *v.Snapshot
	}
	return t
}

func profileOrNil(p domain.TurnPermissionProfileSnapshot) *domain.TurnPermissionProfileSnapshot {
	if p.Mode == "" {
		return nil // never selected
	}
	return &p
}

// Checkpoint encodes the projector's state (held turns in full, summaries
// of the older ones, the position it reflects) with a header carrying its
// format and checksum. The state is copied under the read lock and encoded
// after it is released, so Apply waits only for the copy.
func (p *Projector) Checkpoint() ([]byte, Mark, error) {
	body, err := p.checkpointBody()
	if err != nil {
		return nil, Mark{}, err
	}
	b, err := json.Marshal(body)
	if err != nil {
		return nil, Mark{}, fmt.Errorf("projections: encoding a checkpoint: %w", err)
	}
	sum := sha256.Sum256(b)
	out := make([]byte, 0, len(b)+128)
	out = fmt.Appendf(out, "%s %d %s %d\n", checkpointMagic, CheckpointFormat, hex.EncodeToString(sum[:]), len(b))
	return append(out, b...), body.Mark, nil
}

func (p *Projector) checkpointBody() (*cpBody, error) {
	p.mu.RLock()
	defer p.mu.RUnlock()
	if p.broken != nil {
		return nil, fmt.Errorf("projections: no checkpoint of read models an event failed to apply to: %w", p.broken)
	}
	body := &cpBody{Format: CheckpointFormat, RecentTurns: p.recentMax, Position: p.pos, Mark: p.last, Applied: p.applied,
		Old: make([]cpSummary, 0, len(p.old)), Held: make([]cpHeld, 0, len(p.held)), Recent: append([]string(nil), p.recent[p.recentHead:]...)}
	profiles := map[*domain.TurnPermissionProfileSnapshot]int{}
	for _, s := range p.old {
		i, ok := profiles[s.profile]
		if !ok {
			i = len(body.Profiles)
			profiles[s.profile] = i
			body.Profiles = append(body.Profiles, profileOrNil(*s.profile))
		}
		body.Old = append(body.Old, cpSummary{ID: s.id, Workspace: s.workspace, Thread: s.thread, Parent: s.parent, Status: s.status,
			Version: s.version, SnapshotVersion: s.snapshotVersion, Profile: i, Pending: s.pending, Started: s.started, Updated: s.updated, Ended: s.ended})
	}
	for id, t := range p.held {
		h := cpHeld{Turn: cpViewOf(&t.TurnView), Queued: t.queued,
			Audit: t.audit[:len(t.audit):len(t.audit)], Timeline: t.timeline[:len(t.timeline):len(t.timeline)]}
		for _, r := range t.requests {
			h.Approvals = append(h.Approvals, *p.approvals[r])
		}
		for r := range p.pending[id] {
			h.Pending = append(h.Pending, r)
		}
		body.Held = append(body.Held, h)
	}
	return body, nil
}

// Restore loads a checkpoint into an empty projector after checking its
// header, format and checksum, and returns the event it reflects: the caller
// must check that the store has that event there (else discard the
// projector and replay everything). Restore changes nothing unless it
// succeeds. A checkpoint written with a smaller
// RecentTurns than this projector's is refused (it has evicted turns this
// one would hold); one with a larger bound is trimmed to this one's.
func (p *Projector) Restore(b []byte) (Mark, error) {
	body, err := decodeCheckpoint(b)
	if err != nil {
		return Mark{}, err
	}
	if p.recentMax >= 0 && body.RecentTurns >= 0 && body.RecentTurns < p.recentMax || p.recentMax < 0 && body.RecentTurns >= 0 {
		return Mark{}, fmt.Errorf("%w: written holding %d recent turns, now %d", ErrBadCheckpoint, body.RecentTurns, p.recentMax)
	}
	q := NewWith(Options{RecentTurns: p.recentMax})
	profiles := make([]*domain.TurnPermissionProfileSnapshot, len(body.Profiles))
	for i, prof := range body.Profiles {
		if prof == nil {
			prof = &domain.TurnPermissionProfileSnapshot{}
		}
		profiles[i] = q.intern(*prof)
	}
	for _, s := range body.Old {
		if s.Profile < 0 || s.Profile >= len(profiles) {
			return Mark{}, fmt.Errorf("%w: turn %s has no profile", ErrBadCheckpoint, s.ID)
		}
		q.old[s.ID] = &summary{id: s.ID, workspace: s.Workspace, thread: s.Thread, parent: s.Parent, status: s.Status,
			version: s.Version, snapshotVersion: s.SnapshotVersion, profile: profiles[s.Profile], pending: s.Pending,
			started: s.Started, updated: s.Updated, ended: s.Ended}
	}
	for i := range body.Held {
		h := &body.Held[i]
		t := &heldTurn{TurnView: h.Turn.view(), audit: h.Audit, timeline: h.Timeline, queued: h.Queued}
		for j := range h.Approvals {
			a := h.Approvals[j]
			t.requests = append(t.requests, a.Request.RequestID)
			q.approvals[a.Request.RequestID] = &a
		}
		if len(h.Pending) > 0 {
			pend := map[string]struct{}{}
			for _, r := range h.Pending {
				if q.approvals[r] == nil {
					return Mark{}, fmt.Errorf("%w: pending request %s unknown", ErrBadCheckpoint, r)
				}
				pend[r] = struct{}{}
			}
			q.pending[t.ID] = pend
		}
		q.held[t.ID] = t
	}
	q.recent, q.pos, q.last, q.applied = body.Recent, body.Position, body.Mark, body.Applied
	q.evict()

	p.mu.Lock()
	defer p.mu.Unlock()
	if p.applied != 0 || len(p.held) != 0 || len(p.old) != 0 {
		return Mark{}, fmt.Errorf("%w: restoring into a projector that has applied events", ErrBadCheckpoint)
	}
	p.held, p.old, p.approvals, p.pending, p.profiles = q.held, q.old, q.approvals, q.pending, q.profiles
	p.recent, p.recentHead, p.pos, p.last, p.applied = q.recent, q.recentHead, q.pos, q.last, q.applied
	return p.last, nil
}

func decodeCheckpoint(b []byte) (*cpBody, error) {
	nl := bytes.IndexByte(b, '\n')
	if nl < 0 || nl > 256 {
		return nil, fmt.Errorf("%w: no header", ErrBadCheckpoint)
	}
	fields := bytes.Fields(b[:nl])
	if len(fields) != 4 || string(fields[0]) != checkpointMagic {
		return nil, fmt.Errorf("%w: not a checkpoint", ErrBadCheckpoint)
	}
	if string(fields[1]) != strconv.Itoa(CheckpointFormat) {
		return nil, fmt.Errorf("%w: format %s, this version reads %d", ErrBadCheckpoint, fields[1], CheckpointFormat)
	}
	n, err := strconv.Atoi(string(fields[3]))
	body := b[nl+1:]
	if err != nil || n != len(body) {
		return nil, fmt.Errorf("%w: truncated (%d bytes of %s)", ErrBadCheckpoint, len(body), fields[3])
	}
	sum := sha256.Sum256(body)
	if hex.EncodeToString(sum[:]) != string(fields[2]) {
		return nil, fmt.Errorf("%w: checksum mismatch", ErrBadCheckpoint)
	}
	var cb cpBody
	if err := json.Unmarshal(body, &cb); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrBadCheckpoint, err)
	}
	if cb.Format != CheckpointFormat {
		return nil, fmt.Errorf("%w: body format %d", ErrBadCheckpoint, cb.Format)
	}
	if cb.Applied > 0 && cb.Mark.EventID == uuid.Nil {
		return nil, fmt.Errorf("%w: no last event", ErrBadCheckpoint)
	}
	return &cb, nil
}
