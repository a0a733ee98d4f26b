package esdbtest

import (
	"errors"
	"io"
	"strconv"

	"github.com/EventStore/EventStore-Client-Go/v4/protos/shared"
	api "github.com/EventStore/EventStore-Client-Go/v4/protos/streams"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// Append implements Streams.Append: the first message carries the options,
// every further message one proposed event; the reply comes when the
// client closes its side.
func (s *Server) Append(stream api.Streams_AppendServer) error {
	first, err := stream.Recv()
	if err != nil {
		if errors.Is(err, io.EOF) {
			return handlerException()
		}
		return err
	}
	opts := first.GetOptions()
	if opts == nil {
		return handlerException()
	}
	name := string(opts.GetStreamIdentifier().GetStreamName())
	if name == "" {
		return status.Error(codes.InvalidArgument, "'streamName' is a required argument")
	}
	exp, err := expectationOf(opts)
	if err != nil {
		return err
	}

	var evs []proposed
	size := 0
	for {
		req, err := stream.Recv()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return err
		}
		pm := req.GetProposedMessage()
		if pm == nil {
			return handlerException()
		}
		typ, ok := pm.GetMetadata()[metaType]
		if !ok {
			return missingMetadata(stream, metaType)
		}
		ct, ok := pm.GetMetadata()[metaContentType]
		if !ok {
			return missingMetadata(stream, metaContentType)
		}
		size += len(typ) + len(pm.GetData()) + len(pm.GetCustomMetadata())
		if size > s.cfg.maxAppendSize {
			max := strconv.Itoa(s.cfg.maxAppendSize)
			return rpcError(stream, codes.InvalidArgument, "Maximum Append Size of "+max+" Exceeded.",
				"exception", "maximum-append-size-exceeded", "maximum-append-size", max)
		}
		id, err := uuidFromProto(pm.GetId())
		if err != nil {
			return status.Errorf(codes.InvalidArgument, "invalid event id: %v", err)
		}
		evs = append(evs, proposed{id: id, typ: typ, json: ct == contentJSON, data: pm.GetData(), meta: pm.GetCustomMetadata()})
	}

	if err := stream.Context().Err(); err != nil {
		return status.FromContextError(err).Err()
	}
	fault := s.nextFault()
	if fault == FailBeforeCommit {
		return status.Error(codes.Unavailable, "esdbtest: injected fault before commit")
	}
	res := s.log.commit(name, exp, evs)
	if fault == FailAfterCommit {
		return status.Error(codes.Unavailable, "esdbtest: injected fault after commit (reply lost)")
	}
	return stream.SendAndClose(appendResponse(opts, res))
}

func expectationOf(opts *api.AppendReq_Options) (expectation, error) {
	switch v := opts.GetExpectedStreamRevision().(type) {
	case *api.AppendReq_Options_Any:
		return expectation{kind: expectAny}, nil
	case *api.AppendReq_Options_NoStream:
		return expectation{kind: expectNoStream, rev: noStream}, nil
	case *api.AppendReq_Options_StreamExists:
		return expectation{kind: expectStreamExists}, nil
	case *api.AppendReq_Options_Revision:
		if v.Revision > 1<<62 {
			return expectation{}, status.Errorf(codes.InvalidArgument, "'%d' is not a valid revision", v.Revision)
		}
		return expectation{kind: expectRevision, rev: int64(v.Revision)}, nil
	default:
		return expectation{}, status.Errorf(codes.InvalidArgument, "'%v' is not a valid ExpectedStreamRevisionOneofCase", v)
	}
}

func missingMetadata(stream api.Streams_AppendServer, key string) error {
	return rpcError(stream, codes.InvalidArgument, "Required Metadata Property '"+key+"' is missing",
		"exception", "missing-required-metadata-property", "required-metadata-properties", metaType+","+metaContentType)
}

// appendResponse shapes the reply as KurrentDB's Streams.Append does.
func appendResponse(opts *api.AppendReq_Options, res commitResult) *api.AppendResp {
	empty := &shared.Empty{}
	switch res.check.decision {
	case decisionOK, decisionIdempotent:
		ok := &api.AppendResp_Success{
			PositionOption: &api.AppendResp_Success_Position{Position: &api.AppendResp_Position{
				CommitPosition: res.position, PreparePosition: res.position,
			}},
		}
		if res.lastRev < 0 {
			ok.CurrentRevisionOption = &api.AppendResp_Success_NoStream{NoStream: empty}
		} else {
			ok.CurrentRevisionOption = &api.AppendResp_Success_CurrentRevision{CurrentRevision: uint64(res.lastRev)}
		}
		return &api.AppendResp{Result: &api.AppendResp_Success_{Success: ok}}
	}

	// A wrong expected version (corrupted idempotency is answered the same
	// way), with both the current fields and the 20.6.0 ones.
	w := &api.AppendResp_WrongExpectedVersion{}
	switch v := opts.GetExpectedStreamRevision().(type) {
	case *api.AppendReq_Options_Any:
		w.ExpectedRevisionOption = &api.AppendResp_WrongExpectedVersion_ExpectedAny{ExpectedAny: empty}
		w.ExpectedRevisionOption_20_6_0 = &api.AppendResp_WrongExpectedVersion_Any_20_6_0{Any_20_6_0: empty}
	case *api.AppendReq_Options_StreamExists:
		w.ExpectedRevisionOption = &api.AppendResp_WrongExpectedVersion_ExpectedStreamExists{ExpectedStreamExists: empty}
		w.ExpectedRevisionOption_20_6_0 = &api.AppendResp_WrongExpectedVersion_StreamExists_20_6_0{StreamExists_20_6_0: empty}
	case *api.AppendReq_Options_NoStream:
		w.ExpectedRevisionOption = &api.AppendResp_WrongExpectedVersion_ExpectedNoStream{ExpectedNoStream: empty}
		w.ExpectedRevisionOption_20_6_0 = &api.AppendResp_WrongExpectedVersion_ExpectedRevision_20_6_0{ExpectedRevision_20_6_0: ^uint64(0)}
	case *api.AppendReq_Options_Revision:
		w.ExpectedRevisionOption = &api.AppendResp_WrongExpectedVersion_ExpectedRevision{ExpectedRevision: v.Revision}
		w.ExpectedRevisionOption_20_6_0 = &api.AppendResp_WrongExpectedVersion_ExpectedRevision_20_6_0{ExpectedRevision_20_6_0: v.Revision}
	}
	if cur := res.check.current; cur < 0 {
		w.CurrentRevisionOption = &api.AppendResp_WrongExpectedVersion_CurrentNoStream{CurrentNoStream: empty}
		w.CurrentRevisionOption_20_6_0 = &api.AppendResp_WrongExpectedVersion_NoStream_20_6_0{NoStream_20_6_0: empty}
	} else {
		w.CurrentRevisionOption = &api.AppendResp_WrongExpectedVersion_CurrentRevision{CurrentRevision: uint64(cur)}
		w.CurrentRevisionOption_20_6_0 = &api.AppendResp_WrongExpectedVersion_CurrentRevision_20_6_0{CurrentRevision_20_6_0: uint64(cur)}
	}
	return &api.AppendResp{Result: &api.AppendResp_WrongExpectedVersion_{WrongExpectedVersion: w}}
}
