package esdbtest

import (
	"context"

	api "github.com/EventStore/EventStore-Client-Go/v4/protos/streams"
	"github.com/google/uuid"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// subscribeAll serves a catch-up subscription to $all, in the order of
// KurrentDB's AllSubscription(Filtered) enumerators: the confirmation, the
// stored events strictly after the start, a checkpoint at the end of the
// catch-up (filtered only), caught_up, then live events, with a checkpoint
// every checkpointInterval considered records when filtered.
func (s *Server) subscribeAll(rc readCtx, ao *api.ReadReq_Options_AllOptions, f *filter) error {
	ctx := rc.srv.Context()
	drop := s.addSub("$all")
	defer s.removeSub(drop)

	var (
		idx      int    // next record to consider
		chk      uint64 // position of the last record considered (or the start position)
		haveChk  bool
		valid    = true
		startPos *api.ReadReq_Options_Position
	)
	s.log.mu.RLock()
	switch v := ao.GetAllOption().(type) {
	case *api.ReadReq_Options_AllOptions_Start:
		idx = 0
	case *api.ReadReq_Options_AllOptions_End:
		idx = len(s.log.records)
	case *api.ReadReq_Options_AllOptions_Position:
		startPos = v.Position
		c, p := startPos.GetCommitPosition(), startPos.GetPreparePosition()
		if c < s.log.end {
			valid = s.log.validPosition(c)
		}
		idx = s.log.firstAtOrAfter(c)
		for idx < len(s.log.records) && !after(s.log.records[idx].pos, c, p) {
			idx++
		}
		// From the last record on, the server goes live at once: no
		// catch-up, so no catch-up checkpoint either.
		if n := len(s.log.records); n == 0 || c < s.log.records[n-1].pos {
			chk, haveChk = c, true
		}
	default:
		s.log.mu.RUnlock()
		return status.Errorf(codes.InvalidArgument, "'%v' is not a valid AllOptionOneofCase", v)
	}
	s.log.mu.RUnlock()

	if err := rc.srv.Send(confirmation()); err != nil {
		return err
	}
	if !valid {
		return errInvalidPosition
	}

	var (
		caughtUp   bool
		considered int
		sentChk    uint64
		anySentChk bool
	)
	sendCheckpoint := func() error {
		if !haveChk || (anySentChk && chk <= sentChk) {
			return nil
		}
		sentChk, anySentChk = chk, true
		return rc.srv.Send(&api.ReadResp{Content: &api.ReadResp_Checkpoint_{Checkpoint: &api.ReadResp_Checkpoint{
			CommitPosition: chk, PreparePosition: chk,
		}}})
	}
	for {
		recs, changed := s.snapshot()
		for ; idx < len(recs); idx++ {
			if err := s.live(ctx, drop); err != nil {
				return err
			}
			r := recs[idx]
			if r.isEvent() && (f == nil || f.match(r)) {
				if err := rc.sendEvent(r); err != nil {
					return err
				}
			}
			chk, haveChk = r.pos, true
			if f != nil {
				if considered++; considered >= f.checkpointInterval() {
					considered = 0
					if err := sendCheckpoint(); err != nil {
						return err
					}
				}
			}
		}
		if !caughtUp {
			if f != nil {
				if err := sendCheckpoint(); err != nil {
					return err
				}
			}
			if err := rc.srv.Send(caughtUpReply()); err != nil {
				return err
			}
			caughtUp = true
		}
		if err := s.wait(ctx, drop, changed); err != nil {
			return err
		}
	}
}

// subscribeStream serves a catch-up subscription to one stream: the
// confirmation, the stored events after the start revision (exclusive),
// caught_up, then live events. A stream that does not exist yet is simply
// waited for.
func (s *Server) subscribeStream(rc readCtx, name string, so *api.ReadReq_Options_StreamOptions) error {
	ctx := rc.srv.Context()
	drop := s.addSub(name)
	defer s.removeSub(drop)

	s.log.mu.RLock()
	checkpoint := int64(-1) // the last revision sent on
	switch v := so.GetRevisionOption().(type) {
	case *api.ReadReq_Options_StreamOptions_Start:
	case *api.ReadReq_Options_StreamOptions_End:
		checkpoint = s.log.lastRev(name)
	case *api.ReadReq_Options_StreamOptions_Revision:
		checkpoint = int64(min(v.Revision, 1<<62))
	default:
		s.log.mu.RUnlock()
		return status.Errorf(codes.InvalidArgument, "'%v' is not a valid RevisionOptionOneofCase", v)
	}
	s.log.mu.RUnlock()

	if err := rc.srv.Send(confirmation()); err != nil {
		return err
	}
	caughtUp := false
	for {
		s.log.mu.RLock()
		evs := s.log.streams[name]
		evs = evs[:len(evs):len(evs)]
		changed := s.log.changed
		s.log.mu.RUnlock()
		for rev := checkpoint + 1; rev < int64(len(evs)); rev++ {
			if err := s.live(ctx, drop); err != nil {
				return err
			}
			if err := rc.sendEvent(evs[rev]); err != nil {
				return err
			}
			checkpoint = rev
		}
		if !caughtUp {
			if err := rc.srv.Send(caughtUpReply()); err != nil {
				return err
			}
			caughtUp = true
		}
		if err := s.wait(ctx, drop, changed); err != nil {
			return err
		}
	}
}

// after reports whether a record at log position pos (commit == prepare)
// comes strictly after the position (commit, prepare).
func after(pos, commit, prepare uint64) bool {
	return pos > commit || (pos == commit && pos > prepare)
}

func (s *Server) snapshot() ([]*record, chan struct{}) {
	s.log.mu.RLock()
	defer s.log.mu.RUnlock()
	recs := s.log.records
	return recs[:len(recs):len(recs)], s.log.changed
}

// live returns an error when the subscription must end (dropped, or the
// call is over) and blocks while the server hangs.
func (s *Server) live(ctx context.Context, drop chan struct{}) error {
	select {
	case <-drop:
		return errDropped
	default:
	}
	return s.gate(ctx)
}

// wait blocks until the log changes, the subscription is dropped or the call
// ends.
func (s *Server) wait(ctx context.Context, drop, changed chan struct{}) error {
	select {
	case <-changed:
		return nil
	case <-drop:
		return errDropped
	case <-ctx.Done():
		return status.FromContextError(ctx.Err()).Err()
	}
}

func confirmation() *api.ReadResp {
	return &api.ReadResp{Content: &api.ReadResp_Confirmation{Confirmation: &api.ReadResp_SubscriptionConfirmation{
		SubscriptionId: uuid.NewString(),
	}}}
}

func caughtUpReply() *api.ReadResp {
	return &api.ReadResp{Content: &api.ReadResp_CaughtUp_{CaughtUp: &api.ReadResp_CaughtUp{}}}
}
