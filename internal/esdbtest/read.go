package esdbtest

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/EventStore/EventStore-Client-Go/v4/protos/shared"
	api "github.com/EventStore/EventStore-Client-Go/v4/protos/streams"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// Read implements Streams.Read: stream and $all reads, and catch-up
// subscriptions, dispatched on the same combinations KurrentDB accepts.
func (s *Server) Read(req *api.ReadReq, srv api.Streams_ReadServer) error {
	o := req.GetOptions()
	if o == nil {
		return handlerException()
	}
	if o.GetUuidOption() == nil {
		return status.Error(codes.InvalidArgument, "'uuidOption' is a required argument of type EventStore.Client.Streams.ReadReq+Types+Options+Types+UUIDOption")
	}
	rc := readCtx{
		srv:        srv,
		structured: o.GetUuidOption().GetString_() == nil,
		compat:     o.GetControlOption().GetCompatibility(),
	}
	backwards := o.GetReadDirection() == api.ReadReq_Options_Backwards

	var f *filter
	switch fo := o.GetFilterOption().(type) {
	case *api.ReadReq_Options_NoFilter:
	case *api.ReadReq_Options_Filter:
		var err error
		if f, err = newFilter(fo.Filter); err != nil {
			return err
		}
	default:
		return invalidCombination(o)
	}

	switch so := o.GetStreamOption().(type) {
	case *api.ReadReq_Options_Stream:
		if f != nil {
			return invalidCombination(o)
		}
		name := string(so.Stream.GetStreamIdentifier().GetStreamName())
		switch co := o.GetCountOption().(type) {
		case *api.ReadReq_Options_Count:
			return s.readStream(rc, name, so.Stream, backwards, co.Count)
		case *api.ReadReq_Options_Subscription:
			if backwards {
				return invalidCombination(o)
			}
			return s.subscribeStream(rc, name, so.Stream)
		}
	case *api.ReadReq_Options_All:
		switch co := o.GetCountOption().(type) {
		case *api.ReadReq_Options_Count:
			return s.readAll(rc, so.All, backwards, co.Count, f)
		case *api.ReadReq_Options_Subscription:
			if backwards {
				return invalidCombination(o)
			}
			if f != nil && f.checkpointMultiplier == 0 {
				// KurrentDB: ArgumentOutOfRangeException.ThrowIfZero.
				return handlerException()
			}
			return s.subscribeAll(rc, so.All, f)
		}
	}
	return invalidCombination(o)
}

// readCtx is what every reply of one Read call needs.
type readCtx struct {
	srv        api.Streams_ReadServer
	structured bool   // UUIDs as two int64 halves (else as strings)
	compat     uint32 // control_option.compatibility
}

func (rc readCtx) sendEvent(r *record) error { return rc.srv.Send(readEvent(r, rc.structured)) }

func invalidCombination(o *api.ReadReq_Options) error {
	return status.Errorf(codes.InvalidArgument, "The combination of (%T, %T, %v, %T) is invalid.",
		o.GetStreamOption(), o.GetCountOption(), o.GetReadDirection(), o.GetFilterOption())
}

// readStream serves a stream read: stream_not_found for a stream without
// events, else the events from the start revision in the read direction,
// and, only for clients that ask for compatibility >= 1, the first/last
// stream position replies the v4 client cannot handle.
func (s *Server) readStream(rc readCtx, name string, so *api.ReadReq_Options_StreamOptions, backwards bool, count uint64) error {
	s.log.mu.RLock()
	evs := s.log.streams[name]
	evs = evs[:len(evs):len(evs)] // a snapshot: appends never touch these elements
	s.log.mu.RUnlock()

	if len(evs) == 0 {
		return rc.srv.Send(&api.ReadResp{Content: &api.ReadResp_StreamNotFound_{StreamNotFound: &api.ReadResp_StreamNotFound{
			StreamIdentifier: &shared.StreamIdentifier{StreamName: []byte(name)},
		}}})
	}
	last := uint64(len(evs) - 1)
	var from uint64
	switch v := so.GetRevisionOption().(type) {
	case *api.ReadReq_Options_StreamOptions_Revision:
		from = v.Revision
	case *api.ReadReq_Options_StreamOptions_Start:
		from = 0
	case *api.ReadReq_Options_StreamOptions_End:
		from = ^uint64(0)
	default:
		return status.Errorf(codes.InvalidArgument, "'%v' is not a valid RevisionOptionOneofCase", v)
	}

	sent := uint64(0)
	if !backwards {
		for rev := from; rev <= last && sent < count; rev++ {
			if err := rc.sendEvent(evs[rev]); err != nil {
				return err
			}
			sent++
		}
		if rc.compat >= 1 && sent == 0 && count > 0 && from != last+1 {
			// Reading past the end: the server reports where the stream
			// would be read next (Enumerator.ReadStreamForwards).
			if err := rc.srv.Send(&api.ReadResp{Content: &api.ReadResp_FirstStreamPosition{FirstStreamPosition: last + 1}}); err != nil {
				return err
			}
		}
	} else {
		start := min(from, last)
		for rev := int64(start); rev >= 0 && sent < count; rev-- {
			if err := rc.sendEvent(evs[rev]); err != nil {
				return err
			}
			sent++
		}
	}
	if rc.compat >= 1 {
		return rc.srv.Send(&api.ReadResp{Content: &api.ReadResp_LastStreamPosition{LastStreamPosition: last}})
	}
	return nil
}

