package esdbtest

import (
	"context"
	"net"
	"strconv"

	"github.com/EventStore/EventStore-Client-Go/v4/protos/gossip"
	"github.com/EventStore/EventStore-Client-Go/v4/protos/serverfeatures"
	"github.com/EventStore/EventStore-Client-Go/v4/protos/shared"
	"github.com/google/uuid"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// featuresServer answers ServerFeatures.GetSupportedMethods with the
// methods this server implements, named as KurrentDB names them (service
// and method lower-cased, read with its "position" and "events" features).
type featuresServer struct {
	serverfeatures.UnimplementedServerFeaturesServer
}

func (featuresServer) GetSupportedMethods(context.Context, *shared.Empty) (*serverfeatures.SupportedMethods, error) {
	const streams = "event_store.client.streams.streams"
	return &serverfeatures.SupportedMethods{
		EventStoreServerVersion: ServerVersion,
		Methods: []*serverfeatures.SupportedMethod{
			{ServiceName: streams, MethodName: "read", Features: []string{"position", "events"}},
			{ServiceName: streams, MethodName: "append"},
			{ServiceName: "event_store.client.gossip.gossip", MethodName: "read"},
			{ServiceName: "event_store.client.server_features.serverfeatures", MethodName: "getsupportedmethods"},
		},
	}, nil
}

// gossipServer answers Gossip.Read with a one-member cluster: this node,
// alive and leader, at the address it listens on.
type gossipServer struct {
	gossip.UnimplementedGossipServer
	s *Server
}

// instanceID identifies this process's test nodes in gossip.
var instanceID = uuid.New()

func (g gossipServer) Read(context.Context, *shared.Empty) (*gossip.ClusterInfo, error) {
	host, port, err := net.SplitHostPort(g.s.Addr())
	if err != nil {
		return nil, status.Errorf(codes.Internal, "esdbtest: address %q: %v", g.s.Addr(), err)
	}
	p, err := strconv.ParseUint(port, 10, 32)
	if err != nil {
		return nil, status.Errorf(codes.Internal, "esdbtest: port %q: %v", port, err)
	}
	return &gossip.ClusterInfo{Members: []*gossip.MemberInfo{{
		InstanceId:   protoUUID(instanceID, true),
		TimeStamp:    g.s.cfg.now().UnixNano() / 100,
		State:        gossip.MemberInfo_Leader,
		IsAlive:      true,
		HttpEndPoint: &gossip.EndPoint{Address: host, Port: uint32(p)},
	}}}, nil
}
