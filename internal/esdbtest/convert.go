package esdbtest

import (
	"encoding/binary"
	"fmt"
	"strconv"

	"github.com/EventStore/EventStore-Client-Go/v4/protos/shared"
	api "github.com/EventStore/EventStore-Client-Go/v4/protos/streams"
	"github.com/google/uuid"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
)

// Metadata keys and content types of KurrentDB's gRPC protocol.
const (
	metaType        = "type"
	metaContentType = "content-type"
	metaCreated     = "created"
	contentJSON     = "application/json"
	contentBinary   = "application/octet-stream"
)

// protoUUID encodes id as the server does: structured (two big-endian
// int64 halves) unless the request asked for strings.
func protoUUID(id uuid.UUID, structured bool) *shared.UUID {
	if !structured {
		return &shared.UUID{Value: &shared.UUID_String_{String_: id.String()}}
	}
	return &shared.UUID{Value: &shared.UUID_Structured_{Structured: &shared.UUID_Structured{
		MostSignificantBits:  int64(binary.BigEndian.Uint64(id[:8])),
		LeastSignificantBits: int64(binary.BigEndian.Uint64(id[8:])),
	}}}
}

// uuidFromProto decodes either form of a UUID.
func uuidFromProto(u *shared.UUID) (uuid.UUID, error) {
	switch v := u.GetValue().(type) {
	case *shared.UUID_Structured_:
		var id uuid.UUID
		binary.BigEndian.PutUint64(id[:8], uint64(v.Structured.GetMostSignificantBits()))
		binary.BigEndian.PutUint64(id[8:], uint64(v.Structured.GetLeastSignificantBits()))
		return id, nil
	case *shared.UUID_String_:
		return uuid.Parse(v.String_)
	default:
		return uuid.Nil, fmt.Errorf("missing uuid")
	}
}

// readEvent converts an event record into the reply KurrentDB sends for it:
// the recorded event with its three system metadata entries, no link, and
// the commit position of the original event (self-committed events have
// commit == prepare == their log position).
func readEvent(r *record, structured bool) *api.ReadResp {
	contentType := contentBinary
	if r.json {
		contentType = contentJSON
	}
	return &api.ReadResp{Content: &api.ReadResp_Event{Event: &api.ReadResp_ReadEvent{
		Event: &api.ReadResp_ReadEvent_RecordedEvent{
			Id:               protoUUID(r.id, structured),
			StreamIdentifier: &shared.StreamIdentifier{StreamName: []byte(r.stream)},
			StreamRevision:   uint64(r.rev),
			PreparePosition:  r.pos,
			CommitPosition:   r.pos,
			Metadata: map[string]string{
				metaType:        r.typ,
				metaCreated:     strconv.FormatInt(r.created, 10),
				metaContentType: contentType,
			},
			CustomMetadata: nonNil(r.meta),
			Data:           nonNil(r.data),
		},
		Position: &api.ReadResp_ReadEvent_CommitPosition{CommitPosition: r.pos},
	}}}
}

func nonNil(b []byte) []byte {
	if b == nil {
		return []byte{}
	}
	return b
}

// rpcError builds a status error with the trailers KurrentDB attaches to its
// RpcExceptions ("exception" and its details). The trailers are set on the
// call, which must not have ended yet.
func rpcError(ss grpc.ServerStream, code codes.Code, msg string, trailer ...string) error {
	if len(trailer) > 0 && ss != nil {
		ss.SetTrailer(metadata.Pairs(trailer...))
	}
	return status.Error(code, msg)
}

// handlerException is what ASP.NET Core gRPC answers when a handler throws
// an exception that is not an RpcException (KurrentDB throws
// InvalidOperationException for malformed request sequences).
func handlerException() error {
	return status.Error(codes.Unknown, "Exception was thrown by handler.")
}
