module turnstile

go 1.26.0

require (
	github.com/EventStore/EventStore-Client-Go/v4 v4.2.0
	github.com/go-chi/chi/v5 v5.5.0
	github.com/google/uuid v1.6.0
	github.com/landlock-lsm/go-landlock v0.11.2
	github.com/looplab/fsm v1.0.3
	go.etcd.io/bbolt v1.5.0
	golang.org/x/sys v0.50.0
	google.golang.org/grpc v1.67.1
	google.golang.org/protobuf v1.35.1
	pgregory.net/rapid v1.3.0
)

require (
	golang.org/x/net v0.30.0 // indirect
	golang.org/x/text v0.19.0 // indirect
	google.golang.org/genproto/googleapis/rpc v0.0.0-20241007155032-5fefd90f89a9 // indirect
	kernel.org/pub/linux/libs/security/libcap/psx v1.2.78 // indirect
)