// readAll serves a $all read: forwards from a position includes the event at
// that position, backwards from a position returns the events before it. A
// position inside a record is refused, as the server refuses it.
func (s *Server) readAll(rc readCtx, ao *api.ReadReq_Options_AllOptions, backwards bool, count uint64, f *filter) error {
	s.log.mu.RLock()
	recs := s.log.records
	recs = recs[:len(recs):len(recs)]
	end := s.log.end
	var from uint64
	valid := true
	switch v := ao.GetAllOption().(type) {
	case *api.ReadReq_Options_AllOptions_Position:
		from = v.Position.GetCommitPosition()
		valid = s.log.validPosition(from)
	case *api.ReadReq_Options_AllOptions_Start:
		from = 0
	case *api.ReadReq_Options_AllOptions_End:
		from = end
	default:
		s.log.mu.RUnlock()
		return status.Errorf(codes.InvalidArgument, "'%v' is not a valid AllOptionOneofCase", v)
	}
	i := s.log.firstAtOrAfter(from)
	s.log.mu.RUnlock()
	if !valid {
		return errInvalidPosition
	}

	sent := uint64(0)
	step, stop := 1, len(recs)
	if backwards {
		i, step, stop = i-1, -1, -1
	}
	for ; i != stop && sent < count; i += step {
		r := recs[i]
		if !r.isEvent() || (f != nil && !f.match(r)) {
			continue
		}
		if err := rc.sendEvent(r); err != nil {
			return err
		}
		sent++
	}
	return nil
}

// errInvalidPosition is KurrentDB's answer to a read from a position that is
// not the start of a record.
var errInvalidPosition = status.Error(codes.InvalidArgument, "Trying to read from an invalid position.")

// filter is a server-side $all filter: on the stream name or the event type,
// by prefixes or by a regular expression. Like KurrentDB's filters for $all
// it first applies the default $all filter.
type filter struct {
	onType               bool
	prefixes             []string
	re                   *regexp.Regexp
	maxSearchWindow      uint32 // 0: the read batch size
	checkpointMultiplier uint32
}

// defaultReadBatchSize is the server's page size for catch-up reads, used as
// the search window when the client asks for "count".
const defaultReadBatchSize = 32

func newFilter(fo *api.ReadReq_Options_FilterOptions) (*filter, error) {
	f := &filter{checkpointMultiplier: fo.GetCheckpointIntervalMultiplier()}
	var expr *api.ReadReq_Options_FilterOptions_Expression
	switch v := fo.GetFilter().(type) {
	case *api.ReadReq_Options_FilterOptions_StreamIdentifier:
		expr = v.StreamIdentifier
	case *api.ReadReq_Options_FilterOptions_EventType:
		expr, f.onType = v.EventType, true
	default:
		return nil, status.Errorf(codes.InvalidArgument, "'%v' is not a valid FilterOptions", v)
	}
	switch w := fo.GetWindow().(type) {
	case *api.ReadReq_Options_FilterOptions_Max:
		f.maxSearchWindow = w.Max
	case *api.ReadReq_Options_FilterOptions_Count:
		f.maxSearchWindow = defaultReadBatchSize
	default:
		return nil, status.Errorf(codes.InvalidArgument, "'%v' is not a valid WindowOneofCase", w)
	}
	if f.maxSearchWindow == 0 {
		f.maxSearchWindow = defaultReadBatchSize
	}
	if expr.GetRegex() != "" {
		re, err := regexp.Compile(expr.GetRegex())
		if err != nil {
			return nil, status.Errorf(codes.InvalidArgument, "esdbtest: regex %q: %v", expr.GetRegex(), err)
		}
		f.re = re
	} else {
		f.prefixes = expr.GetPrefix()
	}
	return f, nil
}

func (f *filter) match(r *record) bool {
	if !defaultAllFilter(r.stream) {
		return false
	}
	subject := r.stream
	if f.onType {
		subject = r.typ
	}
	if f.re != nil {
		return f.re.MatchString(subject)
	}
	for _, p := range f.prefixes {
		if strings.HasPrefix(subject, p) {
			return true
		}
	}
	return false
}

// checkpointInterval is how many considered records separate two
// checkpoints (multiplier * max search window).
func (f *filter) checkpointInterval() int {
	return int(f.checkpointMultiplier) * int(f.maxSearchWindow)
}

// defaultAllFilter is KurrentDB's DefaultAllFilter: user streams pass,
// $epoch-information and the checkpoints and parked messages of persistent
// subscriptions to $all do not, other system streams pass.
func defaultAllFilter(stream string) bool {
	if !strings.HasPrefix(stream, "$") {
		return true
	}
	if stream == "$epoch-information" {
		return false
	}
	const psAll = "$persistentsubscription-$all::"
	if strings.HasPrefix(stream, psAll) && (strings.HasSuffix(stream, "-checkpoint") || strings.HasSuffix(stream, "-parked")) {
		return false
	}
	return true
}

func (f *filter) String() string {
	what := "stream"
	if f.onType {
		what = "type"
	}
	if f.re != nil {
		return fmt.Sprintf("%s ~ %s", what, f.re)
	}
	return fmt.Sprintf("%s prefix %q", what, f.prefixes)
}
